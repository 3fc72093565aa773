"""Supersessions: a later decision judged to replace an earlier one, as rows of their own.

Undoing one stamps `undone_at` and keeps the row; each (earlier, later) pair a judge has looked
at is recorded with its verdict so it is not asked twice.
"""

from __future__ import annotations

import time

from lore.core.errors import NotFound
from lore.history.decisions.store.base import DecisionTables
from lore.history.decisions.store.records import SupersessionRow, supersession_row


class Supersessions(DecisionTables):
    """Supersession rows and the judges' checked pairs."""

    def supersessions(self, repo_id: int) -> list[SupersessionRow]:
        """Every supersession row of a repository, undone ones included, in the order judged."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT s.* FROM history_supersessions s JOIN history_decisions d ON d.id = s.earlier"
            " WHERE d.repo_id = ? ORDER BY s.judged_at, s.id",
            (repo_id,),
        )
        return [supersession_row(r) for r in rows]

    def supersession(self, supersession_id: int) -> SupersessionRow:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_supersessions WHERE id = ?", (supersession_id,)).fetchone()
        if row is None:
            raise NotFound(f"no supersession with id {supersession_id}")
        return supersession_row(row)

    def add_supersession(
        self, earlier: int, later: int, judge: str, reason: str, judged_at: float | None = None
    ) -> int:
        conn = self.store.connect()
        cur = conn.execute(
            "INSERT INTO history_supersessions (earlier, later, judged_at, judge, reason) VALUES (?, ?, ?, ?, ?)"
            " RETURNING id",
            (earlier, later, time.time() if judged_at is None else judged_at, judge, reason),
        )
        return int(cur.fetchone()[0])

    def undo_supersession(self, supersession_id: int, at: float | None = None) -> None:
        conn = self.store.connect()
        conn.execute(
            "UPDATE history_supersessions SET undone_at = ? WHERE id = ? AND undone_at IS NULL",
            (time.time() if at is None else at, supersession_id),
        )

    def checked_pairs(self, repo_id: int, judge: str) -> set[tuple[int, int]]:
        """(earlier, later) pairs this judge has already given a verdict on."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT k.earlier, k.later FROM history_supersession_checks k"
            " JOIN history_decisions d ON d.id = k.earlier WHERE d.repo_id = ? AND k.judge = ?",
            (repo_id, judge),
        )
        return {(a, b) for a, b in rows}

    def record_check(self, earlier: int, later: int, judge: str, verdict: str, reason: str) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO history_supersession_checks (earlier, later, judge, verdict, reason, judged_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (earlier, later, judge) DO UPDATE SET"
            " verdict = excluded.verdict, reason = excluded.reason, judged_at = excluded.judged_at",
            (earlier, later, judge, verdict, reason, time.time()),
        )
