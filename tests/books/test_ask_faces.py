"""The other faces of `books ask`: the MCP tool and the book part of `lore demo`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.books import library
from lore.cli.app import app
from lore.mcp.server import build_server
from support.mcp_client import call


def test_mcp_books_ask_answers_within_the_position(mystery: library.Book) -> None:
    server = build_server()
    library.set_progress(mystery.id, 2)
    text, error = call(
        server, "books_ask", {"question": "Who poisoned the old colonel?", "book": str(mystery.id)}
    )
    assert not error and text == "You haven't reached the part of the book that answers this yet."
    library.set_progress(mystery.id, "end")
    text, error = call(
        server, "books_ask", {"question": "Who poisoned the old colonel?", "book": str(mystery.id)}
    )
    assert not error and "It was Clara Vane who had poisoned" in text and "[ch. 5]" in text
    text, error = call(server, "books_ask", {"question": "Who?", "book": "no such book"})
    assert error and "no book matches" in text


def test_demo_answers_a_cited_question_from_the_shipped_story(
    lore_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = CliRunner().invoke(app, ["demo"])
    assert result.exit_code == 0, result.stderr
    assert "Demo project" in result.stdout  # the rules demo is still there
    assert "A Scandal in Bohemia" in result.stdout and "Irene Adler" in result.stdout
    assert "[ch. 1]" in result.stdout or "[ch. 2]" in result.stdout
    assert "[ch. 3]" not in result.stdout  # read up to part 2
    again = CliRunner().invoke(app, ["demo"])
    assert again.exit_code == 0
    assert library.list_books() == []  # not in your library: in the demo's own
    monkeypatch.setenv("LORE_HOME", str(lore_home / "demo"))
    books = library.list_books()  # once, however often the demo ran
    assert [b.title for b in books] == ["A Scandal in Bohemia"] and books[0].chapters == 3
