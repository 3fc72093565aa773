"""Sessions, what each was served, and the notes a session was given (set-up notes among them)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from lore.rules.store.rules.base import RulesTables

SETUP_PENDING = "*setup*"  # a session id no real session has: marks projects awaiting set-up


class Serving(RulesTables):
    """Sessions, served rules and their counts, and notes given once per session and project."""

    def insert_session(self, session_id: str, cwd: str | None, client: str | None) -> None:
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO sessions (id, started_at, cwd, client, pid) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (session_id, time.time(), cwd, client, os.getpid()),
            )

    def record_served(self, session_id: str, project_id: int, rule_ids: Iterable[str]) -> None:
        ids = list(rule_ids)
        if not ids:
            return
        now = time.time()
        with self.store.transaction() as tx:
            tx.executemany(
                "INSERT INTO served (session_id, rule_id, project_id, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (session_id, rule_id) DO UPDATE SET project_id = excluded.project_id, at = excluded.at",
                [(session_id, rid, project_id, now) for rid in ids],
            )
            tx.executemany(
                "UPDATE rules SET served_count = served_count + 1, last_served_at = ? WHERE id = ?",
                [(now, rid) for rid in ids],
            )

    def notes(self, session_id: str, project_id: int, prefix: str = "") -> set[str]:
        rows = self._conn().execute(
            # case-blind on both engines, as SQLite's LIKE is
            "SELECT note FROM session_notes WHERE session_id = ? AND project_id = ? AND lower(note) LIKE lower(?)",
            (session_id, project_id, prefix + "%"),
        )
        return {r[0] for r in rows}

    def claim_note(self, session_id: str, project_id: int, note: str) -> bool:
        """Record a note as given; True only for the caller that recorded it first."""
        with self.store.transaction() as tx:
            cur = tx.execute(
                "INSERT INTO session_notes (session_id, project_id, note, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (session_id, project_id, note, time.time()),
            )
            return cur.rowcount == 1

    def mark_setup_pending(self, project_id: int) -> None:
        """A project an agent just registered: its next reply in your repository says how to set it up."""
        self.claim_note(SETUP_PENDING, project_id, "setup")

    def setup_pending(self, project_id: int) -> bool:
        """Whether a set-up note still waits for the project (a read: it never waits on a writer)."""
        return bool(self.notes(SETUP_PENDING, project_id, "setup"))

    def take_setup_pending(self, project_id: int) -> bool:
        with self.store.transaction() as tx:
            cur = tx.execute(
                "DELETE FROM session_notes WHERE session_id = ? AND project_id = ? AND note = 'setup'",
                (SETUP_PENDING, project_id),
            )
            return cur.rowcount == 1

    def add_notes(self, session_id: str, project_id: int, notes: Iterable[str]) -> None:
        items = list(notes)
        if not items:
            return
        now = time.time()
        with self.store.transaction() as tx:
            tx.executemany(
                "INSERT INTO session_notes (session_id, project_id, note, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(session_id, project_id, n, now) for n in items],
            )
