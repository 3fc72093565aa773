"""Histories that are not tidy: bytes that are not UTF-8, rewritten commits, shallow clones,
and removing or rebuilding one repository."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from lore.core.errors import InvalidInput
from lore.history import queries as q
from lore.history import store as sql
from lore.history.ingest.git import ingest_git
from lore.history.ingest.gitlog import raw_path
from lore.history.repos import remove_repo, resolve_repo
from support.history_repo import BOB, DAY, T0, HistoryRepo, lines, run_git

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _commit_bytes(root: Path, name: bytes, message: bytes, path: bytes) -> None:
    """A commit whose author, message and path are Latin-1 bytes (not UTF-8)."""
    (root / os.fsdecode(path)).write_bytes(b"x\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    env = {**os.environb, b"GIT_AUTHOR_NAME": name, b"GIT_AUTHOR_EMAIL": b"jose@example.com"}
    env[b"GIT_CONFIG_NOSYSTEM"] = b"1"
    subprocess.run(
        [b"git", b"commit", b"-q", b"-m", message], cwd=root, check=True, env=env, capture_output=True
    )


def test_bytes_that_are_not_utf8_are_stored_with_escapes_and_marked(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "latin")
    r.commit("Start", {"README.md": "x\n"})
    _commit_bytes(r.root, b"Jos\xe9", b"Caf\xe9 au lait\n\nBody in Latin-1: \xe9t\xe9", b"caf\xe9.txt")
    report = ingest_git(r.root)
    assert report.commits_added == 2 and report.lossy_commits == 1
    repo = resolve_repo(str(r.root))
    story = q.file_history(repo, "caf\\xe9.txt")
    (entry,) = [e for e in story["entries"] if e["kind"] == "commit"]
    # git itself re-encodes a name or message it cannot read as UTF-8 (as Latin-1); a path it
    # leaves as bytes, and those are kept as escapes
    assert entry["label"] == "Café au lait" and entry["author"] == "José"
    assert entry["body"] == "Body in Latin-1: été"
    assert entry["path"] == "caf\\xe9.txt"
    assert q.stats(repo)["lossy_commits"] == 1
    assert raw_path("caf\\xe9.txt").encode("utf-8", "surrogateescape") == b"caf\xe9.txt"


def _git_bytes(root: Path, *args: bytes, day: int = 0) -> bytes:
    env = {**os.environb, b"GIT_CONFIG_NOSYSTEM": b"1"}
    if day:  # one commit a day: the order nearest first is git's, with no ties
        env[b"GIT_AUTHOR_DATE"] = env[b"GIT_COMMITTER_DATE"] = b"@%d +0000" % (T0 + day * DAY)
    return subprocess.run([b"git", *args], cwd=root, check=True, capture_output=True, env=env).stdout


def test_history_commands_take_a_path_that_is_not_utf8(tmp_path: Path, monkeypatch) -> None:
    """A file whose name is Latin-1 bytes, named the way a shell passes it on (the bytes as they
    are, which Python reads as surrogate escapes): `file`, `blame`, `authors`, `pickaxe` and
    `why` answer as git does and show the name with `\\xNN` escapes, never a traceback."""
    from typer.testing import CliRunner

    from lore.cli.app import app

    monkeypatch.setenv("LORE_EMBED", "hash")
    r = HistoryRepo(tmp_path / "latin")
    r.commit("Start", {"README.md": "x\n"})
    name = b"caf\xe9.txt"
    (r.root / os.fsdecode(name)).write_bytes(b"tea\n")
    _git_bytes(r.root, b"add", b"-A")
    _git_bytes(r.root, b"commit", b"-q", b"-m", b"Add the menu", day=10)
    (r.root / os.fsdecode(name)).write_bytes(b"tea\ncoffee\n")
    _git_bytes(r.root, b"commit", b"-q", b"-a", b"-m", b"Coffee too", day=11)
    ingest_git(r.root)
    typed = os.fsdecode(name)  # what sys.argv holds for those bytes
    shown = "caf\\xe9.txt"
    runner = CliRunner()

    def ask(*args: str) -> dict:
        result = runner.invoke(app, ["history", *args, "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    gits = _git_bytes(r.root, b"log", b"--format=%H", b"--", name).decode().split()
    story = ask("file", typed)
    assert [e["sha"] for e in story["entries"] if e["kind"] == "commit"] == gits
    assert [p["path"] for p in story["paths"]] == [shown]
    table = runner.invoke(app, ["history", "file", typed])
    assert table.exit_code == 0 and shown in table.stdout
    line = ask("blame", f"{typed}:2")
    assert (line["path"], line["text"], line["commit"]["subject"]) == (shown, "coffee", "Coffee too")
    assert ask("authors", typed)["authors"][0]["commits"] == 2
    found = ask("pickaxe", "coffee", "--path", typed)
    gits_s = _git_bytes(r.root, b"log", b"-S", b"coffee", b"--format=%H", b"--", name).decode().split()
    assert [c["sha"] for c in found["commits"]] == gits_s
    assert found["commits"][0]["files"] == [shown]
    assert ask("pickaxe", "tea")["commits"][0]["files"] == [shown]  # read from git's own output
    why = ask("why", f"{typed}:2", "--no-model")
    assert why["blamed"] == gits[0]
    missing = runner.invoke(app, ["history", "file", os.fsdecode(b"th\xe9.txt")])
    assert missing.exit_code == 3 and "th\\xe9.txt" in missing.output


def test_amended_and_dropped_commits_are_marked_unreachable_and_left_out(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "rewrite")
    r.commit("Start", {"src/a.py": lines(3, "a")})
    r.commit("Draft", {"src/a.py": lines(4, "a")})
    ingest_git(r.root)
    repo = resolve_repo(str(r.root))
    assert q.stats(repo)["commits"] == 2
    r.git("commit", "-q", "--amend", "-m", "Final wording")
    report = ingest_git(r.root)
    assert report.commits_added == 1 and report.unreachable_commits == 1
    s = q.stats(repo)
    assert s["commits"] == 2 and s["unreachable_commits"] == 1
    labels = [e["label"] for e in q.file_history(repo, "src/a.py")["entries"] if e["kind"] == "commit"]
    assert labels == ["Final wording", "Start"]
    assert [r["commits"] for r in q.churn(repo)] == [2]
    r.git("reset", "-q", "--hard", "HEAD~1")  # drop the commit altogether
    assert ingest_git(r.root).unreachable_commits == 2
    assert q.stats(repo)["commits"] == 1


def test_rewritten_commits_are_not_in_walks_or_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every listing leaves an amended commit out, not only file and stats: a walk from the file
    or from its author, and why (by the commit's words, by the path, through the index)."""
    from lore.history.why.service import gather

    monkeypatch.setenv("LORE_EMBED", "hash")
    r = HistoryRepo(tmp_path / "rewrite")
    r.commit("Start the parser", {"src/a.py": lines(3, "a")})
    draft = r.commit("Draft a zebra tokenizer", {"src/a.py": lines(9, "a")})
    ingest_git(r.root)
    repo = resolve_repo(str(r.root))
    assert draft in {h["key"] for h in q.walk_from(repo, "src/a.py")["results"]}
    assert f"commit:{draft}" in {e.unit for e in gather(repo, "zebra tokenizer").evidence}
    r.git("commit", "-q", "--amend", "-m", "Write the tokenizer")
    assert ingest_git(r.root).unreachable_commits == 1
    for start in ("src/a.py", "Alice", "alice@example.com"):
        keys = {h["key"] for h in q.walk_from(repo, start, depth=3)["results"]}
        assert draft not in keys and r.head() in keys
    assert q.walk_from(repo, draft)["results"] == []  # asked for by sha, it leads nowhere
    for question in ("zebra tokenizer", "src/a.py", "Why is src/a.py a zebra tokenizer?"):
        found = {e.unit for e in gather(repo, question).evidence}
        assert f"commit:{draft}" not in found
    assert f"commit:{r.head()}" in {e.unit for e in gather(repo, "src/a.py").evidence}


