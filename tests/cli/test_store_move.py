"""`lore store migrate --to URL` and `lore store check` with the real command (issue 15.4).

An embedded store with projects, rules, sessions and what they were served, an ingested git
history with a decision and its why index (texts and vectors) is moved into a fresh PostgreSQL
database; every CLI listing then reads the same on both, a second run copies
nothing, a run cut short is completed without doubling a row, and new ids continue after the
copied ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git, make_repo
from lore.core.store.base import DB_NAME
from lore.core.store.move import move
from lore.core.store.open import forget_stores, open_database, open_store
from lore.history.decisions.store import NewDecision, open_decisions
from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from lore.history.why.index import update_index
from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.store.rules import rules_store
from support.mystery import mystery_epub_fixture as mystery_epub_fixture


def lore(*args: str, url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("LORE_DATABASE_URL", None)
    if url:
        env["LORE_DATABASE_URL"] = url
    return subprocess.run(
        [sys.executable, "-m", "lore.cli.entry", *args], capture_output=True, text=True, env=env, timeout=180
    )


@pytest.fixture
def target(postgres_server) -> str:
    url = postgres_server.fresh_database()
    yield url
    forget_stores()
    postgres_server.drop(url)


@pytest.fixture
def filled(tmp_path: Path) -> list[Path]:
    """Two projects with rules of every kind, a session that was served some, and a trust override."""
    repos = []
    for name in ("shop", "blog"):
        repo = make_repo(tmp_path / name, {"src/api/orders.py": "x = 1\n", "README.md": "hi\n"})
        project, _ = service.register_project(repo)
        for i in range(30):
            service.add_rule(project, f"{name} rule {i}: keep handler {i} small", title=f"{name}{i}")
        service.add_rule(project, f"{name} waits for review", status="pending")
        repos.append(repo)
    session = AgentSession(str(repos[0]))
    session.get_rules(["src/api/orders.py"], task="add pagination")
    rules_store().set_trust_override(str(repos[1]), "untrust")
    _history(repos[0])
    forget_stores()
    return repos


def _history(repo: Path) -> None:
    """The shop's git history ingested, one decision taken from a commit, the why index built."""
    for i, why in enumerate(("paginate orders so the page stays fast", "cap the page size at 100")):
        (repo / "src/api/orders.py").write_text(f"x = {i + 2}\n", encoding="utf-8")
        git(repo, "commit", "-qam", f"Orders: {why}")
    ingest_git(repo)
    row = resolve_repo(str(repo))
    commit = git(repo, "rev-parse", "HEAD").strip()
    quote = "cap the page size at 100"
    open_decisions().add_decisions(
        [
            NewDecision(
                row.id,
                "Order pages hold at most 100 rows",
                "",
                "api",
                ("src/api/orders.py",),
                "commit",
                None,
                None,
                None,
                None,
                commit,
                None,
                "Test User",
                "committer",
                quote,
                8,
                8 + len(quote),
                1_700_000_000.0,
                "test",
                0.9,
            )
        ]
    )
    update_index(row)


LISTINGS = (
    ("projects", "--json"),
    ("review", "--name", "shop", "list", "--json"),
    ("review", "--name", "blog", "list", "--json", "--pending"),
    ("review", "--name", "shop", "usage", "--json"),
    ("history", "repos", "--json"),
    ("history", "stats", "--repo", "shop", "--json"),
    ("history", "file", "src/api/orders.py", "--repo", "shop", "--json"),
    ("history", "decisions", "--repo", "shop", "--json"),
    ("history", "why", "why is the page size capped", "--repo", "shop", "--no-model", "--json"),
)


