"""The reader's cap, and the one SQL condition that applies it.

Every read that can return book content (passages, mentions, entities, relations) joins a
`cap(book_id, ch, ps)` table built from the caller's caps (`cap_cte`), so a row past the reader's
position is filtered by the database itself (SQLite or PostgreSQL) and never reaches Python.
`visible(alias)` is that one condition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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


def cap_cte(caps: Sequence[Cap]) -> tuple[str, list[int]]:
    if not caps:
        return "WITH cap(book_id, ch, ps) AS (SELECT 0, 0, 0 WHERE 1 = 0)", []
    rows = ", ".join("(?, ?, ?)" for _ in caps)
    params = [v for cap in caps for v in cap.row()]
    return f"WITH cap(book_id, ch, ps) AS (VALUES {rows})", params


def visible(alias: str) -> str:
    """The cap condition for a row with book_id, chapter_seq and passage_seq columns."""
    return (
        f"{alias}.book_id = cap.book_id AND ({alias}.chapter_seq < cap.ch OR "
        f"({alias}.chapter_seq = cap.ch AND {alias}.passage_seq <= cap.ps))"
    )
