"""Setting the position by quoted words tells nothing about the text past it: no count, no
place, no chapter beyond the one place it moves to, through the CLI, MCP and the web form.

A Study in Scarlet (the shared copy) names Lucy Ferrier in many places, all in its second part;
a reader at chapter 3 quoting her name must learn nothing of how often or where she recurs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from lore.books import library
from lore.cli.app import app
from lore.mcp.server import build_server
from lore.web.guard import TOKEN_HEADER
from support.mcp_client import call
from support.ui_server import running_ui

NAME = "Lucy Ferrier"
START = 3

runner = CliRunner()


@pytest.fixture
def scarlet(shared_data: Path) -> library.Book:
    return library.add_book(shared_data / "books" / "a-study-in-scarlet.epub")


def _places(book: library.Book, words: str) -> list[int]:
    """Chapters holding the words, once per occurrence, read from the stored text directly."""
    texts = library.open_books().chapter_texts(book.id)
    pattern = re.compile(r"\s+".join(map(re.escape, words.split())), re.I)
    return [seq for seq, text in enumerate(texts, start=1) for _ in pattern.finditer(text)]


def _assert_tells_nothing_past(reply: str, cap: int, book: library.Book, places: list[int]) -> None:
    """Every chapter the reply names is one the reader has reached; no other number remains
    once those (and the book's own chapter count) are taken out, so no count is given."""
    for chapter in re.findall(r"chapter (\d+)", reply):
        assert int(chapter) <= cap, reply
    rest = re.sub(rf"chapter \d+(?: of {book.chapters})?(?:, passage \d+)?", "", reply)
    rest = re.sub(r"#\d+|about \d+% of the book", "", rest)
    assert not re.search(r"\d", rest), reply
    ahead = sum(1 for p in places if p > cap)
    assert f"{len(places)} places" not in reply and f"{ahead} places" not in reply


def _cli(book: library.Book, words: str) -> tuple[str, int]:
    out = runner.invoke(app, ["books", "progress", str(book.id), "--at", words])
    return out.output, out.exit_code


def _mcp(book: library.Book, words: str, root: Path) -> tuple[str, int]:
    text, error = call(build_server(root), "books_progress", {"book": str(book.id), "at": words})
    return text, int(error)


def _check(book: library.Book, ask: Callable[[str], tuple[str, int]]) -> None:
    """From chapter 3: the name moves the reader to its first place; asked again there, it is
    refused saying only that it is further on too."""
    places = _places(book, NAME)
    first = min(places)
    assert first > START and len(set(places)) > 1  # the case the test is about
    library.set_progress(book.id, START)
    reply, failed = ask(NAME)
    assert not failed, reply
    moved = library.get_book(book.id).position
    assert moved.chapter == first  # the earliest place reading on can have reached
    _assert_tells_nothing_past(reply, first, book, places)

    reply, failed = ask(NAME)
    assert failed and "further on" in reply, reply
    assert library.get_book(book.id).position == moved  # nothing recorded
    _assert_tells_nothing_past(reply, first, book, places)


def test_the_cli_says_nothing_past_the_position(scarlet: library.Book) -> None:
    _check(scarlet, lambda words: _cli(scarlet, words))


def test_mcp_says_nothing_past_the_position(scarlet: library.Book, tmp_path: Path) -> None:
    _check(scarlet, lambda words: _mcp(scarlet, words, tmp_path))


def test_the_web_form_says_nothing_past_the_position(scarlet: library.Book) -> None:
    with (
        running_ui() as (port, token),
        httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={TOKEN_HEADER: token}, timeout=30, trust_env=False
        ) as client,
    ):

        def ask(words: str) -> tuple[str, int]:
            reply = client.post(f"/api/books/{scarlet.id}/position", json={"at": words})
            body = reply.json()
            text = body["error"] if "error" in body else body["position"]["label"]
            return text, int(reply.status_code != 200)

        _check(scarlet, ask)


def test_words_read_and_words_ahead_from_the_finished_book(scarlet: library.Book) -> None:
    """At the end everything is read: several places are named (they spoil nothing), and the
    CLI's JSON of a move carries only the position."""
    library.set_progress(scarlet.id, "end")
    reply, code = _cli(scarlet, NAME)
    assert code == 2 and "places you have read" in reply and "further on" not in reply
    library.set_progress(scarlet.id, START)
    out = runner.invoke(app, ["books", "progress", str(scarlet.id), "--at", NAME, "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["chapter"] == min(_places(scarlet, NAME))
