"""All of the books domain's SQL: schema, writes, and reads that apply the reader's cap.

Every read that can return book content (passages, mentions, entities, relations) joins a
`cap(book_id, ch, ps)` table built from the caller's caps, so a row past the reader's position
is filtered by SQLite itself and never reaches Python. `visible(alias)` is that one condition.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from lore.core.errors import AlreadyExists
from lore.core.store import Migration, Store, open_store_for
from lore.core.store.binding import in_marks

MIGRATIONS = [
    Migration(
        "books/0001_library",
        """
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            authors TEXT NOT NULL DEFAULT '[]',
            series TEXT,
            series_index REAL,
            format TEXT NOT NULL,
            source_path TEXT NOT NULL,
            source_sha256 TEXT NOT NULL UNIQUE,
            word_count INTEGER NOT NULL,
            notes TEXT NOT NULL DEFAULT '',
            added_at REAL NOT NULL
        );
        CREATE TABLE book_chapters (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            chapter_seq INTEGER NOT NULL,
            title TEXT NOT NULL,
            text TEXT NOT NULL,
            word_count INTEGER NOT NULL,
            passage_count INTEGER NOT NULL,
            PRIMARY KEY (book_id, chapter_seq)
        );
        CREATE TABLE book_passages (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            chapter_seq INTEGER NOT NULL,
            passage_seq INTEGER NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            text TEXT NOT NULL,
            UNIQUE (book_id, chapter_seq, passage_seq)
        );
        CREATE VIRTUAL TABLE book_passages_fts USING fts5(
            text, content='book_passages', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TABLE book_positions (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
            chapter_seq INTEGER NOT NULL,
            passage_seq INTEGER,
            updated_at REAL NOT NULL
        );
        CREATE TABLE book_entities (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            UNIQUE (book_id, name)
        );
        CREATE TABLE book_mentions (
            id INTEGER PRIMARY KEY,
            entity_id INTEGER NOT NULL REFERENCES book_entities(id) ON DELETE CASCADE,
            book_id INTEGER NOT NULL,
            passage_id INTEGER NOT NULL REFERENCES book_passages(id) ON DELETE CASCADE,
            chapter_seq INTEGER NOT NULL,
            passage_seq INTEGER NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            surface TEXT NOT NULL,
            form TEXT NOT NULL
        );
        CREATE INDEX book_mentions_cap ON book_mentions (book_id, chapter_seq, passage_seq);
        CREATE INDEX book_mentions_entity ON book_mentions (entity_id, chapter_seq, passage_seq);
        CREATE INDEX book_mentions_passage ON book_mentions (passage_id);
        CREATE INDEX book_mentions_form ON book_mentions (book_id, form COLLATE NOCASE);
        """,
    ),
]

# The model-interpreted layer lives apart from the deterministic one: every row carries the
# passage and exact quote it stands on (verified before it is stored), who extracted it, and the
# chapter/passage where it is established, so the same cap applies to it.
MIGRATIONS.append(
    Migration(
        "books/0002_model_layer",
        """
        CREATE TABLE book_model_entities (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            extracted_by TEXT NOT NULL
        );
        CREATE TABLE book_model_names (
            id INTEGER PRIMARY KEY,
            entity_id INTEGER NOT NULL REFERENCES book_model_entities(id) ON DELETE CASCADE,
            book_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            passage_id INTEGER NOT NULL REFERENCES book_passages(id) ON DELETE CASCADE,
            chapter_seq INTEGER NOT NULL,
            passage_seq INTEGER NOT NULL
        );
        CREATE INDEX book_model_names_cap ON book_model_names (book_id, chapter_seq, passage_seq);
        CREATE INDEX book_model_names_entity ON book_model_names (entity_id);
        CREATE TABLE book_model_facts (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL,
            entity_id INTEGER NOT NULL REFERENCES book_model_entities(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            passage_id INTEGER NOT NULL REFERENCES book_passages(id) ON DELETE CASCADE,
            chapter_seq INTEGER NOT NULL,
            passage_seq INTEGER NOT NULL,
            quote TEXT NOT NULL,
            quote_start INTEGER NOT NULL,
            quote_end INTEGER NOT NULL,
            extracted_by TEXT NOT NULL,
            confidence REAL
        );
        CREATE INDEX book_model_facts_cap ON book_model_facts (book_id, chapter_seq, passage_seq);
        CREATE TABLE book_model_relations (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL,
            source_id INTEGER NOT NULL REFERENCES book_model_entities(id) ON DELETE CASCADE,
            target_id INTEGER NOT NULL REFERENCES book_model_entities(id) ON DELETE CASCADE,
            relation TEXT NOT NULL,
            passage_id INTEGER NOT NULL REFERENCES book_passages(id) ON DELETE CASCADE,
            chapter_seq INTEGER NOT NULL,
            passage_seq INTEGER NOT NULL,
            quote TEXT NOT NULL,
            quote_start INTEGER NOT NULL,
            quote_end INTEGER NOT NULL,
            extracted_by TEXT NOT NULL,
            confidence REAL
        );
        CREATE INDEX book_model_relations_cap ON book_model_relations (book_id, chapter_seq, passage_seq);
        CREATE TABLE book_model_runs (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
            extracted_by TEXT NOT NULL,
            chunks INTEGER NOT NULL,
            failed_chunks INTEGER NOT NULL,
            accepted INTEGER NOT NULL,
            rejected INTEGER NOT NULL,
            finished_at REAL NOT NULL
        );
        """,
    )
)

# Which short form joins which full name ("Holmes" -> "Sherlock Holmes") changes as the book goes
# on, so it is a timeline: a link row says that from its chapter/passage on, the mentions of
# `entity_id` (one row per name form) count as `target_id` (itself: as no one else any more).
# Queries take, per form, the last link under the reader's cap. Mentions carry whether they
# were said with an honorific, which is what makes a name a person; also counted under the cap.
MIGRATIONS.append(
    Migration(
        "books/0003_name_timeline",
        """
        ALTER TABLE book_mentions ADD COLUMN titled INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE book_name_links (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            entity_id INTEGER NOT NULL REFERENCES book_entities(id) ON DELETE CASCADE,
            target_id INTEGER NOT NULL REFERENCES book_entities(id) ON DELETE CASCADE,
            chapter_seq INTEGER NOT NULL,
            passage_seq INTEGER NOT NULL
        );
        CREATE INDEX book_name_links_cap ON book_name_links (book_id, chapter_seq, passage_seq);
        CREATE INDEX book_name_links_entity ON book_name_links (entity_id, chapter_seq, passage_seq);
        """,
    )
)


# Books imported before the timeline had names grouped over the whole book: they must be found
# again. Finding names is application code (books.names) that keeps changing, so a frozen
# migration cannot run it: it drops the old whole-book rows and queues every book in
# `book_names_pending`, and `books.library.open_books` finds their names with the code of the
# day on the next open. A reader meanwhile sees no names for such a book, never wrong ones.
MIGRATIONS.append(
    Migration(
        "books/0004_names_as_read",
        """
        CREATE TABLE IF NOT EXISTS book_names_pending (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE
        );
        DELETE FROM book_name_links;
        DELETE FROM book_mentions;
        DELETE FROM book_entities;
        INSERT OR IGNORE INTO book_names_pending (book_id) SELECT id FROM books;
        """,
    )
)
# stores that ran 0004 when it still found the names itself have no queue table yet
MIGRATIONS.append(
    Migration(
        "books/0005_names_pending",
        """
        CREATE TABLE IF NOT EXISTS book_names_pending (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE
        );
        """,
    )
)

# Entity ids must not tell a reader how many names lie ahead: a global row id (or one numbered
# over the whole book) shows a gap where unseen names were inserted. Each entity gets `seq`, its
# rank within its book in reading order (deterministic names: first mention; model entities: the
# first passage giving one of its names), and readers see `seq`, never the row id. A reader at
# any cap sees a prefix of those ranks, so two readers share the ids they both can see.
# Mentions also gain `cue`, what the words around them say (person, place, group), from which a
# kind is voted under the cap; names are found again (queued, as in 0004) to fill it.
MIGRATIONS.append(
    Migration(
        "books/0006_entity_seq",
        """
        ALTER TABLE book_entities ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
        UPDATE book_entities SET seq = (SELECT COUNT(*) FROM book_entities x
            WHERE x.book_id = book_entities.book_id AND x.id <= book_entities.id);
        ALTER TABLE book_model_entities ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
        UPDATE book_model_entities SET seq = (SELECT COUNT(*) FROM book_model_entities x
            WHERE x.book_id = book_model_entities.book_id AND x.id <= book_model_entities.id);
        ALTER TABLE book_mentions ADD COLUMN cue TEXT NOT NULL DEFAULT '';
        DELETE FROM book_name_links;
        DELETE FROM book_mentions;
        DELETE FROM book_entities;
        INSERT OR IGNORE INTO book_names_pending (book_id) SELECT id FROM books;
        """,
    )
)

END = 1 << 30  # "no passage limit within the cap chapter", and "the whole book" as a chapter


@dataclass(frozen=True)
class Cap:
    """How far a reader may see in one book: whole chapters below `chapter`, and in `chapter`
    the passages up to `passage` (all of them when None). Chapter 0 means nothing at all."""

    book_id: int
    chapter: int
    passage: int | None = None

    def row(self) -> tuple[int, int, int]:
        return (self.book_id, self.chapter, END if self.passage is None else self.passage)


def books_store(store: Store | None = None) -> BooksStore:
    """The books store over the shared Store (or the one given), its tables in place."""
    store = store or open_store_for(MIGRATIONS)
    store.migrate(MIGRATIONS)
    return BooksStore(store)


# -- records: what reads return (fields in the order the queries select them) --------------------


@dataclass(frozen=True)
class BookRef:
    id: int
    title: str


@dataclass(frozen=True)
class BookRow:
    """A book with its reading position and sizes (no content)."""

    id: int
    title: str
    authors: str  # JSON list
    series: str | None
    series_index: float | None
    format: str
    source_path: str
    word_count: int
    notes: str
    added_at: float
    pos_chapter: int | None
    pos_passage: int | None
    chapter_count: int
    passage_count: int


@dataclass(frozen=True)
class ChapterInfo:
    chapter_seq: int
    title: str
    word_count: int
    passage_count: int


@dataclass(frozen=True)
class PassageSpan:
    id: int
    chapter_seq: int
    passage_seq: int
    start: int
    end: int


@dataclass(frozen=True)
class PassageText:
    id: int
    chapter_seq: int
    passage_seq: int
    text: str


@dataclass(frozen=True)
class PassageRow:
    id: int
    book_id: int
    chapter_seq: int
    passage_seq: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class ChapterPassage:
    id: int
    chapter_seq: int
    passage_seq: int
    start: int
    text: str
    chapter_title: str


@dataclass(frozen=True)
class TermHit:
    """A visible passage matching a term group: its length and how often it matches."""

    id: int
    size: int
    tf: int


@dataclass(frozen=True)
class NameSpan:
    """A name found in a passage, as offsets into the passage's text."""

    passage_id: int
    start: int
    end: int


@dataclass(frozen=True)
class EntityCount:
    id: int
    book_id: int
    kind: str
    mentions: int
    passages: int
    first_chapter: int
    chapters: int


@dataclass(frozen=True)
class ModelEntityCount:
    id: int
    book_id: int
    kind: str
    passages: int
    first_chapter: int
    chapters: int


@dataclass(frozen=True)
class FormCount:
    entity_id: int
    form: str
    n: int
    first_chapter: int


@dataclass(frozen=True)
class FormMatch:
    entity_id: int
    form: str
    n: int


@dataclass(frozen=True)
class EntityHits:
    entity_id: int
    n: int


@dataclass(frozen=True)
class NamedIn:
    """A name used in a passage, with the entity it stands for at the reader's position."""

    passage_id: int
    entity_id: int
    form: str
    surface: str


@dataclass(frozen=True)
class MentionRow:
    chapter_seq: int
    passage_seq: int
    start: int
    end: int
    surface: str
    passage_id: int
    text: str
    passage_start: int


@dataclass(frozen=True)
class Cooccurrence:
    source: int
    target: int
    passages: int
    first_chapter: int


@dataclass(frozen=True)
class ModelRun:
    book_id: int
    extracted_by: str
    chunks: int
    failed_chunks: int
    accepted: int
    rejected: int
    finished_at: float


@dataclass(frozen=True)
class ModelFact:
    text: str
    quote: str
    chapter_seq: int
    passage_seq: int
    passage_id: int
    extracted_by: str


@dataclass(frozen=True)
class ModelRelation:
    source_id: int
    target_id: int
    relation: str
    quote: str
    chapter_seq: int
    passage_seq: int
    passage_id: int
    extracted_by: str


_R = TypeVar("_R")


def _all(record: type[_R], rows: Iterable[Sequence[Any]]) -> list[_R]:
    return [record(*row) for row in rows]


def _one(record: type[_R], row: Sequence[Any] | None) -> _R | None:
    return record(*row) if row is not None else None


def _cap_cte(caps: Sequence[Cap]) -> tuple[str, list[int]]:
    if not caps:
        return "WITH cap(book_id, ch, ps) AS (SELECT 0, 0, 0 WHERE 0)", []
    rows = ", ".join("(?, ?, ?)" for _ in caps)
    params = [v for cap in caps for v in cap.row()]
    return f"WITH cap(book_id, ch, ps) AS (VALUES {rows})", params


def visible(alias: str) -> str:
    """The cap condition for a row with book_id, chapter_seq and passage_seq columns."""
    return (
        f"{alias}.book_id = cap.book_id AND ({alias}.chapter_seq < cap.ch OR "
        f"({alias}.chapter_seq = cap.ch AND {alias}.passage_seq <= cap.ps))"
    )


# -- SQL pieces the reads share ---------------------------------------------------------------


_BOOK_COLUMNS = (
    "b.id, b.title, b.authors, b.series, b.series_index, b.format, b.source_path, b.word_count,"
    " b.notes, b.added_at, p.chapter_seq AS pos_chapter, p.passage_seq AS pos_passage,"
    " (SELECT COUNT(*) FROM book_chapters c WHERE c.book_id = b.id) AS chapter_count,"
    " (SELECT COUNT(*) FROM book_passages s WHERE s.book_id = b.id) AS passage_count"
)


def _names_cte(caps: Sequence[Cap]) -> tuple[str, list[int]]:
    """The cap; `fe`: every name form of the capped books with `eid`, the entity it stands for at
    the reader's position (its last link at or before the cap, else itself); and `vm`: the
    visible mentions with their `eid`. (`fe` drives the join: one index lookup per form.)"""
    cte, params = _cap_cte(caps)
    last_link = (
        "SELECT l.target_id FROM book_name_links l WHERE l.entity_id = e.id"
        " AND (l.chapter_seq < cap.ch OR (l.chapter_seq = cap.ch AND l.passage_seq <= cap.ps))"
        " ORDER BY l.chapter_seq DESC, l.passage_seq DESC, l.id DESC LIMIT 1"
    )
    return (
        f"{cte}, fe(entity_id, eid) AS MATERIALIZED (SELECT e.id, COALESCE(({last_link}), e.id)"
        " FROM book_entities e JOIN cap ON e.book_id = cap.book_id),"
        " vm AS (SELECT m.*, fe.eid FROM fe CROSS JOIN book_mentions m ON m.entity_id = fe.entity_id"
        f" JOIN cap ON {visible('m')})"
    ), params


# A group's kind under the cap: its name's own (a place by its last word, a titled person), else
# the vote of its visible mentions' cues: titles and speech for a person, "the" before a plural
# for a group, "in/at/near..." for a place (twice at least, and more than the person votes).
_PERSON_VOTES = "SUM(vm.titled OR vm.cue = 'person')"
_GROUP_KIND = (
    "CASE WHEN e.kind = 'place' THEN 'place' WHEN e.kind = 'person' THEN 'person'"
    f" WHEN SUM(vm.cue = 'group') > {_PERSON_VOTES} THEN 'group'"
    f" WHEN SUM(vm.cue = 'place') >= 2 AND SUM(vm.cue = 'place') > {_PERSON_VOTES} THEN 'place'"
    f" WHEN {_PERSON_VOTES} > 0 THEN 'person' ELSE 'name' END"
)


class BooksStore:
    """Typed access to the books tables of one Store.

    Methods run on the calling thread's connection, so inside `transaction()` they all join
    one transaction; rows come back as the records above, never as driver rows.
    """

    def __init__(self, store: Store):
        self.store = store

    @property
    def path(self) -> Path:
        return self.store.path

    @contextmanager
    def transaction(self) -> Iterator[BooksStore]:
        """One write transaction over several calls (a whole import, a model layer)."""
        with self.store.transaction():
            yield self

    # -- writes ---------------------------------------------------------------------------------

    def find_by_hash(self, sha256: str) -> BookRef | None:
        conn = self.store.connect()
        return _one(
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
                " source_sha256, word_count, notes, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        return int(cur.lastrowid or 0)

    def insert_chapter(
        self, book_id: int, seq: int, title: str, text: str, words: int, passages: int
    ) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO book_chapters (book_id, chapter_seq, title, text, word_count, passage_count)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (book_id, seq, title, text, words, passages),
        )

    def insert_passages(
        self, book_id: int, rows: Iterable[tuple[int, int, int, int, str]]
    ) -> dict[tuple[int, int], int]:
        """Rows of (chapter_seq, passage_seq, start, end, text); returns ids by (chapter, passage)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_passages (book_id, chapter_seq, passage_seq, start, end, text)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            ((book_id, *row) for row in rows),
        )
        conn.execute(
            "INSERT INTO book_passages_fts (rowid, text) SELECT id, text FROM book_passages WHERE book_id = ?",
            (book_id,),
        )
        ids = conn.execute(
            "SELECT id, chapter_seq, passage_seq FROM book_passages WHERE book_id = ?", (book_id,)
        )
        return {(r[1], r[2]): r[0] for r in ids}

    def insert_entity(self, book_id: int, name: str, kind: str, seq: int) -> int:
        """One name form; `seq` is its rank in the book by first mention (what readers see)."""
        conn = self.store.connect()
        cur = conn.execute(
            "INSERT INTO book_entities (book_id, name, kind, seq) VALUES (?, ?, ?, ?)",
            (book_id, name, kind, seq),
        )
        return int(cur.lastrowid or 0)

    def entity_seqs(self, entity_ids: Sequence[int]) -> dict[int, int]:
        """The reader-facing id (rank in the book by first mention) of each entity row."""
        return self._seqs("book_entities", entity_ids)

    def model_entity_seqs(self, entity_ids: Sequence[int]) -> dict[int, int]:
        return self._seqs("book_model_entities", entity_ids)

    def _seqs(self, table: str, entity_ids: Sequence[int]) -> dict[int, int]:
        if not entity_ids:
            return {}
        conn = self.store.connect()
        rows = conn.execute(
            f"SELECT id, seq FROM {table} WHERE id IN ({in_marks(entity_ids)})", tuple(entity_ids)
        )
        return {r[0]: r[1] for r in rows}

    def number_model_entities(self, book_id: int) -> None:
        """Rank a book's model entities by the first passage that gives one of their names."""
        conn = self.store.connect()
        conn.execute(
            "WITH firsts AS (SELECT e.id, ROW_NUMBER() OVER (ORDER BY MIN(n.chapter_seq) IS NULL,"
            " MIN(n.chapter_seq * 1048576 + n.passage_seq), e.id) AS r FROM book_model_entities e"
            " LEFT JOIN book_model_names n ON n.entity_id = e.id WHERE e.book_id = ? GROUP BY e.id)"
            " UPDATE book_model_entities SET seq = (SELECT r FROM firsts WHERE firsts.id = book_model_entities.id)"
            " WHERE book_id = ?",
            (book_id, book_id),
        )

    def insert_mentions(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of (entity_id, book_id, passage_id, chapter_seq, passage_seq, start, end, surface, form,
        titled, cue)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_mentions (entity_id, book_id, passage_id, chapter_seq, passage_seq,"
            " start, end, surface, form, titled, cue) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def insert_name_links(self, rows: Iterable[tuple[int, int, int, int, int]]) -> None:
        """Rows of (book_id, entity_id, target_id, chapter_seq, passage_seq)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_name_links (book_id, entity_id, target_id, chapter_seq, passage_seq)"
            " VALUES (?, ?, ?, ?, ?)",
            rows,
        )

    def chapter_texts(self, book_id: int) -> list[str]:
        """Every chapter's text in reading order (to find names again)."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT text FROM book_chapters WHERE book_id = ? ORDER BY chapter_seq", (book_id,)
        )
        return [r[0] for r in rows]

    def passage_spans(self, book_id: int) -> list[PassageSpan]:
        """Every passage's id and chapter offsets, in reading order (to place name mentions)."""
        conn = self.store.connect()
        return _all(
            PassageSpan,
            conn.execute(
                "SELECT id, chapter_seq, passage_seq, start, end FROM book_passages WHERE book_id = ?"
                " ORDER BY chapter_seq, passage_seq",
                (book_id,),
            ),
        )

    def delete_book(self, book_id: int) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO book_passages_fts (book_passages_fts, rowid, text)"
            " SELECT 'delete', id, text FROM book_passages WHERE book_id = ?",
            (book_id,),
        )
        conn.execute("DELETE FROM book_mentions WHERE book_id = ?", (book_id,))
        conn.execute("DELETE FROM book_name_links WHERE book_id = ?", (book_id,))
        self.clear_model_layer(book_id)
        conn.execute("DELETE FROM books WHERE id = ?", (book_id,))

    def set_position(self, book_id: int, chapter: int, passage: int | None) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO book_positions (book_id, chapter_seq, passage_seq, updated_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (book_id) DO UPDATE SET chapter_seq = excluded.chapter_seq,"
            " passage_seq = excluded.passage_seq, updated_at = excluded.updated_at",
            (book_id, chapter, passage, time.time()),
        )

    def clear_position(self, book_id: int) -> None:
        conn = self.store.connect()
        conn.execute("DELETE FROM book_positions WHERE book_id = ?", (book_id,))

    def names_pending(self) -> list[int]:
        """Books whose names a migration dropped, to be found again by the current code."""
        conn = self.store.connect()
        return [r[0] for r in conn.execute("SELECT book_id FROM book_names_pending ORDER BY book_id")]

    def names_found(self, book_id: int) -> None:
        conn = self.store.connect()
        conn.execute("DELETE FROM book_names_pending WHERE book_id = ?", (book_id,))

    # -- library reads (no book content) ------------------------------------------------------------

    def list_books(self) -> list[BookRow]:
        conn = self.store.connect()
        return _all(
            BookRow,
            conn.execute(
                f"SELECT {_BOOK_COLUMNS} FROM books b LEFT JOIN book_positions p ON p.book_id = b.id"
                " ORDER BY COALESCE(b.series, b.title), b.series_index, b.title, b.id"
            ),
        )

    def get_book(self, book_id: int) -> BookRow | None:
        conn = self.store.connect()
        return _one(
            BookRow,
            conn.execute(
                f"SELECT {_BOOK_COLUMNS} FROM books b LEFT JOIN book_positions p ON p.book_id = b.id WHERE b.id = ?",
                (book_id,),
            ).fetchone(),
        )

    def books_in_series(self, series: str) -> list[int]:
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT id FROM books WHERE series = ? COLLATE NOCASE ORDER BY series_index, id", (series,)
        )
        return [r[0] for r in rows]

    def chapter_outline(self, book_id: int) -> list[ChapterInfo]:
        """Chapter numbers, titles and sizes (not their text)."""
        conn = self.store.connect()
        return _all(
            ChapterInfo,
            conn.execute(
                "SELECT chapter_seq, title, word_count, passage_count FROM book_chapters"
                " WHERE book_id = ? ORDER BY chapter_seq",
                (book_id,),
            ),
        )

    # -- capped reads -------------------------------------------------------------------------------

    def term_hits(self, caps: Sequence[Cap], match: str) -> list[TermHit]:
        """Visible passages matching an FTS5 expression: id, length, and how often it matches (tf).

        No `bm25()` here: FTS5 computes it from statistics over every passage of every book, which
        would make a score depend on text past the cap. Callers score from these capped counts."""
        conn = self.store.connect()
        cte, params = _cap_cte(caps)
        marked = "highlight(book_passages_fts, 0, char(1), '')"
        return _all(
            TermHit,
            conn.execute(
                f"{cte} SELECT p.id, length(p.text) AS size, length({marked}) - length(p.text) AS tf"
                " FROM book_passages_fts CROSS JOIN book_passages p ON p.id = book_passages_fts.rowid"
                f" CROSS JOIN cap ON {visible('p')} WHERE book_passages_fts MATCH ?",
                (*params, match),
            ),
        )

    def passages_by_id(self, caps: Sequence[Cap], ids: Sequence[int]) -> list[PassageRow]:
        """Visible passages among the given ids (hits from the vector index, checked again)."""
        conn = self.store.connect()
        if not ids:
            return []
        cte, params = _cap_cte(caps)
        marks = in_marks(ids)
        return _all(
            PassageRow,
            conn.execute(
                f"{cte} SELECT p.id, p.book_id, p.chapter_seq, p.passage_seq, p.start, p.end, p.text"
                f" FROM book_passages p JOIN cap ON {visible('p')} WHERE p.id IN ({marks})",
                (*params, *ids),
            ),
        )

    def passages_around(self, caps: Sequence[Cap], passage_id: int, radius: int) -> list[PassageRow]:
        """The visible passages of one passage's chapter within `radius` of it, in reading order;
        nothing when that passage itself is past the cap (or does not exist)."""
        conn = self.store.connect()
        cte, params = _cap_cte(caps)
        return _all(
            PassageRow,
            conn.execute(
                f"{cte} SELECT p.id, p.book_id, p.chapter_seq, p.passage_seq, p.start, p.end, p.text"
                " FROM book_passages t JOIN book_passages p ON p.book_id = t.book_id"
                " AND p.chapter_seq = t.chapter_seq AND p.passage_seq BETWEEN t.passage_seq - ?"
                f" AND t.passage_seq + ? JOIN cap ON {visible('t')} AND {visible('p')}"
                " WHERE t.id = ? ORDER BY p.passage_seq",
                (*params, radius, radius, passage_id),
            ),
        )

    def names_in_passages(self, caps: Sequence[Cap], ids: Sequence[int]) -> list[NameSpan]:
        """The names found in visible passages: passage id and offsets into the passage's text."""
        conn = self.store.connect()
        if not ids:
            return []
        cte, params = _cap_cte(caps)
        marks = in_marks(ids)
        return _all(
            NameSpan,
            conn.execute(
                f"{cte} SELECT m.passage_id, m.start - p.start AS start, m.end - p.start AS end"
                f" FROM book_mentions m JOIN cap ON {visible('m')} JOIN book_passages p ON p.id = m.passage_id"
                f" WHERE m.passage_id IN ({marks})",
                (*params, *ids),
            ),
        )

    def passages_for_embedding(self, book_id: int) -> list[PassageText]:
        conn = self.store.connect()
        return _all(
            PassageText,
            conn.execute(
                "SELECT id, chapter_seq, passage_seq, text FROM book_passages WHERE book_id = ? ORDER BY id",
                (book_id,),
            ),
        )

    def entity_list(
        self, caps: Sequence[Cap], kind: str | None, limit: int, entity_id: int | None = None
    ) -> list[EntityCount]:
        """Entities with at least one visible mention: visible mentions, passages, first chapter
        (all of them, or the one `entity_id`)."""
        conn = self.store.connect()
        cte, params = _names_cte(caps)
        where = " WHERE vm.eid = ?" if entity_id is not None else ""
        having = " HAVING kind = ?" if kind else ""
        return _all(
            EntityCount,
            conn.execute(
                f"{cte} SELECT vm.eid AS id, e.book_id, {_GROUP_KIND} AS kind, COUNT(*) AS mentions,"
                " COUNT(DISTINCT vm.passage_id) AS passages, MIN(vm.chapter_seq) AS first_chapter,"
                " COUNT(DISTINCT vm.chapter_seq) AS chapters"
                f" FROM vm JOIN book_entities e ON e.id = vm.eid{where} GROUP BY vm.eid{having}"
                " ORDER BY mentions DESC, vm.eid LIMIT ?",
                (*params, *([entity_id] if entity_id is not None else []), *([kind] if kind else []), limit),
            ),
        )

    def group_kinds(self, caps: Sequence[Cap], entity_ids: Sequence[int]) -> dict[int, str]:
        """The kind of each entity as the visible text shows it."""
        conn = self.store.connect()
        if not entity_ids:
            return {}
        cte, params = _names_cte(caps)
        marks = in_marks(entity_ids)
        rows = conn.execute(
            f"{cte} SELECT vm.eid, {_GROUP_KIND} FROM vm JOIN book_entities e ON e.id = vm.eid"
            f" WHERE vm.eid IN ({marks}) GROUP BY vm.eid",
            (*params, *entity_ids),
        )
        return {r[0]: r[1] for r in rows}

    def visible_forms(self, caps: Sequence[Cap], entity_ids: Sequence[int]) -> list[FormCount]:
        """The names each entity goes by in the visible text, with counts."""
        conn = self.store.connect()
        if not entity_ids:
            return []
        cte, params = _names_cte(caps)
        marks = in_marks(entity_ids)
        return _all(
            FormCount,
            conn.execute(
                f"{cte} SELECT vm.eid AS entity_id, vm.form, COUNT(*) AS n, MIN(vm.chapter_seq) AS first_chapter"
                f" FROM vm WHERE vm.eid IN ({marks}) GROUP BY vm.eid, vm.form",
                (*params, *entity_ids),
            ),
        )

    def entities_by_form(self, caps: Sequence[Cap], name: str) -> list[EntityHits]:
        """Entities that a visible mention calls by this name (case-insensitive)."""
        conn = self.store.connect()
        cte, params = _names_cte(caps)
        return _all(
            EntityHits,
            conn.execute(
                f"{cte} SELECT vm.eid AS entity_id, COUNT(*) AS n FROM vm"
                " WHERE vm.form = ? COLLATE NOCASE OR vm.surface = ? COLLATE NOCASE"
                " GROUP BY vm.eid ORDER BY n DESC",
                (*params, name, name),
            ),
        )

    def autocomplete(self, caps: Sequence[Cap], prefix: str, limit: int) -> list[FormMatch]:
        """Names starting with the prefix (any word of the name), among visible mentions."""
        conn = self.store.connect()
        cte, params = _names_cte(caps)
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return _all(
            FormMatch,
            conn.execute(
                f"{cte} SELECT vm.eid AS entity_id, vm.form, COUNT(*) AS n FROM vm"
                " WHERE vm.form LIKE ? ESCAPE '\\' OR vm.form LIKE ? ESCAPE '\\'"
                " GROUP BY vm.eid, vm.form ORDER BY n DESC, vm.form LIMIT ?",
                (*params, f"{escaped}%", f"% {escaped}%", limit),
            ),
        )

    def entity_mentions(self, caps: Sequence[Cap], entity_id: int, limit: int) -> list[MentionRow]:
        """Visible mentions of an entity in reading order, with their passage."""
        conn = self.store.connect()
        cte, params = _names_cte(caps)
        return _all(
            MentionRow,
            conn.execute(
                f"{cte} SELECT vm.chapter_seq, vm.passage_seq, vm.start, vm.end, vm.surface,"
                " p.id AS passage_id, p.text, p.start AS passage_start"
                " FROM vm JOIN book_passages p ON p.id = vm.passage_id"
                " WHERE vm.eid = ? ORDER BY vm.chapter_seq, vm.passage_seq, vm.start LIMIT ?",
                (*params, entity_id, limit),
            ),
        )

    def names_among(self, caps: Sequence[Cap], among: Sequence[int]) -> list[NamedIn]:
        """The names visible mentions use in the given passages: passage, the entity each stands
        for at the reader's position, and the name as written and as normalised."""
        if not among:
            return []
        conn = self.store.connect()
        cte, params = _names_cte(caps)
        return _all(
            NamedIn,
            conn.execute(
                f"{cte} SELECT DISTINCT vm.passage_id, vm.eid, vm.form, vm.surface FROM vm"
                f" WHERE vm.passage_id IN ({in_marks(among)})",
                (*params, *among),
            ),
        )

    def cooccurrences(self, caps: Sequence[Cap], entity_id: int | None, limit: int) -> list[Cooccurrence]:
        """Pairs of entities named in the same visible passage: passages shared, first chapter.

        With `entity_id`, only that entity's neighbours (a graph walk of one hop)."""
        conn = self.store.connect()
        cte, params = _names_cte(caps)
        focus = " AND a.eid = ?" if entity_id is not None else ""
        pair = "a.eid != fb.eid" if entity_id is not None else "a.eid < fb.eid"
        return _all(
            Cooccurrence,
            conn.execute(
                f"{cte} SELECT a.eid AS source, fb.eid AS target, COUNT(DISTINCT a.passage_id) AS passages,"
                " MIN(a.chapter_seq) AS first_chapter FROM vm a"
                " JOIN book_mentions b ON b.passage_id = a.passage_id AND b.entity_id != a.entity_id"
                f" JOIN fe fb ON fb.entity_id = b.entity_id WHERE {pair}{focus} GROUP BY a.eid, fb.eid"
                " ORDER BY passages DESC, source, target LIMIT ?",
                (*params, *([entity_id] if entity_id is not None else []), limit),
            ),
        )

    def visible_size(self, caps: Sequence[Cap]) -> tuple[int, float]:
        """How many passages are visible, and their mean length in characters."""
        conn = self.store.connect()
        cte, params = _cap_cte(caps)
        row = conn.execute(
            f"{cte} SELECT COUNT(*), AVG(length(p.text)) FROM book_passages p JOIN cap ON {visible('p')}",
            params,
        ).fetchone()
        return int(row[0]), float(row[1] or 0.0)

    def count_visible_passages(self, caps: Sequence[Cap]) -> int:
        return self.visible_size(caps)[0]

    # -- the model layer ----------------------------------------------------------------------------

    def clear_model_layer(self, book_id: int) -> None:
        conn = self.store.connect()
        for table in ("book_model_relations", "book_model_facts", "book_model_names"):
            conn.execute(f"DELETE FROM {table} WHERE book_id = ?", (book_id,))
        conn.execute("DELETE FROM book_model_entities WHERE book_id = ?", (book_id,))
        conn.execute("DELETE FROM book_model_runs WHERE book_id = ?", (book_id,))

    def insert_model_entity(self, book_id: int, kind: str, extracted_by: str) -> int:
        conn = self.store.connect()
        cur = conn.execute(
            "INSERT INTO book_model_entities (book_id, kind, extracted_by) VALUES (?, ?, ?)",
            (book_id, kind, extracted_by),
        )
        return int(cur.lastrowid or 0)

    def insert_model_names(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of (entity_id, book_id, name, passage_id, chapter_seq, passage_seq)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_model_names (entity_id, book_id, name, passage_id, chapter_seq, passage_seq)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )

    def insert_model_facts(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of (book_id, entity_id, text, passage_id, chapter_seq, passage_seq, quote,
        quote_start, quote_end, extracted_by, confidence)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_model_facts (book_id, entity_id, text, passage_id, chapter_seq,"
            " passage_seq, quote, quote_start, quote_end, extracted_by, confidence)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def insert_model_relations(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of (book_id, source_id, target_id, relation, passage_id, chapter_seq, passage_seq,
        quote, quote_start, quote_end, extracted_by, confidence)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_model_relations (book_id, source_id, target_id, relation, passage_id,"
            " chapter_seq, passage_seq, quote, quote_start, quote_end, extracted_by, confidence)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def record_model_run(
        self,
        book_id: int,
        extracted_by: str,
        chunks: int,
        failed: int,
        accepted: int,
        rejected: int,
    ) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO book_model_runs (book_id, extracted_by, chunks, failed_chunks, accepted,"
            " rejected, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (book_id, extracted_by, chunks, failed, accepted, rejected, time.time()),
        )

    def model_run_of(self, book_id: int) -> ModelRun | None:
        conn = self.store.connect()
        return _one(
            ModelRun, conn.execute("SELECT * FROM book_model_runs WHERE book_id = ?", (book_id,)).fetchone()
        )

    def chapter_passages(self, book_id: int) -> list[ChapterPassage]:
        """Every passage of a book in reading order (for extraction, which reads the whole book)."""
        conn = self.store.connect()
        return _all(
            ChapterPassage,
            conn.execute(
                "SELECT p.id, p.chapter_seq, p.passage_seq, p.start, p.text, c.title AS chapter_title"
                " FROM book_passages p JOIN book_chapters c"
                " ON c.book_id = p.book_id AND c.chapter_seq = p.chapter_seq"
                " WHERE p.book_id = ? ORDER BY p.chapter_seq, p.passage_seq",
                (book_id,),
            ),
        )

    def model_entity_list(self, caps: Sequence[Cap], kind: str | None, limit: int) -> list[ModelEntityCount]:
        """Model entities with a visible name: visible passages about them and first chapter.

        A relation counts for an entity only when its other end has a visible name too."""
        conn = self.store.connect()
        cte, params = _cap_cte(caps)
        kind_sql = " WHERE e.kind = ?" if kind else ""
        both = "r.source_id IN named AND r.target_id IN named"
        return _all(
            ModelEntityCount,
            conn.execute(
                f"{cte}, named(entity_id) AS ("
                f" SELECT DISTINCT n.entity_id FROM book_model_names n JOIN cap ON {visible('n')}),"
                " ev(eid, passage_id, chapter_seq) AS ("
                f" SELECT n.entity_id, n.passage_id, n.chapter_seq FROM book_model_names n JOIN cap ON {visible('n')}"
                f" UNION SELECT f.entity_id, f.passage_id, f.chapter_seq FROM book_model_facts f"
                f" JOIN cap ON {visible('f')}"
                f" UNION SELECT r.source_id, r.passage_id, r.chapter_seq FROM book_model_relations r"
                f" JOIN cap ON {visible('r')} WHERE {both}"
                f" UNION SELECT r.target_id, r.passage_id, r.chapter_seq FROM book_model_relations r"
                f" JOIN cap ON {visible('r')} WHERE {both})"
                " SELECT e.id, e.book_id, e.kind, COUNT(DISTINCT ev.passage_id) AS passages,"
                " MIN(ev.chapter_seq) AS first_chapter, COUNT(DISTINCT ev.chapter_seq) AS chapters"
                " FROM book_model_entities e JOIN ev ON ev.eid = e.id"
                f" JOIN named ON named.entity_id = e.id{kind_sql}"
                " GROUP BY e.id ORDER BY passages DESC, e.id LIMIT ?",
                (*params, *([kind] if kind else []), limit),
            ),
        )

    def model_names(self, caps: Sequence[Cap], entity_ids: Sequence[int]) -> list[FormCount]:
        conn = self.store.connect()
        if not entity_ids:
            return []
        cte, params = _cap_cte(caps)
        marks = in_marks(entity_ids)
        return _all(
            FormCount,
            conn.execute(
                f"{cte} SELECT n.entity_id, n.name AS form, COUNT(*) AS n, MIN(n.chapter_seq) AS first_chapter"
                f" FROM book_model_names n JOIN cap ON {visible('n')}"
                f" WHERE n.entity_id IN ({marks}) GROUP BY n.entity_id, n.name",
                (*params, *entity_ids),
            ),
        )

    def model_entity_by_name(self, caps: Sequence[Cap], name: str) -> list[EntityHits]:
        conn = self.store.connect()
        cte, params = _cap_cte(caps)
        return _all(
            EntityHits,
            conn.execute(
                f"{cte} SELECT n.entity_id, COUNT(*) AS n FROM book_model_names n JOIN cap ON {visible('n')}"
                " WHERE n.name = ? COLLATE NOCASE GROUP BY n.entity_id ORDER BY n DESC",
                (*params, name),
            ),
        )

    def model_facts(self, caps: Sequence[Cap], entity_id: int, limit: int) -> list[ModelFact]:
        conn = self.store.connect()
        cte, params = _cap_cte(caps)
        return _all(
            ModelFact,
            conn.execute(
                f"{cte} SELECT f.text, f.quote, f.chapter_seq, f.passage_seq, f.passage_id, f.extracted_by"
                f" FROM book_model_facts f JOIN cap ON {visible('f')} WHERE f.entity_id = ?"
                " ORDER BY f.chapter_seq, f.passage_seq, f.id LIMIT ?",
                (*params, entity_id, limit),
            ),
        )

    def model_relations(self, caps: Sequence[Cap], entity_id: int | None, limit: int) -> list[ModelRelation]:
        """Visible relations whose two ends both have a visible name (optionally around one entity)."""
        conn = self.store.connect()
        cte, params = _cap_cte(caps)
        focus = " AND (r.source_id = ? OR r.target_id = ?)" if entity_id is not None else ""
        named = (
            "EXISTS (SELECT 1 FROM book_model_names n JOIN cap c2 ON n.book_id = c2.book_id AND"
            " (n.chapter_seq < c2.ch OR (n.chapter_seq = c2.ch AND n.passage_seq <= c2.ps))"
            " WHERE n.entity_id = {end})"
        )
        return _all(
            ModelRelation,
            conn.execute(
                f"{cte} SELECT r.source_id, r.target_id, r.relation, r.quote, r.chapter_seq, r.passage_seq,"
                f" r.passage_id, r.extracted_by FROM book_model_relations r JOIN cap ON {visible('r')}"
                f" WHERE {named.format(end='r.source_id')} AND {named.format(end='r.target_id')}{focus}"
                " ORDER BY r.chapter_seq, r.passage_seq, r.id LIMIT ?",
                (*params, *([entity_id, entity_id] if entity_id is not None else []), limit),
            ),
        )

    def model_kinds(self, entity_ids: Sequence[int]) -> dict[int, str]:
        conn = self.store.connect()
        if not entity_ids:
            return {}
        marks = in_marks(entity_ids)
        rows = conn.execute(
            f"SELECT id, kind FROM book_model_entities WHERE id IN ({marks})", tuple(entity_ids)
        )
        return {r[0]: r[1] for r in rows}

    def has_model_layer(self, book_id: int) -> bool:
        conn = self.store.connect()
        return (
            conn.execute("SELECT 1 FROM book_model_runs WHERE book_id = ?", (book_id,)).fetchone() is not None
        )

    def model_autocomplete(self, caps: Sequence[Cap], prefix: str, limit: int) -> list[FormMatch]:
        """Model-layer names starting with the prefix (any word), among visible names."""
        conn = self.store.connect()
        cte, params = _cap_cte(caps)
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return _all(
            FormMatch,
            conn.execute(
                f"{cte} SELECT n.entity_id, n.name AS form, COUNT(*) AS n FROM book_model_names n"
                f" JOIN cap ON {visible('n')}"
                " WHERE n.name LIKE ? ESCAPE '\\' OR n.name LIKE ? ESCAPE '\\'"
                " GROUP BY n.entity_id, n.name ORDER BY n DESC, n.name LIMIT ?",
                (*params, f"{escaped}%", f"% {escaped}%", limit),
            ),
        )
