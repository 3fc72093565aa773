"""A passage in context: its neighbours in the chapter, never past the reader's position."""

from __future__ import annotations

import pytest

from lore.books import library
from lore.books import store as sql
from lore.books.context import passage_in_context
from lore.core.errors import InvalidInput, NotFound


def _passage_id(book: library.Book, chapter: int, passage: int) -> int:
    spans = sql.books_store().passage_spans(book.id)
    return next(s.id for s in spans if (s.chapter_seq, s.passage_seq) == (chapter, passage))


def test_neighbours_stop_at_the_cap_and_the_read_joins_it(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 3, 2)
    first = _passage_id(mystery, 3, 1)
    conn = sql.books_store().store.connect()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        found = passage_in_context(mystery.id, first, around=3)
    finally:
        conn.set_trace_callback(None)
    assert found.chapter == 3 and found.chapter_title == "Chapter 3"
    assert [(p.passage, p.cited) for p in found.passages] == [(1, True), (2, False)]
    reads = [s for s in statements if "book_passages" in s and "book_chapters c" not in s]  # not counts
    assert reads and all("JOIN cap ON" in s for s in reads)


def test_a_passage_past_the_cap_reads_as_no_passage(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2)
    ahead = _passage_id(mystery, 5, 1)
    with pytest.raises(NotFound) as hidden:
        passage_in_context(mystery.id, ahead)
    with pytest.raises(NotFound) as missing:
        passage_in_context(mystery.id, 10**9)
    assert str(hidden.value).replace(str(ahead), "N") == str(missing.value).replace(str(10**9), "N")
    spoiled = passage_in_context(mystery.id, ahead, around=1, spoilers=True)
    assert [p.passage for p in spoiled.passages] == [1, 2] and spoiled.passages[0].cited
    with pytest.raises(InvalidInput):
        passage_in_context(mystery.id, ahead, around=6)


def test_a_passage_of_another_book_is_not_found(mystery: library.Book, tmp_path) -> None:
    from support.books import BookSpec, make_epub, prose_chapter

    other = library.add_book(make_epub(tmp_path / "other.epub", BookSpec("Other", "B", [prose_chapter(1)])))
    library.set_progress(other.id, "end")
    library.set_progress(mystery.id, "end")
    with pytest.raises(NotFound):
        passage_in_context(other.id, _passage_id(mystery, 1, 1))
