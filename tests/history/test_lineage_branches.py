"""A file's history follows the commit graph: paths added or deleted on parallel branches keep
all their commits, `file` and `churn` agree, and both match what `git log` lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.history import queries as q
from lore.history.ingest.git import ingest_git
from lore.history.repos import Repo, resolve_repo
from support.history_repo import BOB, CAROL, HistoryRepo, git_commits_touching, lines, merge

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _commits_of(repo: Repo, path: str) -> list[str]:
    story = q.file_history(repo, path)
    return [e["sha"] for e in story["entries"] if e["kind"] == "commit"]


def _churn_commits(repo: Repo) -> dict[str, int]:
    return {r["path"]: r["commits"] for r in q.churn(repo, n=1000) if not r["replaced"]}


@pytest.fixture
def branchy(tmp_path: Path) -> HistoryRepo:
    """Two long branches edited in interleaved days; CHANGES.rst added on both; pyproject.toml
    deleted on one branch while the other keeps editing it (the merge keeps it)."""
    r = HistoryRepo(tmp_path / "branchy")
    r.commit("Start", {"README.md": "x\n", "pyproject.toml": lines(5, "cfg"), "src/app.py": lines(5, "app")})
    r.commit("Tune config", {"pyproject.toml": lines(6, "cfg")})
    r.git("checkout", "-q", "-b", "one")
    r.commit("Add changelog on one", {"CHANGES.rst": "one\n"}, BOB)
    r.git("checkout", "-q", "-b", "two", "main")
    r.commit("Add changelog on two", {"CHANGES.rst": "two\n"}, CAROL)
    r.git("rm", "-q", "pyproject.toml")
    r.commit("Drop config on two", {}, CAROL)
    for day in range(3):  # interleaved: each branch keeps working on its own copy
        r.git("checkout", "-q", "one")
        r.commit(f"Changelog one {day}", {"CHANGES.rst": f"one {day}\n"}, BOB)
        r.git("checkout", "-q", "main")
        r.commit(f"Config main {day}", {"pyproject.toml": lines(7 + day, "cfg")})
        r.git("checkout", "-q", "two")
        r.commit(f"Changelog two {day}", {"CHANGES.rst": f"two {day}\n", "src/app.py": lines(6 + day, "app")})
    r.git("checkout", "-q", "main")
    merge(r, "one", "Merge one")
    merge(r, "two", "Merge two", {"CHANGES.rst": "both\n", "pyproject.toml": lines(9, "cfg")})
    r.commit("Changelog after both", {"CHANGES.rst": "both\nlater\n"})
    r.commit("Config after both", {"pyproject.toml": lines(10, "cfg")})
    return r


@pytest.mark.parametrize("path", ["CHANGES.rst", "pyproject.toml", "src/app.py", "README.md"])
def test_a_file_keeps_every_commit_git_log_lists(branchy, path) -> None:
    ingest_git(branchy.root)
    repo = resolve_repo(str(branchy.root))
    mine = _commits_of(repo, path)
    assert sorted(mine) == sorted(git_commits_touching(branchy.root, path))
    assert len(mine) == len(set(mine))


def test_file_and_churn_agree_on_every_path(branchy) -> None:
    ingest_git(branchy.root)
    repo = resolve_repo(str(branchy.root))
    churn = _churn_commits(repo)
    assert set(churn) == {"CHANGES.rst", "pyproject.toml", "src/app.py", "README.md"}
    for path, commits in churn.items():
        assert commits == len(_commits_of(repo, path)), path


def test_hows_say_what_each_commit_did_to_the_file(branchy) -> None:
    ingest_git(branchy.root)
    repo = resolve_repo(str(branchy.root))
    story = q.file_history(repo, "pyproject.toml")
    hows = {e["label"]: e["how"] for e in story["entries"] if e["kind"] == "commit"}
    assert hows["Start"] == "added"
    assert hows["Drop config on two"] == "deleted"
    assert hows["Config after both"] == "modified"
    assert story["fate"] == {"status": "present"}


def test_a_path_renamed_on_a_branch_is_followed_through_the_merge(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "renamed")
    r.commit("Create auth", {"src/auth.py": lines(20, "auth")})
    r.git("checkout", "-q", "-b", "move")
    r.git("mv", "src/auth.py", "src/login.py")
    r.commit("Rename auth to login", {})
    r.commit("Tune login", {"src/login.py": lines(21, "auth")})
    r.git("checkout", "-q", "main")
    r.commit("Unrelated", {"README.md": "x\n"})
    merge(r, "move", "Merge move")
    ingest_git(r.root)
    repo = resolve_repo(str(r.root))
    assert sorted(_commits_of(repo, "src/login.py")) == sorted(
        git_commits_touching(r.root, "src/login.py", "--follow")
    )
    old = q.file_history(repo, "src/auth.py")
    assert old["fate"] == {"status": "renamed", "to": "src/login.py"}
    assert _churn_commits(repo) == {"src/login.py": 3, "README.md": 1}
