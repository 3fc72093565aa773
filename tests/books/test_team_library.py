"""A library shared on PostgreSQL: books and passages are everyone's, each position its reader's.

Two members (two `$LORE_HOME`s) point at one database: the book Alice imports is in Bob's
library, but Alice having finished it uncaps nothing for Bob, and Bob's position never moves hers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.books import entities, library, search
from lore.core.store.open import forget_stores


@pytest.fixture
def database(postgres_server, monkeypatch: pytest.MonkeyPatch):
    url = postgres_server.fresh_database()
    monkeypatch.setenv("LORE_DATABASE_URL", url)
    yield url
    forget_stores()
    postgres_server.drop(url)


def _as(member: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_HOME", str(member))
    forget_stores()


def test_each_member_reads_the_shared_book_at_their_own_position(
    database: str, mystery_epub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    _as(alice, monkeypatch)
    book = library.add_book(mystery_epub)
    library.set_progress(book.id, "end")
    assert search.search_book(book.id, "Who poisoned the colonel?").verdict == search.FOUND

    _as(bob, monkeypatch)
    (shared,) = library.list_books()
    assert (shared.id, shared.title, shared.position.chapter) == (book.id, book.title, 0)
    assert entities.characters(book.id)[1] == []  # not started: nothing visible
    library.set_progress(book.id, 2)
    bobs = search.search_book(book.id, "Who poisoned the colonel?")
    assert bobs.verdict == search.NOT_REACHED and bobs.hits == []
    assert "Clara" not in str([e.as_dict() for e in entities.characters(book.id)[1]])

    _as(alice, monkeypatch)
    assert library.get_book(book.id).position.describe(5) == "finished"
    assert (alice / "lore.db").exists() and (bob / "lore.db").exists()  # each position in its reader's file
