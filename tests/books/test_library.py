"""Importing into the store: offsets, metadata, duplicates, positions, and all-or-nothing writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.books import library
from lore.books import store as sql
from lore.core.errors import InvalidInput, NotFound
from lore.core.store.move import count_rows
from lore.core.store.open import open_store
from support.books import make_epub, mystery_book

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _rows(table: str) -> int:
    return count_rows(open_store(), table)


def _full_text_hits(word: str) -> int:
    """Passages the full-text index finds for a word: FTS5's own table (whose rows a delete must
    remove itself), or PostgreSQL's generated `tsv` column."""
    store = sql.books_store().store
    if store.dialect == "sqlite":
        query = "SELECT COUNT(*) FROM book_passages_fts WHERE book_passages_fts MATCH ?"
    else:
        query = "SELECT COUNT(*) FROM book_passages WHERE tsv @@ to_tsquery('lore_books', ?)"
    return int(store.connect().execute(query, (word,)).fetchone()[0])


def test_import_stores_chapters_and_passages_whose_offsets_round_trip(mystery: library.Book) -> None:
    assert (mystery.title, mystery.authors, mystery.chapters) == ("The Vane Inheritance", ["Ada Example"], 5)
    conn = sql.books_store().store.connect()
    chapters = {
        r["chapter_seq"]: r["text"]
        for r in conn.execute("SELECT chapter_seq, text FROM book_chapters WHERE book_id = ?", (mystery.id,))
    }
    assert sorted(chapters) == [1, 2, 3, 4, 5]
    rows = conn.execute(
        'SELECT chapter_seq, passage_seq, start, "end", text FROM book_passages WHERE book_id = ?'
        " ORDER BY chapter_seq, passage_seq",
        (mystery.id,),
    ).fetchall()
    assert len(rows) == mystery.passages > 5
    for r in rows:
        assert chapters[r["chapter_seq"]][r["start"] : r["end"]] == r["text"]
    for r in conn.execute(
        "SELECT m.start, m.end, m.surface, m.chapter_seq FROM book_mentions m WHERE m.book_id = ?",
        (mystery.id,),
    ):
        assert chapters[r["chapter_seq"]][r["start"] : r["end"]] == r["surface"]


def test_the_same_file_twice_is_one_book(mystery_epub: Path, mystery: library.Book) -> None:
    again = library.add_book(mystery_epub)
    assert again.already_present and again.id == mystery.id
    assert len(library.list_books()) == 1


def test_books_are_found_by_id_or_a_unique_part_of_the_title(tmp_path: Path, mystery: library.Book) -> None:
    spec = mystery_book()
    spec.title = "The Vane Affair Returns"
    other = library.add_book(make_epub(tmp_path / "other.epub", spec))
    assert library.find_book(str(mystery.id)).id == mystery.id
    assert library.find_book("inheritance").id == mystery.id
    assert library.find_book("RETURNS").id == other.id
    with pytest.raises(InvalidInput, match="several"):
        library.find_book("vane")
    with pytest.raises(NotFound):
        library.find_book("moby dick")


def test_series_from_options_and_its_validation(tmp_path: Path) -> None:
    book = library.add_book(make_epub(tmp_path / "a.epub"), series="Vane Mysteries", series_index=1)
    assert (book.series, book.series_index) == ("Vane Mysteries", 1.0)
    with pytest.raises(InvalidInput, match="needs a series"):
        library.add_book(make_epub(tmp_path / "b.epub", front_matter=False), series_index=2)


def test_a_new_book_is_not_started_and_positions_are_validated(mystery: library.Book) -> None:
    assert mystery.position.chapter == 0 and mystery.position.describe(5) == "not started"
    assert library.set_progress(mystery.id, 3).position.chapter == 3
    at = library.set_progress(mystery.id, "4", passage=2).position
    assert (at.chapter, at.passage) == (4, 2)
    assert library.set_progress(mystery.id, "end").position.describe(5) == "finished"
    assert library.set_progress(mystery.id, 0).position.chapter == 0
    for bad in (6, -1, "seven"):
        with pytest.raises(InvalidInput):
            library.set_progress(mystery.id, bad)
    with pytest.raises(InvalidInput, match="passages 1 to"):
        library.set_progress(mystery.id, 2, passage=999)


def test_a_broken_file_leaves_the_library_as_it_was(tmp_path: Path, mystery: library.Book) -> None:
    before = {
        t: _rows(t) for t in ("books", "book_chapters", "book_passages", "book_mentions", "core_vectors")
    }
    broken = tmp_path / "broken.epub"
    broken.write_bytes(b"PK\x03\x04 nope")
    with pytest.raises(InvalidInput):
        library.add_book(broken)
    assert {t: _rows(t) for t in before} == before


def test_a_failure_while_writing_rolls_the_whole_import_back(
    tmp_path: Path, mystery: library.Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedder is chosen inside the import's transaction; an unknown one fails it there."""
    before = {
        t: _rows(t)
        for t in ("books", "book_chapters", "book_passages", "book_mentions", "book_entities", "core_vectors")
    }
    monkeypatch.setenv("LORE_EMBED", "no-such-embedder")
    spec = mystery_book()
    spec.title = "Another Book"
    with pytest.raises(InvalidInput, match="unknown embedder"):
        library.add_book(make_epub(tmp_path / "another.epub", spec))
    assert {t: _rows(t) for t in before} == before
    assert _full_text_hits("teapot") == _fts_count_of(mystery)


def _fts_count_of(book: library.Book) -> int:
    conn = sql.books_store().store.connect()
    return conn.execute(
        "SELECT COUNT(*) FROM book_passages WHERE book_id = ? AND text LIKE ?", (book.id, "%teapot%")
    ).fetchone()[0]


def test_removing_a_book_removes_everything_derived_from_it(mystery: library.Book) -> None:
    library.remove_book(mystery.id)
    assert library.list_books() == []
    for table in ("book_chapters", "book_passages", "book_mentions", "book_entities", "core_vectors"):
        assert _rows(table) == 0
    assert _full_text_hits("teapot") == 0
