"""The differential no-leak test: what a reader sees at a cap is what a library without the rest
of the book would show.

For several books and random (chapter, passage) caps, every listing and score is computed twice
under the same cap: over the full store, and over a copy of it from which every passage,
full-text row, mention, name link and model row past the cap has been deleted. Any difference
means something past the cap shaped the answer (a count, a kind, an id, a name, a score). The
one designed exception is search's verdict, which says (without where) that an answer lies
ahead; its hits and scores are compared.
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lore.books import entities, library, search
from lore.core.store.base import Store
from lore.core.store.open import forget_stores, open_database
from lore.core.store.sqlite import SqliteStore

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

PAST = "(chapter_seq > ? OR (chapter_seq = ? AND passage_seq > ?))"
QUESTIONS = ["Who is the murderer?", "a letter in the rain", "Holmes and the inspector", "the lodge"]


_DERIVED = (
    "book_mentions",
    "book_name_links",
    "book_model_names",
    "book_model_facts",
    "book_model_relations",
    "book_passages",
)


def _truncate(conn: Any, book_id: int, chapter: int, passage: int) -> None:
    """Delete this book's text past (chapter, passage) and all that was derived from it."""
    where = f"book_id = ? AND {PAST}"
    args = (book_id, chapter, chapter, passage)
    for table in _DERIVED:
        conn.execute(f"DELETE FROM {table} WHERE {where}", args)
    conn.execute(
        "DELETE FROM book_entities WHERE book_id = ? AND id NOT IN (SELECT entity_id FROM book_mentions)",
        (book_id,),
    )


class Copies:
    """Copies of a store holding only one book's text up to a cap: a file beside the test's, or
    on PostgreSQL a database made from the library's own (`CREATE DATABASE ... TEMPLATE`)."""

    def __init__(self, tmp_path: Path, request: pytest.FixtureRequest):
        self.tmp_path = tmp_path
        self.request = request
        self.made: list[str] = []

    def truncated(self, source: Store, book_id: int, chapter: int, passage: int) -> Store:
        if source.dialect == "sqlite":
            target = self.tmp_path / f"cap{len(self.made)}.db"
            self.made.append(str(target))
            with sqlite3.connect(source.path) as src, sqlite3.connect(target) as dst:
                src.backup(dst)
            with sqlite3.connect(target) as conn:
                conn.execute(
                    "INSERT INTO book_passages_fts (book_passages_fts, rowid, text)"
                    f" SELECT 'delete', id, text FROM book_passages WHERE book_id = ? AND {PAST}",
                    (book_id, chapter, chapter, passage),
                )
                _truncate(conn, book_id, chapter, passage)
            return SqliteStore(target)
        server = self.request.getfixturevalue("postgres_server")
        name = f"lore_{os.getpid()}_cap{len(self.made)}"
        source.close()  # a template database must have no other session
        with server.admin() as admin:
            admin.execute(f"CREATE DATABASE {name} TEMPLATE {source.url.split('/')[3].split('?')[0]}")
        url = server.url(name)
        self.made.append(url)
        copy = open_database(url)
        with copy.transaction() as tx:
            _truncate(tx, book_id, chapter, passage)
        return copy

    def drop(self) -> None:
        for made in self.made:
            if made.startswith("postgresql://"):
                self.request.getfixturevalue("postgres_server").drop(made)


@pytest.fixture
def copies(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Copies]:
    made = Copies(tmp_path, request)
    yield made
    forget_stores()
    made.drop()


def _view(book_id: int, store: Store) -> dict[str, Any]:
    """Everything a reader can list or score for one book at the position recorded in `store`."""
    _, found = entities.characters(book_id, limit=500, store=store)
    listed = [e.as_dict() for e in found]
    profiles = [entities.profile(book_id, e["name"], store=store) for e in listed[:4]]
    prefixes = sorted({e["name"][:2] for e in listed[:12]})
    return {
        "characters": listed,
        "profiles": profiles,
        "names": {p: entities.autocomplete(book_id, p, store=store) for p in prefixes},
        "graph": entities.graph(book_id, limit=500, store=store),
        "search": [_hits(search.search_book(book_id, q, k=8, store=store)) for q in QUESTIONS],
    }


def _hits(result: search.SearchResult) -> list[dict[str, Any]] | str:
    """Hits and scores. A verdict that the answer lies ahead (by design computed without the cap,
    and said without where) shows no hits at all; the truncated copy cannot know it, so that
    case is compared as "nothing shown" only."""
    if result.verdict == search.NOT_REACHED:
        assert result.hits == []
        return "nothing shown"
    return list(result.as_dict()["hits"])


def _random_caps(book: library.Book, store: Store, count: int, seed: int) -> list[tuple[int, int]]:
    _, outline = library.chapters(book.id, store=store)  # sizes of every chapter: the position is at end
    rng = random.Random(seed)
    caps = []
    for _ in range(count):
        chapter = rng.randint(1, book.chapters)
        caps.append((chapter, rng.randint(1, outline[chapter - 1]["passages"])))
    return caps


def _check(book: library.Book, store: Store, copies: Copies, count: int, seed: int) -> None:
    library.set_progress(book.id, "end", store=store)
    for chapter, passage in _random_caps(book, store, count, seed):
        library.set_progress(book.id, chapter, passage, store=store)
        full = _view(book.id, store)
        alone = copies.truncated(store, book.id, chapter, passage)
        seen = _view(book.id, alone)
        for key in range(len(seen["search"])):
            if full["search"][key] == "nothing shown":
                seen["search"][key] = "nothing shown"  # a verdict the full library alone can give
        assert seen == full, f"{book.title} at chapter {chapter}, passage {passage}"


def test_a_small_book_at_random_passage_caps(mystery: library.Book, copies: Copies) -> None:
    store = library.open_books().store
    _check(mystery, store, copies, count=8, seed=13)


@pytest.mark.parametrize("name", ["a-study-in-scarlet.epub", "the-sign-of-the-four.epub"])
def test_shared_books_at_random_passage_caps(shared, copies: Copies, backend: str, name: str) -> None:
    folder, lib = shared
    if backend == "sqlite":  # the session's library, imported once
        book, store = lib.book(folder, name), lib.store
    else:  # imported into this test's database
        store = library.open_books().store
        book = library.add_book(folder / "books" / name, store=store)
    _check(book, store, copies, count=4, seed=len(name))