def test_a_moved_store_lists_the_same_and_a_second_run_copies_nothing(
    filled: list[Path], target: str
) -> None:
    before = {args: lore(*args) for args in LISTINGS}
    assert all(r.returncode == 0 for r in before.values()), [r.stderr for r in before.values()]
    decided = json.loads(before[("history", "decisions", "--repo", "shop", "--json")].stdout)
    asked = json.loads(before[LISTINGS[-1]].stdout)
    assert len(decided) == 1 and asked["evidence"], "the history listings must have something to compare"

    first = lore("store", "migrate", "--to", target, "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    moved = {t["name"]: t for t in report["tables"]}
    assert moved["rules"]["source_rows"] == moved["rules"]["copied"] == 62
    assert moved["projects"]["copied"] == 2 and moved["served"]["copied"] > 0
    assert report["left"] == ["trust", "book_positions"]  # each user's own, in their own file
    assert report["rebuilt"] == ["book_passages_fts"]  # a tsvector column there
    assert "password" not in first.stdout

    for args, was in before.items():
        now = lore(*args, url=target)
        assert now.returncode == 0, now.stderr
        assert json.loads(now.stdout) == json.loads(was.stdout), args

    again = json.loads(lore("store", "migrate", "--to", target, "--json").stdout)
    assert all(t["skipped"] and t["copied"] == 0 for t in again["tables"])

    check = json.loads(lore("store", "check", "--json", url=target).stdout)
    assert (
        check["backend"] == "postgres"
        and check["schema"]["rules"] == "rules/0100_session_projects_activations"
    )
    counts = {t["name"]: t["rows"] for t in check["tables"]}
    local = json.loads(lore("store", "check", "--json").stdout)
    assert local["backend"] == "sqlite"
    history = ("history_commits", "history_edges", "history_decisions", "history_why_docs", "core_vectors")
    for table in ("projects", "rules", "served", "session_notes", "sessions", "rule_tombstones", *history):
        assert counts[table] == {t["name"]: t["rows"] for t in local["tables"]}[table], table


def test_a_move_cut_short_is_completed_without_doubling_and_ids_continue(
    filled: list[Path], target: str, lore_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.cli.store import domain_migrations

    source = open_store(lore_home / DB_NAME)
    lists = list(domain_migrations().values())
    for steps in lists:
        source.migrate(steps)

    def cut(table: str, done: int, total: int) -> None:
        if table == "rule_tombstones":
            raise KeyboardInterrupt  # as if the process were stopped here

    # a tombstone first, so the table without a key has a row to copy
    rules_store().delete_rule(service.list_rules(service.find_project("shop"))[0].id)
    with pytest.raises(KeyboardInterrupt):
        move(source, open_database(target), lists, cut)
    forget_stores()
    result = lore("store", "migrate", "--to", target, "--json")
    assert result.returncode == 0, result.stderr
    tables = {t["name"]: t for t in json.loads(result.stdout)["tables"]}
    assert tables["projects"]["skipped"] and tables["rules"]["skipped"]
    assert tables["rule_tombstones"]["copied"] == tables["rule_tombstones"]["source_rows"] == 1

    monkeypatch.setenv("LORE_DATABASE_URL", target)
    forget_stores()
    assert len(service.list_rules(service.find_project("shop"))) == 30
    project, _ = service.register_project(make_repo(tmp_path / "third", {"a.py": "x"}))
    assert project.id == 3  # identities continue after the copied rows


def test_migrate_to_something_that_is_not_postgresql_is_exit_2(filled: list[Path]) -> None:
    result = lore("store", "migrate", "--to", "sqlite:///tmp/x.db")
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error:") and "postgresql://" in result.stderr


BOOK_LISTINGS = (
    ("books", "list", "--json"),
    ("books", "search", "1", "Who poisoned the colonel?", "--json"),  # capped at chapter 3
    ("books", "search", "1", "a letter from the lodge", "-k", "8", "--json"),
    ("books", "characters", "1", "--json"),
)


def test_a_moved_library_lists_and_searches_the_same(mystery_epub: Path, target: str) -> None:
    """Books, passages and their vectors move, the reader's position stays in their own file:
    the listing, capped searches (words and vectors under that position) and the characters
    read the same from the database."""
    from lore.books import library

    book = library.add_book(mystery_epub)
    library.set_progress(book.id, 3, passage=2)
    forget_stores()
    before = {args: lore(*args) for args in BOOK_LISTINGS}
    assert all(r.returncode == 0 for r in before.values()), [r.stderr for r in before.values()]
    assert json.loads(before[BOOK_LISTINGS[2]].stdout)["hits"], "the capped search found nothing to compare"

    report = json.loads(lore("store", "migrate", "--to", target, "--json").stdout)
    moved = {t["name"]: t for t in report["tables"]}
    assert moved["book_passages"]["copied"] == moved["book_passages"]["source_rows"] > 0
    assert moved["core_vectors"]["copied"] == moved["book_passages"]["source_rows"]  # one vector per passage
    assert "book_positions" in report["left"]  # each reader's position stays in their own file

    for args, was in before.items():
        now = lore(*args, url=target)
        assert now.returncode == 0, now.stderr
        assert "does not run on PostgreSQL" not in now.stderr  # the library is read from the database
        assert json.loads(now.stdout) == json.loads(was.stdout), args
