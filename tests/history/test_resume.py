"""An ingest killed half-way and resumed ends with the same graph as one that ran straight
through: the same edges (PR links of merges read before the kill included), the same degrees,
so the same hub suppression and the same walks."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lore.history import queries as q
from lore.history import store as sql
from lore.history.ingest.git import ingest_git
from lore.history.repos import Repo, resolve_repo
from support.history_graph import graph_snapshot, stale_degrees
from support.history_repo import HistoryRepo, lines

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

# Ingests in small batches and SIGKILLs itself right after the given number of commits is
# committed to the store: a real process dying mid-run, no cleanup, no finally blocks.
KILLED_INGEST = """
import os, signal, sys
from pathlib import Path
import lore.history.ingest.git as ingest

ingest.BATCH_COMMITS = int(sys.argv[2])
ingest.PROGRESS_STEP = 1  # the bar advances after each commit, once its batch is written
kill_at = int(sys.argv[3])

class DieAfterBatches:
    done = 0
    def start(self, label, total=None): pass
    def advance(self, n=1):
        self.done += n
        if self.done >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    def wait(self, seconds, reason): pass
    def note(self, message): pass

ingest.ingest_git(Path(sys.argv[1]), progress=DieAfterBatches())
"""


def _kill_mid_ingest(root: Path, batch: int, kill_at: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_INGEST, str(root), str(batch), str(kill_at)],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -9, proc.stderr


def _walk(repo: Repo, start: str) -> list[tuple]:
    found = q.walk_from(repo, start, depth=3, max_degree=20, limit=None)["results"]
    return [(r["kind"], r["key"], r["depth"], r["degree"], r["hub"]) for r in found]


def test_killed_git_ingest_resumes_to_the_same_graph(history_repo, tmp_path) -> None:
    clean_root = tmp_path / "clean-copy"
    shutil.copytree(history_repo.root, clean_root)
    # 4 commits a batch, killed after 8: the merge of PR #14 (7th) and the first commit,
    # which touches 44 files, are stored by the killed run; the resumed run reads the rest
    _kill_mid_ingest(history_repo.root, batch=4, kill_at=8)
    killed = resolve_repo(str(history_repo.root))
    assert q.stats(killed)["commits"] == 8
    assert not q.stats(killed)["complete"]  # a partial ingest says so
    resumed = ingest_git(history_repo.root)
    # the resumed run starts where the killed one stopped: nothing read twice
    assert resumed.mode == "incremental"
    assert resumed.commits_added == 3 and resumed.commits_skipped == 0
    assert q.stats(killed)["complete"]
    ingest_git(clean_root)
    clean = resolve_repo(str(clean_root))
    assert clean.id != killed.id

    assert stale_degrees() == 0
    after_kill, straight = graph_snapshot(killed.id), graph_snapshot(clean.id)
    assert after_kill["degrees"] == straight["degrees"]
    assert after_kill["nodes"] == straight["nodes"]
    assert after_kill["edges"] == straight["edges"]
    part_of = {(src, dst) for _k, src, rel, _bk, dst, _at in after_kill["edges"] if rel == "PART_OF"}
    feature = (
        sql.open_history()
        .store.connect()
        .execute(
            "SELECT sha FROM history_commits WHERE repo_id = ? AND subject = 'Feature work on core'",
            (killed.id,),
        )
        .fetchone()[0]
    )
    assert (feature, "14") in part_of  # the branch commit of a merge read before the kill
    # the sweeping first commit is a hub in both, so both walks stop at it
    first = next(
        d
        for (k, _key), (label, _at, d) in after_kill["nodes"].items()
        if k == "commit" and label == "Add core module"
    )
    assert first == 44 + 1 + 1  # 44 files, its author, its child's PARENT edge
    for start in ("src/helpers.py", "src/core.py", "#14"):
        assert _walk(killed, start) == _walk(clean, start)
    assert _story(killed, "src/helpers.py") == _story(clean, "src/helpers.py")


def _story(repo: Repo, path: str) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "id"} for e in q.file_history(repo, path)["entries"]]


def test_ctrl_c_keeps_what_was_read_and_says_how_to_go_on(tmp_path: Path) -> None:
    """Ctrl-C in a terminal (SIGINT to the whole foreground process group) during `lore history
    ingest`: exit 130, one line saying what is kept and the command that goes on, and the next
    run reads only the rest.

    The `.mailmap` is a FIFO: git opens it when it writes its first commit and waits there
    until the test opens the other end, so the signal lands while the log is being read."""
    r = HistoryRepo(tmp_path / "project")
    for i in range(5):
        r.commit(f"Change {i}", {"src/a.py": lines(i + 1, "a")})
    fifo = r.root / ".mailmap"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "lore.cli.entry", "history", "ingest", str(r.root)],
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, as a terminal gives a command it runs
    )
    reached, done = threading.Event(), threading.Event()

    def feed_git() -> None:
        while not done.is_set():  # git may open its .mailmap more than once
            with open(fifo, "w"):  # returns once git has opened it: it is reading the log
                if not reached.is_set():
                    reached.set()
                    os.killpg(proc.pid, signal.SIGINT)
            # closed: git reads an empty .mailmap and goes on

    feeder = threading.Thread(target=feed_git, daemon=True)
    feeder.start()
    out, err = proc.communicate(timeout=300)  # a guard against a run that hangs, not a measure
    done.set()
    unblock = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # lets a last open of the feeder return
    feeder.join()
    os.close(unblock)
    assert reached.is_set(), err
    assert proc.returncode == 130, err
    repo = resolve_repo(str(r.root))
    kept = q.stats(repo)
    assert kept["commits"] == 1 and not kept["complete"]  # the commit read when it was stopped
    assert err.strip().splitlines()[-1] == (
        f"stopped: 1 commit(s) of project are stored and kept; run `lore history ingest {r.root}`"
        " again to read the rest (it goes on from where this run stopped)"
    )
    assert out == ""
    fifo.unlink()
    resumed = ingest_git(r.root)
    assert (resumed.mode, resumed.commits_added, resumed.commits_skipped) == ("incremental", 4, 0)
    assert q.stats(repo)["commits"] == 5 and q.stats(repo)["complete"]
