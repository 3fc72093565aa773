"""The books store hands out records: a sample of its reads on a real imported book."""

from __future__ import annotations

import pytest

from lore.books import library
from lore.books import store as sql
from lore.books.store.cap import END, Cap
from lore.core.errors import AlreadyExists
from support.records import records_only

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def test_books_reads_return_records(mystery: library.Book) -> None:
    db = sql.books_store()
    caps = [Cap(mystery.id, END)]
    entities = db.entity_list(caps, None, 10)
    ids = [e.id for e in entities]
    records_only(
        books=db.list_books(),
        book=db.get_book(mystery.id),
        outline=db.chapter_outline(mystery.id),
        spans=db.passage_spans(mystery.id),
        hits=db.term_hits(caps, ["colonel"]),
        passages=db.passages_by_id(caps, [s.id for s in db.passage_spans(mystery.id)][:5]),
        for_embedding=db.passages_for_embedding(mystery.id),
        entities=entities,
        forms=db.visible_forms(caps, ids),
        mentions=db.entity_mentions(caps, ids[0], 5),
        pairs=db.cooccurrences(caps, None, 10),
        chapter_passages=db.chapter_passages(mystery.id),
        size=db.visible_size(caps),
    )


def test_the_same_file_imported_meanwhile_is_already_exists_and_the_book_is_kept(
    mystery: library.Book,
) -> None:
    db = sql.books_store()
    before = db.list_books()
    (sha,) = (
        db.store.connect().execute("SELECT source_sha256 FROM books WHERE id = ?", (mystery.id,)).fetchone()
    )
    with pytest.raises(AlreadyExists, match="already in the library"), db.transaction() as tx:
        tx.insert_book(
            title="Copy",
            authors=[],
            series=None,
            series_index=None,
            fmt="txt",
            source_path="/elsewhere/copy.txt",
            sha256=sha,
            word_count=1,
            notes="",
        )
    assert db.list_books() == before