def test_remove_and_rebuild_one_repository(history_repo, tmp_path: Path) -> None:
    other = HistoryRepo(tmp_path / "other")
    other.commit("Only", {"x.py": "x\n"})
    ingest_git(history_repo.root)
    ingest_git(other.root)
    repo = resolve_repo(str(history_repo.root))
    before = q.stats(repo)
    rebuilt = ingest_git(history_repo.root, rebuild=True)
    assert rebuilt.mode == "rebuild" and rebuilt.commits_added == before["commits"]
    assert q.stats(repo)["edges"] == before["edges"]
    remove_repo(repo)
    db = sql.open_history()
    assert [r.name for r in db.list_repos()] == ["other"]
    left = db.store.connect().execute("SELECT COUNT(*) FROM history_nodes WHERE repo_id = ?", (repo.id,))
    assert left.fetchone()[0] == 0
    assert q.stats(resolve_repo("other"))["commits"] == 1


def test_a_shallow_clone_says_so_and_fills_in_once_deepened(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "full")
    r.commit("One", {"src/a.py": lines(10, "a"), "src/b.py": lines(10, "b")})
    r.commit("Two", {"src/a.py": lines(11, "a")})
    r.commit("Three", {"src/b.py": lines(12, "b")}, BOB)
    r.commit("Four", {"src/a.py": lines(13, "a")})
    clone = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "2", f"file://{r.root}", str(clone))
    report = ingest_git(clone)
    assert report.shallow and report.boundary_commits == 1 and report.commits_added == 2
    repo = resolve_repo(str(clone))
    s = q.stats(repo)
    assert s["shallow"] and s["boundary_commits"] == 1
    churn = {row["path"]: row for row in q.churn(repo)}
    assert set(churn) == {"src/a.py"}  # the boundary commit added nothing
    assert churn["src/a.py"]["added"] == 2
    run_git(clone, "fetch", "-q", "--unshallow")
    deeper = ingest_git(clone)
    assert not deeper.shallow and deeper.commits_added == 3
    s = q.stats(repo)
    assert s["commits"] == 4 and not s["shallow"] and s["boundary_commits"] == 0
    churn = {row["path"]: row["commits"] for row in q.churn(repo)}
    assert churn == {"src/a.py": 3, "src/b.py": 2}


def test_a_bare_repository_is_refused_with_the_reason(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    with pytest.raises(InvalidInput, match="bare repository"):
        ingest_git(bare)
