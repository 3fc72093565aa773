"""The why made visible: commit bodies, what each commit did to the file and its own line
counts, `show`, line-level history (`blame FILE:LINE`) and pickaxe search, and the filters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history import lines as line_queries
from lore.history import queries as q
from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from support.history_repo import BOB, DEPENDABOT, HistoryRepo, lines, run_git

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

runner = CliRunner()


def _json(args: list[str]) -> object:
    result = runner.invoke(app, ["history", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def told(tmp_path: Path) -> HistoryRepo:
    r = HistoryRepo(tmp_path / "told")
    r.commit("Add token check", {"src/auth.py": lines(4, "auth"), "src/other.py": lines(50, "o")})
    r.git("commit", "-q", "--allow-empty", "-m", "Empty")
    r.commit(
        "Use constant-time compare (#12)\n\nTiming attacks could read the token one byte at a time.",
        {"src/auth.py": lines(4, "auth") + "hmac.compare_digest(a, b)\n"},
        BOB,
    )
    r.commit(
        "Bump deps", {"src/auth.py": lines(4, "auth") + "hmac.compare_digest(a, b)\n# pin\n"}, DEPENDABOT
    )
    r.commit("Drop the compare", {"src/auth.py": lines(4, "auth") + "# pin\n"})
    ingest_git(r.root)
    return r


def test_file_shows_bodies_hows_and_the_files_own_lines(told) -> None:
    repo = resolve_repo(str(told.root))
    story = q.file_history(repo, "src/auth.py")
    commits = {e["label"]: e for e in story["entries"] if e["kind"] == "commit"}
    first = commits["Add token check"]
    assert first["how"] == "added" and (first["added"], first["removed"]) == (4, 0)
    assert (first["commit_added"], first["commit_removed"]) == (54, 0)  # the commit's totals differ
    fix = commits["Use constant-time compare (#12)"]
    assert fix["body"] == "Timing attacks could read the token one byte at a time."
    assert fix["how"] == "modified" and fix["added"] == 1
    no_bots = q.file_history(repo, "src/auth.py", filters=q.Filters(no_bots=True))
    assert "Bump deps" not in [e["label"] for e in no_bots["entries"]]
    by_bob = q.file_history(repo, "src/auth.py", filters=q.Filters(author="bob"))
    assert [e["label"] for e in by_bob["entries"] if e["kind"] == "commit"] == [
        "Use constant-time compare (#12)"
    ]
    shown = runner.invoke(app, ["history", "file", "src/auth.py"])
    assert shown.exit_code == 0 and "Timing attacks" in shown.stdout


def test_show_prints_the_whole_commit(told) -> None:
    repo = resolve_repo(str(told.root))
    sha = run_git(told.root, "log", "--format=%H", "--grep", "constant-time").strip()
    data = _json(["show", sha[:10]])
    assert data["sha"] == sha and data["pr"] == 12
    assert data["body"].startswith("Timing attacks")
    assert data["files"] == [
        {"path": "src/auth.py", "how": "modified", "old_path": None, "added": 1, "removed": 0}
    ]
    assert data["when"] == q.show_commit(repo, sha)["when"]


def test_blame_a_line_to_its_commit_and_pr(told) -> None:
    repo = resolve_repo(str(told.root))
    story = line_queries.line_history(repo, "src/auth.py", 5)
    assert story["text"] == "# pin"
    assert story["commit"]["subject"] == "Bump deps"
    told.commit(
        "Restore the compare (#13)", {"src/auth.py": lines(4, "auth") + "hmac.compare_digest(a, b)\n"}
    )
    ingest_git(told.root)
    data = _json(["blame", "src/auth.py:5"])
    assert data["commit"]["subject"] == "Restore the compare (#13)" and data["commit"]["pr"] == 13
    assert data["original_line"] == 5
    missing = runner.invoke(app, ["history", "blame", "src/auth.py:99"])
    assert missing.exit_code == 3
    assert runner.invoke(app, ["history", "blame", "src/auth.py"]).exit_code == 2


def test_pickaxe_finds_when_a_string_appeared_and_vanished(told) -> None:
    data = _json(["pickaxe", "compare_digest"])
    assert [(c["subject"], c["change"]) for c in data["commits"]] == [
        ("Use constant-time compare (#12)", "appeared"),
        ("Drop the compare", "vanished"),
    ]
    assert data["commits"][0]["files"] == ["src/auth.py"]


def test_pickaxe_lists_what_git_log_s_lists(tmp_path: Path) -> None:
    """A commit counts when the number of occurrences changes in a file it touched, renames
    followed as `git log` follows them: a pure rename is not listed, a rename that adds one is,
    a move between two files is listed as moved. The commits are exactly `git log -S`'s."""
    r = HistoryRepo(tmp_path / "moves")
    r.commit("Add the check", {"src/a.py": lines(6, "a") + "verify_token(t)\n"})
    r.git("mv", "src/a.py", "src/auth.py")
    r.commit("Rename only", {})
    r.git("mv", "src/auth.py", "src/login.py")
    r.commit("Rename and call it twice", {"src/login.py": lines(6, "a") + "verify_token(t)\n" * 2})
    r.commit("Unrelated", {"README.md": "verify nothing\n"})
    r.commit(
        "Move the call",
        {"src/login.py": lines(6, "a") + "verify_token(t)\n", "src/other.py": "verify_token(u)\n"},
    )
    r.git("rm", "-q", "src/other.py")
    r.commit("Drop the other", {})
    ingest_git(r.root)
    for path in (None, "src/login.py"):
        scope = ["--", path] if path else []
        expected = run_git(r.root, "log", "--reverse", "-S", "verify_token", "--format=%H", *scope).split()
        data = _json(["pickaxe", "verify_token", *(["--path", path] if path else [])])
        assert [c["sha"] for c in data["commits"]] == expected and data["total"] == len(expected)
    rows = {c["subject"]: (c["change"], c["files"]) for c in _json(["pickaxe", "verify_token"])["commits"]}
    assert rows == {
        "Add the check": ("appeared", ["src/a.py"]),
        "Rename and call it twice": ("appeared", ["src/login.py"]),
        "Move the call": ("moved", ["src/login.py", "src/other.py"]),
        "Drop the other": ("vanished", ["src/other.py"]),
    }


