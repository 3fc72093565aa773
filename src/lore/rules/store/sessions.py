"""SQL for agent sessions: which projects a session works on and what it activated.

Kept in the store (not in memory) so `usage` and the web UI can show it, and so two server
processes at once (two agents) never lose each other's records.
"""

from __future__ import annotations

import time

from lore.core.store import Migration
from lore.rules.store.rules import MIGRATIONS, RulesStore, rules_store

SESSION_MIGRATIONS = [
    Migration(
        "rules/0100_session_projects_activations",
        """
        CREATE TABLE session_projects (
            session_id TEXT NOT NULL,
            project_id INTEGER NOT NULL,
            reason TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (session_id, project_id, reason)
        );
        CREATE TABLE activations (
            session_id TEXT NOT NULL,
            rule_id TEXT NOT NULL,
            project_id INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            reason TEXT NOT NULL,
            at REAL NOT NULL
        );
        CREATE INDEX activations_by_session ON activations(session_id, outcome);
        """,
    ),
]


class SessionStore:
    def __init__(self, rules: RulesStore):
        self.rules = rules
        self.store = rules.store

    def add_project(self, session_id: str, project_id: int, reason: str) -> None:
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT OR IGNORE INTO session_projects (session_id, project_id, reason, at)"
                " VALUES (?, ?, ?, ?)",
                (session_id, project_id, reason, time.time()),
            )

    def project_ids(self, session_id: str) -> set[int]:
        rows = self.store.connect().execute(
            "SELECT DISTINCT project_id FROM session_projects WHERE session_id = ?", (session_id,)
        )
        return {r[0] for r in rows}

    def record_outcome(
        self, session_id: str, rule_id: str, project_id: int, outcome: str, reason: str
    ) -> None:
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO activations (session_id, rule_id, project_id, outcome, reason, at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, rule_id, project_id, outcome, reason, time.time()),
            )

    def activated_count(self, session_id: str) -> int:
        row = (
            self.store.connect()
            .execute(
                "SELECT COUNT(*) FROM activations WHERE session_id = ? AND outcome = 'activated'",
                (session_id,),
            )
            .fetchone()
        )
        return row[0]

    def outcomes(self, project_id: int, limit: int = 200) -> list[dict]:
        rows = self.store.connect().execute(
            "SELECT session_id, rule_id, outcome, reason, at FROM activations WHERE project_id = ?"
            " ORDER BY at DESC LIMIT ?",
            (project_id, limit),
        )
        return [dict(r) for r in rows]


def session_store() -> SessionStore:
    rules = rules_store()
    rules.store.migrate(MIGRATIONS + SESSION_MIGRATIONS)
    return SessionStore(rules)
