"""`history file PATH` tells the story of the file that has PATH now, followed back through its
renames, and never the story of another file that held PATH before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.core.errors import InvalidInput
from lore.history import queries as q
from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from support.history_repo import BOB, HistoryRepo, lines

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


@pytest.fixture
def moved(tmp_path: Path):
    """auth.py renamed to login.py, then to session.py; later a new, unrelated auth.py."""
    r = HistoryRepo(tmp_path / "moves")
    r.commit("Create auth", {"src/auth.py": lines(30, "auth"), "README.md": "x\n"})
    r.commit("Harden auth (#21)", {"src/auth.py": lines(30, "auth") + "hardened\n"})
    r.git("mv", "src/auth.py", "src/login.py")
    r.commit("Rename auth to login", {})
    r.commit("Tune login", {"src/login.py": lines(30, "auth") + "hardened\ntuned\n"}, BOB)
    r.git("mv", "src/login.py", "src/session.py")
    r.commit("Rename login to session (#25)", {})
    r.commit("Tune session", {"src/session.py": lines(30, "auth") + "hardened\ntuned\nagain\n"})
    r.commit("New auth module, unrelated (#30)", {"src/auth.py": lines(5, "token")})
    r.commit("Fix new auth", {"src/auth.py": lines(6, "token")}, BOB)
    r.commit("Docs", {"README.md": "y\n"})
    ingest_git(r.root)
    return resolve_repo(str(r.root))


def _story(repo, path: str) -> tuple[list[str], list[tuple[int, str, str]]]:
    """The paths followed and every entry as (depth, kind, what), in the order returned."""
    data = q.file_history(repo, path)
    entries = [
        (e["depth"], e["kind"], e["label"] if e["kind"] == "commit" else f"#{e['number']}")
        for e in data["entries"]
    ]
    return [p["path"] for p in data["paths"]], entries


def test_a_reused_path_tells_only_the_new_files_story(moved) -> None:
    paths, entries = _story(moved, "src/auth.py")
    assert paths == ["src/auth.py"]
    assert entries == [
        (1, "commit", "Fix new auth"),
        (1, "commit", "New auth module, unrelated (#30)"),
        (2, "pr", "#30"),
    ]


def test_a_renamed_file_tells_its_whole_story_across_paths(moved) -> None:
    paths, entries = _story(moved, "src/session.py")
    assert paths == ["src/session.py", "src/login.py", "src/auth.py"]
    assert entries == [
        (1, "commit", "Tune session"),
        (1, "commit", "Rename login to session (#25)"),
        (1, "commit", "Tune login"),
        (1, "commit", "Rename auth to login"),
        (1, "commit", "Harden auth (#21)"),
        (1, "commit", "Create auth"),
        (2, "pr", "#25"),
        (2, "pr", "#21"),
    ]
    data = q.file_history(moved, "src/session.py")
    stretch = {p["path"]: (p["since"], p["renamed_away_at"]) for p in data["paths"]}
    assert stretch["src/session.py"][1] is None
    assert stretch["src/login.py"] == (stretch["src/auth.py"][1], stretch["src/session.py"][0])
    assert stretch["src/auth.py"][0] is not None  # from its creation, not from the beginning


def test_a_path_nobody_holds_any_more_gives_its_last_file(moved) -> None:
    paths, entries = _story(moved, "src/login.py")
    assert paths == ["src/login.py", "src/auth.py"]
    assert entries == [
        (1, "commit", "Tune login"),
        (1, "commit", "Rename auth to login"),
        (1, "commit", "Harden auth (#21)"),
        (1, "commit", "Create auth"),
        (2, "pr", "#21"),
    ]


def test_churn_folds_each_file_into_its_own_latest_name(moved) -> None:
    churn = {r["path"]: r["commits"] for r in q.churn(moved, n=10)}
    assert churn == {"src/session.py": 6, "src/auth.py": 2, "README.md": 2}


def test_find_files_matches_any_part_of_a_path(moved) -> None:
    repo = moved
    assert [f["path"] for f in q.find_files(repo, "SESS")] == ["src/session.py"]
    found = q.find_files(repo, "src/")
    assert {f["path"] for f in found} == {"src/auth.py", "src/login.py", "src/session.py"}
    edges = [f["edges"] for f in found]
    assert edges == sorted(edges, reverse=True)  # the most connected first
    assert len(q.find_files(repo, "", limit=2)) == 2
    assert q.find_files(repo, "%") == [] and q.find_files(repo, "_") == []  # no LIKE wildcards
    with pytest.raises(InvalidInput, match="limit must be between 1 and 500"):
        q.find_files(repo, "src", limit=0)
