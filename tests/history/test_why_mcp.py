"""The history tools of `lore mcp` through the real MCP client, in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.history.ingest.git import ingest_git
from lore.mcp.server import build_server
from support.history_why import INJECTION, WhyRepo, build_why_repo
from support.mcp_client import call, listing

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


@pytest.fixture
def why_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WhyRepo:
    monkeypatch.setenv("LORE_EMBED", "hash")
    built = build_why_repo(tmp_path / "app")
    ingest_git(built.root)
    return built


def test_history_tools_are_listed(why_repo: WhyRepo) -> None:
    names, _ = listing(build_server(why_repo.root))
    assert {"history_why", "history_file"} <= set(names)


def test_history_why_answers_with_quotes_from_the_folders_repository(why_repo: WhyRepo) -> None:
    text, error = call(
        build_server(why_repo.root / "src"),
        "history_why",
        {"question": "why does auth.py use the OAuth2 authorization code flow?"},
    )
    assert not error, text
    lines = text.splitlines()
    assert lines[0].startswith("Why ") and "app" in lines[0]
    assert why_repo.shas["oauth"][:10] in lines[1]  # the first evidence item
    assert "Implement OAuth2 authorization code flow (#2)" in lines[1]  # the subject is the title
    assert lines[2] == (  # the quote is the reason the body gives
        '   reason: "We use the authorization code flow with PKCE because the implicit flow leaks access'
        ' tokens into browser history."'
    )


def test_history_why_as_of_and_errors(why_repo: WhyRepo) -> None:
    server = build_server(why_repo.root)
    text, error = call(server, "history_why", {"question": "token refresh", "as_of": "2023-11-17"})
    assert not error and why_repo.shas["hostile"][:10] not in text and "as of 2023-11-17" in text
    text, error = call(server, "history_why", {"question": "x", "as_of": "someday"})
    assert error and "not a date" in text and len(text.splitlines()) == 1


def test_history_why_passes_hostile_text_as_quoted_data(why_repo: WhyRepo) -> None:
    text, error = call(
        build_server(why_repo.root), "history_why", {"question": "why was token refresh refactored"}
    )
    assert not error
    entry = next(b for b in text.split("\n") if why_repo.shas["hostile"][:10] in b)
    assert entry.endswith("Refactor token refresh")  # listed as evidence, its text only ever quoted
    assert all(line.startswith(("Why", "   ", *"0123456789")) for line in text.splitlines())
    assert INJECTION not in text or f'reason: "{INJECTION}"' in text


def test_history_file_lists_the_story_of_a_file(why_repo: WhyRepo) -> None:
    text, error = call(build_server(why_repo.root), "history_file", {"path": "auth.py"})
    assert not error, text
    assert text.startswith("src/auth.py (commit 16")
    assert f"commit {why_repo.shas['oauth'][:10]}" in text
    text, error = call(build_server(why_repo.root), "history_file", {"path": "missing.py"})
    assert error and "no file" in text