def test_coupling_of_one_file_and_filters(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    one = q.coupling(repo, min_revs=1, min_shared=1, min_degree=1, file="src/core.py", n=100)
    assert one["pairs"] and all(p["entity"] == "src/core.py" for p in one["pairs"])
    everything = q.coupling(repo, min_revs=1, min_shared=1, min_degree=1, n=1000)
    expected = {
        (p["entity"], p["coupled"])
        for p in everything["pairs"]
        if "src/core.py" in (p["entity"], p["coupled"])
    }
    assert {tuple(sorted((p["entity"], p["coupled"]))) for p in one["pairs"]} == {
        tuple(sorted(pair)) for pair in expected
    }
    only_src = q.churn(repo, n=100, filters=q.Filters(paths=("src/**",)))
    assert only_src and all(r["path"].startswith("src/") for r in only_src)
    bots = {r["path"] for r in q.churn(repo, n=100)} - {
        r["path"] for r in q.churn(repo, n=100, filters=q.Filters(no_bots=True))
    }
    assert bots == {"requirements.txt"}  # only dependabot touched it


def test_ages_count_back_from_the_last_commit_everywhere(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    hot = q.hotspots(repo, days=3, n=100)
    churned = q.churn(repo, since="3d", n=100)
    assert {f["path"] for f in hot["files"]} == {r["path"] for r in churned}
    assert churned  # the repository's dates are years old: a wall-clock window would be empty


def test_remove_command(history_repo) -> None:
    root = str(history_repo.root)
    _json(["ingest", root])
    assert _json(["remove", root]) == {"removed": "project"}
    assert runner.invoke(app, ["history", "stats"]).exit_code == 3


def test_walks_reach_a_hub_commits_pr_and_author_and_skip_parents_from_a_file(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    found = q.walk_from(repo, "src/core.py", depth=2, max_degree=20, limit=None)["results"]
    assert not any(r["kind"] == "commit" and r["depth"] == 2 for r in found)  # no PARENT hop
    hub = next(r for r in found if r["label"] == "Add core module")
    assert hub["hub"]
    author = q.walk_from(repo, "src/core.py", depth=2, max_degree=20, limit=None, kinds=["person"])
    assert hub["author"] in {r["label"] for r in author["results"]}  # reached through the hub
    depths = [r["depth"] for r in found]
    assert depths == sorted(depths)
    for d in set(depths):  # within a distance, stronger ties first
        weights = [r["weight"] for r in found if r["depth"] == d]
        assert weights == sorted(weights, reverse=True)
    by_size = q.walk_from(repo, "src/core.py", depth=1, order="size", kinds=["commit"])["results"]
    sizes = [r["size"] for r in by_size]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
