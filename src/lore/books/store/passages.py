"""Passages: how a book's text is stored, searched by words under the cap, and read around a hit.

Full-text search is FTS5 on SQLite and a generated `tsv` column on PostgreSQL; either way the
counts a score is made from come only from visible passages (see `term_hits`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lore.core.store.binding import in_marks

from .base import BooksTables
from .cap import Cap, cap_cte, visible
from .records import ChapterPassage, PassageRow, PassageSpan, PassageText, TermHit, as_records


class PassageTables(BooksTables):
    """Passages: stored, matched by words, fetched by id or around one, sized under the cap."""

    def insert_passages(
        self, book_id: int, rows: Iterable[tuple[int, int, int, int, str]]
    ) -> dict[tuple[int, int], int]:
        """Rows of (chapter_seq, passage_seq, start, end, text); returns ids by (chapter, passage)."""
        conn = self.store.connect()
        conn.executemany(
            'INSERT INTO book_passages (book_id, chapter_seq, passage_seq, start, "end", text)'
            " VALUES (?, ?, ?, ?, ?, ?)",
            ((book_id, *row) for row in rows),
        )
        if self.store.dialect == "sqlite":  # PostgreSQL's `tsv` column is generated from the text
            conn.execute(
                "INSERT INTO book_passages_fts (rowid, text) SELECT id, text FROM book_passages WHERE book_id = ?",
                (book_id,),
            )
        ids = conn.execute(
            "SELECT id, chapter_seq, passage_seq FROM book_passages WHERE book_id = ?", (book_id,)
        )
        return {(r[1], r[2]): r[0] for r in ids}

    def passage_spans(self, book_id: int) -> list[PassageSpan]:
        """Every passage's id and chapter offsets, in reading order (to place name mentions)."""
        conn = self.store.connect()
        return as_records(
            PassageSpan,
            conn.execute(
                'SELECT id, chapter_seq, passage_seq, start, "end" FROM book_passages WHERE book_id = ?'
                " ORDER BY chapter_seq, passage_seq",
                (book_id,),
            ),
        )

    def passages_for_embedding(self, book_id: int) -> list[PassageText]:
        conn = self.store.connect()
        return as_records(
            PassageText,
            conn.execute(
                "SELECT id, chapter_seq, passage_seq, text FROM book_passages WHERE book_id = ? ORDER BY id",
                (book_id,),
            ),
        )

    def chapter_passages(self, book_id: int) -> list[ChapterPassage]:
        """Every passage of a book in reading order (for extraction, which reads the whole book)."""
        conn = self.store.connect()
        return as_records(
            ChapterPassage,
            conn.execute(
                "SELECT p.id, p.chapter_seq, p.passage_seq, p.start, p.text, c.title AS chapter_title"
                " FROM book_passages p JOIN book_chapters c"
                " ON c.book_id = p.book_id AND c.chapter_seq = p.chapter_seq"
                " WHERE p.book_id = ? ORDER BY p.chapter_seq, p.passage_seq",
                (book_id,),
            ),
        )

    def term_hits(self, caps: Sequence[Cap], words: Sequence[str]) -> list[TermHit]:
        """Visible passages holding any of the words (or phrases), stemmed: id, length, and how
        many of their words match (tf).

        No engine score here (FTS5's `bm25()`, PostgreSQL's `ts_rank`): FTS5's is computed from
        statistics over every passage of every book, which would make a score depend on text past
        the cap. Callers score from these capped counts, the same on both backends."""
        if not words:
            return []
        if self.store.dialect != "sqlite":
            return self._term_hits_tsvector(caps, [words])[0]
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        marked = "highlight(book_passages_fts, 0, char(1), '')"
        return as_records(
            TermHit,
            conn.execute(
                f"{cte} SELECT p.id, length(p.text) AS size, length({marked}) - length(p.text) AS tf"
                " FROM book_passages_fts CROSS JOIN book_passages p ON p.id = book_passages_fts.rowid"
                f" CROSS JOIN cap ON {visible('p')} WHERE book_passages_fts MATCH ?",
                (*params, " OR ".join(f'"{w}"' for w in words)),
            ),
        )

    def group_hits(self, caps: Sequence[Cap], groups: Sequence[Sequence[str]]) -> list[list[TermHit]]:
        """`term_hits` for each group of words, in order: on PostgreSQL in one statement (each
        round trip to the server costs more than the match itself)."""
        if self.store.dialect == "sqlite" or len(groups) < 2:
            return [self.term_hits(caps, group) for group in groups]
        return self._term_hits_tsvector(caps, groups)

    def _term_hits_tsvector(
        self, caps: Sequence[Cap], groups: Sequence[Sequence[str]]
    ) -> list[list[TermHit]]:
        """`term_hits` on PostgreSQL, for several groups at once: the GIN-indexed `tsv` column
        matched against each group's phrase queries (one per word), the cap in the same
        statement; tf counts the positions of the group's lexemes in the passage (every word of a
        phrase, wherever it stands)."""
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        kept = [(n, list(group)) for n, group in enumerate(groups) if group]
        if not kept:
            return [[] for _ in groups]
        rows = ", ".join(
            "(?, to_tsvector('lore_books', lore_books_fold(?)), "
            + " || ".join("phraseto_tsquery('lore_books', lore_books_fold(?))" for _ in words)
            + ")"
            for _, words in kept
        )
        values = [v for n, words in kept for v in (n, " ".join(words), *words)]
        tf = (
            "SELECT COALESCE(SUM(array_length(u.positions, 1)), 0) FROM unnest(p.tsv) u"
            " WHERE u.lexeme = ANY (tsvector_to_array(g.lexemes))"
        )
        found: list[list[TermHit]] = [[] for _ in groups]
        for row in conn.execute(
            f"{cte}, g(n, lexemes, query) AS (VALUES {rows})"
            f" SELECT g.n, p.id, length(p.text) AS size, ({tf}) AS tf FROM g"
            f" JOIN book_passages p ON p.tsv @@ g.query JOIN cap ON {visible('p')}",
            (*params, *values),
        ):
            found[row[0]].append(TermHit(row[1], row[2], row[3]))
        return found

    def passages_by_id(self, caps: Sequence[Cap], ids: Sequence[int]) -> list[PassageRow]:
        """Visible passages among the given ids (hits from the vector index, checked again)."""
        conn = self.store.connect()
        if not ids:
            return []
        cte, params = cap_cte(caps)
        marks = in_marks(ids)
        return as_records(
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
        cte, params = cap_cte(caps)
        return as_records(
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

    def visible_size(self, caps: Sequence[Cap]) -> tuple[int, float]:
        """How many passages are visible, and their mean length in characters."""
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        row = conn.execute(
            f"{cte} SELECT COUNT(*), AVG(length(p.text)) FROM book_passages p JOIN cap ON {visible('p')}",
            params,
        ).fetchone()
        return int(row[0]), float(row[1] or 0.0)

    def count_visible_passages(self, caps: Sequence[Cap]) -> int:
        return self.visible_size(caps)[0]
