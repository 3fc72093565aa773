"""SQL for agent sessions: which projects a session works on and what it activated.

Kept in the store so `usage` and the web UI can show it, and so two server processes at once
(two agents) never lose each other's records. What a session was sent is bookkeeping: an agent
must never wait for it behind a long writer (a book import), so `WriteBehind` tries it with a
short wait and otherwise finishes it in the background, in order.
"""

from __future__ import annotations

import atexit
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lore.core.errors import StoreError
from lore.core.store.base import Migration, StoreBusy, StoreReadOnly
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
        postgres="""
        CREATE TABLE session_projects (
            session_id TEXT NOT NULL,
            project_id BIGINT NOT NULL,
            reason TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (session_id, project_id, reason)
        );
        CREATE TABLE activations (
            session_id TEXT NOT NULL,
            rule_id TEXT NOT NULL,
            project_id BIGINT NOT NULL,
            outcome TEXT NOT NULL,
            reason TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX activations_by_session ON activations(session_id, outcome);
        """,
    ),
]


QUICK_WAIT_MS = 50  # how long a bookkeeping write may wait for another writer before going behind

Write = Callable[[int | None], None]  # given a wait in ms (None: the store's usual patience)


class WriteBehind:
    """Bookkeeping writes that never keep an agent waiting on another process's long write.

    A write is tried at once with a short wait; if another writer holds the store, it joins a
    queue a background thread works through in order (with the store's usual patience). While
    anything is queued, later writes queue behind it so their order is kept.
    """

    def __init__(self) -> None:
        self._queue: deque[Write] = deque()
        self._cond = threading.Condition()
        self._worker: threading.Thread | None = None
        _live_writers.add(self)

    def submit(self, write: Write) -> None:
        with self._cond:
            if not self._queue:
                try:
                    write(QUICK_WAIT_MS)
                    return
                except StoreReadOnly:
                    return
                except StoreBusy:
                    pass
            self._queue.append(write)
            if self._worker is None:
                self._worker = threading.Thread(target=self._drain, name="lore-write-behind", daemon=True)
                self._worker.start()

    def _drain(self) -> None:
        while True:
            with self._cond:
                if not self._queue:
                    self._worker = None
                    self._cond.notify_all()
                    return
                write = self._queue[0]
            try:
                write(None)
            except StoreError as exc:  # bookkeeping only: say so once, keep the agent working
                sys.stderr.write(f"lore: a session record was not saved: {exc}\n")
            with self._cond:
                self._queue.popleft()
                self._cond.notify_all()

    @property
    def pending(self) -> int:
        with self._cond:
            return len(self._queue)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued write is done; False if `timeout` passed first."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue, timeout)


_live_writers: weakref.WeakSet[WriteBehind] = weakref.WeakSet()


@atexit.register
def _flush_at_exit() -> None:
    """A server that stops (the agent quit) still saves what it queued, within reason."""
    for writer in list(_live_writers):
        writer.flush(timeout=60)


@dataclass(frozen=True)
class Outcome:
    """One gate decision a session recorded for a rule (activated, pending...) and why."""

    session_id: str
    rule_id: str
    outcome: str
    reason: str
    at: float


class SessionStore:
    def __init__(self, rules: RulesStore):
        self.rules = rules
        self.store = rules.store

    def record_reply(
        self,
        session_id: str,
        project_id: int,
        *,
        reasons: Iterable[str] = (),
        served: Iterable[str] = (),
        notes: Iterable[str] = (),
        take_setup: bool = False,
        wait_ms: int | None = None,
    ) -> None:
        """What one get_rules reply delivered, in one small transaction."""
        with self.store.transaction(wait_ms=wait_ms):
            for reason in reasons:
                self.add_project(session_id, project_id, reason)
            self.rules.record_served(session_id, project_id, served)
            self.rules.add_notes(session_id, project_id, notes)
            if take_setup:
                self.rules.take_setup_pending(project_id)

    def insert_session(
        self, session_id: str, cwd: str | None, client: str | None, wait_ms: int | None = None
    ) -> None:
        with self.store.transaction(wait_ms=wait_ms):
            self.rules.insert_session(session_id, cwd, client)

    def add_project(self, session_id: str, project_id: int, reason: str) -> None:
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO session_projects (session_id, project_id, reason, at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (session_id, project_id, reason, time.time()),
            )

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

    def outcomes(self, project_id: int, limit: int = 200) -> list[Outcome]:
        """What sessions did with the project's rules, newest first."""
        rows = self.store.connect().execute(
            "SELECT session_id, rule_id, outcome, reason, at FROM activations WHERE project_id = ?"
            " ORDER BY at DESC LIMIT ?",
            (project_id, limit),
        )
        return [Outcome(*r) for r in rows]


def session_store() -> SessionStore:
    rules = rules_store()
    rules.store.migrate(MIGRATIONS + SESSION_MIGRATIONS)
    return SessionStore(rules)
