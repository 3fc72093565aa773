"""Decisions: their writes and reads, and the marks of which sources extract has read (by which
model and prompt). A decision is never deleted or rewritten once stored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from lore.core.errors import NotFound
from lore.history.decisions.store.base import DecisionTables
from lore.history.decisions.store.records import DecisionRow, NewDecision, decision_row


class Decisions(DecisionTables):
    """The decisions of a repository and the marks of what extract has read."""

    def add_decisions(self, rows: Sequence[NewDecision], ingested_at: float | None = None) -> list[int]:
        conn = self.store.connect()
        now = time.time() if ingested_at is None else ingested_at
        ids = []
        for d in rows:
            cur = conn.execute(
                "INSERT INTO history_decisions (repo_id, statement, rationale, scope, files, source_kind,"
                " comment_kind, source_node, item_number, comment_id, commit_sha, source_url, speaker,"
                " speaker_role, quote, span_start, span_end, valid_from, extracted_by, confidence,"
                " ingested_at, authority, grounding)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " RETURNING id",
                (
                    d.repo_id,
                    d.statement,
                    d.rationale,
                    d.scope,
                    json.dumps(list(d.files)),
                    d.source_kind,
                    d.comment_kind,
                    d.source_node,
                    d.item_number,
                    d.comment_id,
                    d.commit_sha,
                    d.source_url,
                    d.speaker,
                    d.speaker_role,
                    d.quote,
                    d.span_start,
                    d.span_end,
                    d.valid_from,
                    d.extracted_by,
                    d.confidence,
                    now,
                    d.authority,
                    d.grounding,
                ),
            )
            ids.append(int(cur.fetchone()[0]))
        return ids

    def decisions(self, repo_id: int, believed_at: float | None = None) -> list[DecisionRow]:
        """Every decision of a repository (those ingested by `believed_at`), oldest valid first."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT * FROM history_decisions WHERE repo_id = ? AND ingested_at <= ? ORDER BY valid_from, id",
            (repo_id, believed_at if believed_at is not None else float("inf")),
        )
        return [decision_row(r) for r in rows]

    def decision(self, decision_id: int) -> DecisionRow:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_decisions WHERE id = ?", (decision_id,)).fetchone()
        if row is None:
            raise NotFound(f"no decision with id {decision_id}")
        return decision_row(row)

    def unchecked(self, repo_id: int) -> list[DecisionRow]:
        """The decisions stored before their speaker's authority and their grounding were
        checked (either left NULL), oldest first."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT * FROM history_decisions WHERE repo_id = ? AND (grounding IS NULL OR authority IS NULL)"
            " ORDER BY valid_from, id",
            (repo_id,),
        )
        return [decision_row(r) for r in rows]

    def set_checks(self, decision_id: int, authority: str, grounding: str) -> None:
        """Record a later check of a stored decision: the rule granting authority ("none" when
        none does) and its grounding. The statement, quote and source are never rewritten."""
        conn = self.store.connect()
        conn.execute(
            "UPDATE history_decisions SET authority = ?, grounding = ? WHERE id = ?",
            (authority, grounding, decision_id),
        )

    # -- what extract has read -----------------------------------------------------------------

    def marks(self, repo_id: int, extracted_by: str | None = None) -> dict[str, str]:
        """source -> digest of what was read, for every source extract has finished (by the
        model and prompt `extracted_by` names, when given: another model's reading is not its)."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT source, digest FROM history_decision_marks WHERE repo_id = ?"
            " AND (CAST(? AS TEXT) IS NULL OR extracted_by = ?) ORDER BY at",
            (repo_id, extracted_by, extracted_by),
        )
        return {source: digest for source, digest in rows}

    def mark(self, repo_id: int, source: str, digest: str, extracted_by: str, kept: int) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO history_decision_marks (repo_id, source, digest, extracted_by, kept, at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (repo_id, source, extracted_by) DO UPDATE SET"
            " digest = excluded.digest, kept = excluded.kept, at = excluded.at",
            (repo_id, source, digest, extracted_by, kept, time.time()),
        )
