"""What `lore history ingest` shows while it runs and when it ends: a bar that moves as the log
is read, a summary of what happened, the repository a folder stands for; and the `--limit`
every list of the history commands takes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history import queries as q
from lore.history.ingest.git import BATCH_COMMITS, PROGRESS_STEP, ingest_git
from lore.history.repos import resolve_repo
from support.history_repo import DAY, T0, HistoryRepo, lines, run_git

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

runner = CliRunner()


def _many_commits(root: Path, count: int) -> None:
    """`count` commits on main, each changing one of seven files, made by `git fast-import`."""
    run_git(root.parent, "init", "-q", "-b", "main", root.name)
    stream = []
    for i in range(1, count + 1):
        message = f"Change {i}\n".encode()
        body = lines(i % 5 + 1, f"v{i}").encode()
        stream += [
            b"commit refs/heads/main",
            b"mark :%d" % i,
            b"committer Alice <alice@example.com> %d +0000" % (T0 + i * DAY),
            b"data %d" % len(message),
            message,
            *([b"from :%d" % (i - 1)] if i > 1 else []),
            b"M 100644 inline src/f%d.py" % (i % 7),
            b"data %d" % len(body),
            body,
        ]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"\n".join(stream) + b"\n", check=True)


class _Recorded:
    """A progress that notes, at each step, how many commits the store holds by then."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.totals: list[int | None] = []
        self.steps: list[tuple[int, int]] = []  # (commits counted, commits stored)
        self.notes: list[str] = []

    def start(self, label: str, total: int | None = None) -> None:
        self.totals.append(total)

    def advance(self, n: int = 1) -> None:
        counted = (self.steps[-1][0] if self.steps else 0) + n
        stored = q.stats(resolve_repo(str(self.root)))["commits"]  # registered before the log is read
        self.steps.append((counted, stored))

    def wait(self, seconds: float, reason: str) -> None:
        pass

    def note(self, message: str) -> None:
        self.notes.append(message)


def test_the_bar_moves_while_the_log_is_read(tmp_path: Path) -> None:
    """The bar counts commits as they are read, not a batch at a time once written: with fewer
    commits than a batch, it moves several times before the first commit is stored."""
    count = PROGRESS_STEP * 4 + 3
    assert count < BATCH_COMMITS
    root = tmp_path / "many"
    _many_commits(root, count)
    seen = _Recorded(root)
    ingest_git(root, progress=seen)
    assert seen.totals == [count]
    assert seen.steps[-1][0] == count
    before_any_write = [counted for counted, stored in seen.steps if stored == 0 and counted < count]
    assert before_any_write == [PROGRESS_STEP * k for k in range(1, 5)]


def test_the_summary_shows_what_happened(tmp_path: Path) -> None:
    """Only counters that are not zero, besides what always matters (mode, commits added, time)."""
    r = HistoryRepo(tmp_path / "project")
    r.commit("Start", {"src/a.py": lines(3, "a")})
    r.commit("More", {"src/a.py": lines(4, "a")})
    first = runner.invoke(app, ["history", "ingest", str(r.root), "--quiet"])
    assert first.exit_code == 0, first.output
    title, *shown = first.stdout.splitlines()
    assert title == "Ingested project"
    rows = [line.split("  ")[1] for line in shown]
    assert rows == ["path", "mode", "commits added", "nodes added", "edges added", "seconds"]
    assert len({line.index(line.split()[-1]) for line in shown if " added " in line}) == 1  # aligned
    again = runner.invoke(app, ["history", "ingest", str(r.root), "--quiet"])
    title, *shown = again.stdout.splitlines()
    rows = [line.split("  ")[1] for line in shown]
    assert rows == ["path", "mode", "commits added", "seconds"]  # nothing new: nothing more to say
    assert shown[2].split() == ["commits", "added", "0"]
    data = json.loads(runner.invoke(app, ["history", "ingest", str(r.root), "--json"]).stdout)
    assert data["lossy_commits"] == 0 and data["shallow"] is False  # JSON keeps every field


def test_a_folder_inside_a_repository_says_which_repository_is_read(tmp_path: Path) -> None:
    """The whole enclosing repository is read (as `git log` there would), and one line says so."""
    r = HistoryRepo(tmp_path / "outer")
    r.commit("Start", {"src/a.py": lines(3, "a"), "notes/todo.md": "x\n"})
    seen = _Recorded(r.root)
    report = ingest_git(r.root / "notes", progress=seen)
    assert report.path == str(r.root) and report.commits_added == 1
    assert seen.notes == [
        f"reading the repository at {r.root} (the folder given, {r.root / 'notes'}, is inside it)"
    ]
    said = runner.invoke(app, ["history", "ingest", str(r.root / "notes"), "--json"])
    assert said.exit_code == 0
    assert f"note: reading the repository at {r.root} (the folder given" in said.stderr
    seen = _Recorded(r.root)
    ingest_git(r.root, progress=seen)
    assert seen.notes == []  # the top folder itself: nothing to say


def test_every_list_takes_limit(tmp_path: Path) -> None:
    """`--limit` (and `-n`) on churn, hotspots, coupling, file, owners and age, as on walk."""

    r = HistoryRepo(tmp_path / "project")
    for i in range(4):
        r.commit(f"Change {i}", {"src/a.py": lines(i + 1, "a"), "src/b.py": lines(i + 2, "b")})
        r.commit(f"Tune {i}", {"src/a.py": lines(i + 1, "a") + "x\n", "src/c.py": lines(i + 1, "c")})
    ingest_git(r.root)
    for command in (["churn"], ["hotspots", "--days", "3650"], ["owners"], ["age"]):
        for flag in ("--limit", "-n"):
            result = runner.invoke(app, ["history", *command, flag, "1", "--json"])
            assert result.exit_code == 0, result.output
            data = json.loads(result.stdout)
            assert len(data["files"] if isinstance(data, dict) else data) == 1
    pairs = ["coupling", "--min-revs", "1", "--min-shared", "1", "--min-degree", "1"]
    assert len(json.loads(runner.invoke(app, ["history", *pairs, "--json"]).stdout)["pairs"]) > 1
    assert (
        len(json.loads(runner.invoke(app, ["history", *pairs, "--limit", "1", "--json"]).stdout)["pairs"])
        == 1
    )
    story = json.loads(runner.invoke(app, ["history", "file", "src/a.py", "-n", "2", "--json"]).stdout)
    assert len(story["entries"]) == 2
