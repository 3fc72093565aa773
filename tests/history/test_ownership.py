"""Owners, authors and code age on a real repository whose `.mailmap` joins two identities."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history import ownership
from lore.history.ingest.git import ingest_git
from lore.history.queries import Filters
from lore.history.repos import resolve_repo
from support.history_repo import BOB, CAROL, DEPENDABOT, HistoryRepo, lines, run_git

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

OLD_ADA = ("Ada L", "ada@old.example")
ADA = ("Ada Lovelace", "ada@new.example")
MAILMAP = "Ada Lovelace <ada@new.example> Ada L <ada@old.example>\n"

runner = CliRunner()


@pytest.fixture
def team(tmp_path: Path) -> HistoryRepo:
    r = HistoryRepo(tmp_path / "team")
    r.commit("Add the parser", {"src/parser.py": lines(10, "p"), ".mailmap": MAILMAP}, OLD_ADA)  # day 1
    r.commit("Parse comments", {"src/parser.py": lines(15, "p")}, ADA)  # day 2
    r.commit(
        "Add util, fix a parser edge", {"src/parser.py": lines(18, "p"), "src/util.py": lines(20, "u")}, BOB
    )
    r.commit("Bump requests", {"requirements.txt": "requests==2\n"}, DEPENDABOT)  # day 4
    r.git("mv", "src/util.py", "src/helpers.py")
    r.commit("Move util to helpers", {}, CAROL)  # day 5
    r.commit("Tidy helpers", {"src/helpers.py": lines(20, "u") + "tidy\n"}, CAROL)  # day 6
    r.day = 6 + 90  # three months later, the last commit of the history
    r.commit("Docs", {"README.md": "# team\n"}, ADA)
    return r


def _json(args: list[str]) -> object:
    result = runner.invoke(app, ["history", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_mailmap_joins_two_identities_of_one_author(team: HistoryRepo) -> None:
    report = ingest_git(team.root)
    assert report.mailmap and not report.mailmap_changed
    repo = resolve_repo(str(team.root))
    found = ownership.authors(repo, "src/parser.py")
    rows = [(a["name"], a["email"], a["commits"], a["added"]) for a in found["authors"]]
    assert rows == [("Ada Lovelace", "ada@new.example", 2, 15), ("Bob", BOB[1], 1, 3)]
    assert found["commits"] == 3 and found["authors"][0]["share"] == pytest.approx(0.667, abs=0.001)
    ada = found["authors"][0]
    assert ada["first"].startswith("2023-11-15") and ada["last"].startswith("2023-11-16")


def test_owners_by_lines_and_by_commits_with_filters(team: HistoryRepo) -> None:
    ingest_git(team.root)
    repo = resolve_repo(str(team.root))
    by_path = {r["path"]: r for r in ownership.owners(repo)}
    assert set(by_path) == {"src/parser.py", "src/helpers.py", "requirements.txt", "README.md", ".mailmap"}
    parser = by_path["src/parser.py"]
    assert (parser["main_dev"], parser["added"], parser["total_added"]) == ("Ada Lovelace", 15, 18)
    assert parser["ownership"] == pytest.approx(15 / 18, abs=0.001) and parser["authors"] == 2
    helpers = by_path["src/helpers.py"]  # across the rename: Bob wrote it, Carol touched it most
    assert (helpers["main_dev"], helpers["main_dev_by_commits"]) == ("Bob", "Carol")
    assert (helpers["commits"], helpers["total_commits"]) == (2, 3)
    assert [r["path"] for r in ownership.owners(repo, paths=["src/*.py"])] == [
        "src/helpers.py",
        "src/parser.py",
    ]
    assert [r["path"] for r in ownership.owners(repo, paths=["src"])] == ["src/helpers.py", "src/parser.py"]
    no_bots = ownership.window(repo, None, None, Filters(no_bots=True))
    assert "requirements.txt" not in {r["path"] for r in ownership.owners(repo, win=no_bots)}
    bob_only = ownership.window(repo, None, None, Filters(author="bob"))
    assert {r["main_dev"] for r in ownership.owners(repo, win=bob_only)} == {"Bob"}
    recent = ownership.window(repo, "2023-11-18", None, None)  # day 4 on
    assert {r["path"] for r in ownership.owners(repo, win=recent)} == {
        "requirements.txt",
        "src/helpers.py",
        "README.md",
    }


def test_age_counts_back_from_the_last_commit(team: HistoryRepo) -> None:
    ingest_git(team.root)
    repo = resolve_repo(str(team.root))
    data = ownership.age(repo)
    months = {r["path"]: r["age_months"] for r in data["files"]}
    assert months["README.md"] == 0.0
    assert months["src/helpers.py"] == pytest.approx(91 / 30.4375, abs=0.05)  # day 6, of 97
    assert months["src/parser.py"] == pytest.approx(94 / 30.4375, abs=0.05)  # day 3
    assert data["files"][0]["path"] == "README.md"  # youngest first
    then = ownership.age(repo, paths=["src/**"], win=ownership.window(repo, None, "2023-11-21", None))
    assert {r["path"]: r["age_months"] for r in then["files"]} == {
        "src/helpers.py": 0.0,
        "src/parser.py": 0.1,
    }


def test_cli_owners_authors_age_and_a_bad_path(team: HistoryRepo) -> None:
    root = str(team.root)
    _json(["ingest", root])
    owners = _json(["owners", "src/**/*.py", "--no-bots"])
    assert [r["path"] for r in owners] == ["src/helpers.py", "src/parser.py"]
    authors = _json(["authors", "src/parser.py", "--author", "ada"])
    assert [a["name"] for a in authors["authors"]] == ["Ada Lovelace"]
    aged = _json(["age", "-n", "1"])
    assert aged["files"][0]["path"] == "README.md"
    for args in (["owners"], ["authors", "src/parser.py"], ["age", "src"]):
        table = runner.invoke(app, ["history", *args])
        assert table.exit_code == 0 and "parser" in table.stdout
    result = runner.invoke(app, ["history", "authors", "nope.py"])
    assert result.exit_code == 3 and len(result.output.strip().splitlines()) == 1
    result = runner.invoke(app, ["history", "age", "--until", "someday"])
    assert result.exit_code == 2 and "not a date" in result.output


def test_a_changed_mailmap_is_reported_and_a_rebuild_applies_it(team: HistoryRepo) -> None:
    ingest_git(team.root)
    repo = resolve_repo(str(team.root))
    team.commit("Join Bob", {".mailmap": MAILMAP + f"Robert <{BOB[1]}> Bob <{BOB[1]}>\n"}, ADA)
    again = ingest_git(team.root)
    assert again.mailmap_changed  # the commits read before still say Bob
    assert "Bob" in {a["name"] for a in ownership.authors(repo, "src/parser.py")["authors"]}
    rebuilt = ingest_git(team.root, rebuild=True)
    assert not rebuilt.mailmap_changed
    assert {a["name"] for a in ownership.authors(repo, "src/parser.py")["authors"]} == {
        "Ada Lovelace",
        "Robert",
    }


def test_only_the_work_trees_mailmap_is_read(team: HistoryRepo, tmp_path: Path) -> None:
    """`mailmap.file` in the repository's config could point git anywhere: it is not followed."""
    elsewhere = tmp_path / "elsewhere.mailmap"
    elsewhere.write_text(f"Mallory <m@evil.example> <{BOB[1]}>\n", encoding="utf-8")
    run_git(team.root, "config", "mailmap.file", str(elsewhere))
    ingest_git(team.root)
    repo = resolve_repo(str(team.root))
    names = {a["name"] for a in ownership.authors(repo, "src/parser.py")["authors"]}
    assert names == {"Ada Lovelace", "Bob"}
