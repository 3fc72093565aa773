"""The library: books and their chapters (no content past a title), and each reader's position.

A book's position sits beside it in the reader's own SQLite file, or, when the library is shared
(PostgreSQL), in the reader's own file keyed by the book file's SHA-256, so one member's position
never caps (or uncaps) another's.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import replace

from lore.core.errors import AlreadyExists
from lore.core.store.binding import in_marks

from .base import BooksTables
from .records import BookRef, BookRow, ChapterInfo, as_record, as_records

_BOOK_FIELDS = (
    "b.id, b.title, b.authors, b.series, b.series_index, b.format, b.source_path, b.word_count,"
    " b.notes, b.added_at, {position},"
    " (SELECT COUNT(*) FROM book_chapters c WHERE c.book_id = b.id) AS chapter_count,"
    " (SELECT COUNT(*) FROM book_passages s WHERE s.book_id = b.id) AS passage_count"
)
# the position beside the book (one reader per file), or filled in from the reader's own file
_BOOK_COLUMNS = _BOOK_FIELDS.format(position="p.chapter_seq AS pos_chapter, p.passage_seq AS pos_passage")
_BOOK_FROM = "books b LEFT JOIN book_positions p ON p.book_id = b.id"
_SHARED_COLUMNS = _BOOK_FIELDS.format(position="NULL AS pos_chapter, NULL AS pos_passage")


class LibraryTables(BooksTables):
    """Books, chapters and reading positions."""

    def find_by_hash(self, sha256: str) -> BookRef | None:
        conn = self.store.connect()
        return as_record(
            BookRef, conn.execute("SELECT id, title FROM books WHERE source_sha256 = ?", (sha256,)).fetchone()
        )

    def insert_book(
        self,
        *,
        title: str,
        authors: list[str],
        series: str | None,
        series_index: float | None,
        fmt: str,
        source_path: str,
        sha256: str,
        word_count: int,
        notes: str,
    ) -> int:
        """A new book; `AlreadyExists` when the same file (by hash) was imported meanwhile."""
        conn = self.store.connect()
        try:
            cur = conn.execute(
                "INSERT INTO books (title, authors, series, series_index, format, source_path,"
                " source_sha256, word_count, notes, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    title,
                    json.dumps(authors),
                    series,
                    series_index,
                    fmt,
                    source_path,
                    sha256,
                    word_count,
                    notes,
                    time.time(),
                ),
            )
        except sqlite3.IntegrityError as exc:
            raise AlreadyExists(f"{title!r} is already in the library (same file)") from exc
        return int(cur.fetchone()[0])

    def insert_chapter(
        self, book_id: int, seq: int, title: str, text: str, words: int, passages: int
    ) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO book_chapters (book_id, chapter_seq, title, text, word_count, passage_count)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (book_id, seq, title, text, words, passages),
        )

    def chapter_texts(self, book_id: int) -> list[str]:
        """Every chapter's text in reading order (to find names again)."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT text FROM book_chapters WHERE book_id = ? ORDER BY chapter_seq", (book_id,)
        )
        return [r[0] for r in rows]

    def books_in_series(self, series: str) -> list[int]:
        conn = self.store.connect()
        rows = conn.execute(
            f"SELECT id FROM books WHERE {self._nocase('series')} ORDER BY series_index NULLS FIRST, id",
            (series,),
        )
        return [r[0] for r in rows]

    def chapter_outline(self, book_id: int) -> list[ChapterInfo]:
        """Chapter numbers, titles and sizes (not their text)."""
        conn = self.store.connect()
        return as_records(
            ChapterInfo,
            conn.execute(
                "SELECT chapter_seq, title, word_count, passage_count FROM book_chapters"
                " WHERE book_id = ? ORDER BY chapter_seq",
                (book_id,),
            ),
        )

    def list_books(self) -> list[BookRow]:
        conn = self.store.connect()
        if self.positions is not None:
            return self._with_own_positions(
                as_records(
                    BookRow,
                    conn.execute(
                        f"SELECT {_SHARED_COLUMNS} FROM books b"
                        f" ORDER BY {self._bytewise('COALESCE(b.series, b.title)')}, b.series_index NULLS FIRST,"
                        f" {self._bytewise('b.title')}, b.id"
                    ),
                )
            )
        return as_records(
            BookRow,
            conn.execute(
                f"SELECT {_BOOK_COLUMNS} FROM {_BOOK_FROM}"
                f" ORDER BY {self._bytewise('COALESCE(b.series, b.title)')}, b.series_index NULLS FIRST,"
                f" {self._bytewise('b.title')}, b.id"
            ),
        )

    def get_book(self, book_id: int) -> BookRow | None:
        conn = self.store.connect()
        columns, source = (
            (_BOOK_COLUMNS, _BOOK_FROM) if self.positions is None else (_SHARED_COLUMNS, "books b")
        )
        row = as_record(
            BookRow, conn.execute(f"SELECT {columns} FROM {source} WHERE b.id = ?", (book_id,)).fetchone()
        )
        return None if row is None else self._with_own_positions([row])[0]

    def set_position(self, book_id: int, chapter: int, passage: int | None) -> None:
        if self.positions is not None:
            self._set_own_position(book_id, chapter, passage)
            return
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO book_positions (book_id, chapter_seq, passage_seq, updated_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (book_id) DO UPDATE SET chapter_seq = excluded.chapter_seq,"
            " passage_seq = excluded.passage_seq, updated_at = excluded.updated_at",
            (book_id, chapter, passage, time.time()),
        )

    def clear_position(self, book_id: int) -> None:
        if self.positions is not None:
            self._set_own_position(book_id, None, None)
            return
        conn = self.store.connect()
        conn.execute("DELETE FROM book_positions WHERE book_id = ?", (book_id,))

    def _sha_of(self, book_id: int) -> str | None:
        row = (
            self.store.connect()
            .execute("SELECT source_sha256 FROM books WHERE id = ?", (book_id,))
            .fetchone()
        )
        return None if row is None else str(row[0])

    def _set_own_position(self, book_id: int, chapter: int | None, passage: int | None) -> None:
        """Record (or, with no chapter, forget) the reader's position in their own file."""
        assert self.positions is not None
        sha = self._sha_of(book_id)
        if sha is None:
            return
        with self.positions.transaction() as own:
            if chapter is None:
                own.execute("DELETE FROM book_reader_positions WHERE source_sha256 = ?", (sha,))
                return
            own.execute(
                "INSERT INTO book_reader_positions (source_sha256, chapter_seq, passage_seq, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (source_sha256) DO UPDATE SET"
                " chapter_seq = excluded.chapter_seq, passage_seq = excluded.passage_seq,"
                " updated_at = excluded.updated_at",
                (sha, chapter, passage, time.time()),
            )

    def _with_own_positions(self, rows: list[BookRow]) -> list[BookRow]:
        """Books read from a shared library, each with this reader's position in it."""
        if self.positions is None or not rows:
            return rows
        ids = [r.id for r in rows]
        shas = dict(
            self.store.connect().execute(
                f"SELECT id, source_sha256 FROM books WHERE id IN ({in_marks(ids)})", tuple(ids)
            )
        )
        wanted = list(set(shas.values()))
        own = {
            r[0]: (r[1], r[2])
            for r in self.positions.connect().execute(
                "SELECT source_sha256, chapter_seq, passage_seq FROM book_reader_positions"
                f" WHERE source_sha256 IN ({in_marks(wanted)})",
                tuple(wanted),
            )
        }
        out = []
        for row in rows:
            at = own.get(shas.get(row.id, ""))
            out.append(row if at is None else replace(row, pos_chapter=at[0], pos_passage=at[1]))
        return out
