"""The SQL of why's keyword statistics: each indexed text's words (postings) and length, per
repository.

BM25 needs how many texts of a collection hold a word and how long each text is. Kept per
repository in rows of their own, those statistics make a repository's ranking its own: ingesting
a second repository into the same store adds rows under another `repo_id` and changes nothing
the first one's questions read (FTS5's `bm25()` counts over the whole table, every repository
at once). The rows are written when the texts are indexed, at ingest, so a question reads a few
postings and never counts or tokenises the history. The words are counted by the caller
(`why.keywords.terms`): this module only stores and reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lore.core.store.base import Store
from lore.core.store.binding import in_marks

UNCOUNTED = -1  # `history_why_docs.length` of a text whose words are not written yet


@dataclass(frozen=True)
class Posting:
    """One word of one text: how often it occurs there, and the text's length and time."""

    term: str
    doc_id: int
    tf: int
    length: int
    at: float | None


@dataclass(frozen=True)
class Collection:
    """A repository's texts as BM25 sees them: how many, and their mean length in words."""

    count: int
    mean_length: float


class TermStore:
    """The postings and lengths of why's texts, over the shared Store."""

    def __init__(self, store: Store):
        self.store = store

    def uncounted(self, repo_id: int) -> list[tuple[int, str]]:
        """(id, text) of the repository's texts whose words are not written yet."""
        rows = self.store.connect().execute(
            "SELECT id, text FROM history_why_docs WHERE repo_id = ? AND length < 0 ORDER BY id", (repo_id,)
        )
        return [(r[0], r[1]) for r in rows]

    def write(self, repo_id: int, counted: Sequence[tuple[int, dict[str, int]]]) -> None:
        """Write each text's word counts and its length (inside the caller's transaction)."""
        if not counted:
            return
        conn: Any = self.store.connect()
        ids = [(doc_id,) for doc_id, _counts in counted]
        conn.executemany("DELETE FROM history_why_postings WHERE doc_id = ?", ids)
        rows = [(repo_id, term, doc_id, tf) for doc_id, counts in counted for term, tf in counts.items()]
        if self.store.dialect == "sqlite":
            conn.executemany(
                "INSERT INTO history_why_postings (repo_id, term, doc_id, tf) VALUES (?, ?, ?, ?)", rows
            )
        else:
            conn.insert_rows("history_why_postings", ("repo_id", "term", "doc_id", "tf"), rows)
        conn.executemany(
            "UPDATE history_why_docs SET length = ? WHERE id = ?",
            [(sum(counts.values()), doc_id) for doc_id, counts in counted],
        )

    def forget(self, doc_ids: Iterable[int]) -> None:
        """Drop the postings of texts that are going away (inside the caller's transaction)."""
        self.store.connect().executemany(
            "DELETE FROM history_why_postings WHERE doc_id = ?", [(i,) for i in doc_ids]
        )

    def collection(self, repo_id: int) -> Collection:
        row = (
            self.store.connect()
            .execute(
                "SELECT COUNT(*), AVG(length) FROM history_why_docs WHERE repo_id = ? AND length >= 0",
                (repo_id,),
            )
            .fetchone()
        )
        return Collection(int(row[0] or 0), float(row[1] or 0.0))

    def frequencies(self, repo_id: int, terms: Sequence[str]) -> dict[str, int]:
        """term -> how many of the repository's texts hold it (every text, whatever its time:
        a word's weight does not move with `as_of`)."""
        if not terms:
            return {}
        rows = self.store.connect().execute(
            f"SELECT term, COUNT(*) FROM history_why_postings WHERE repo_id = ? AND term IN ({in_marks(terms)})"
            " GROUP BY term",
            [repo_id, *terms],
        )
        return {r[0]: int(r[1]) for r in rows}

    def postings(
        self, repo_id: int, terms: Sequence[str], as_of: float | None, among: Sequence[int] | None = None
    ) -> list[Posting]:
        """Every posting of these words in the repository, with its text's length and time; none
        of a text newer than `as_of`, and only of the texts `among` when given."""
        if not terms or (among is not None and not among):
            return []
        only = "" if among is None else f" AND p.doc_id IN ({in_marks(among)})"
        rows = self.store.connect().execute(
            "SELECT p.term, p.doc_id, p.tf, d.length, d.at FROM history_why_postings p"
            " JOIN history_why_docs d ON d.id = p.doc_id"
            f" WHERE p.repo_id = ? AND p.term IN ({in_marks(terms)}){only}"
            " AND (CAST(? AS DOUBLE PRECISION) IS NULL OR d.at <= ?)",
            [repo_id, *terms, *(among or ()), as_of, as_of],
        )
        return [Posting(*r) for r in rows]
