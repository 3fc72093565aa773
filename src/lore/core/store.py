"""The embedded SQLite store.

One file under `$LORE_HOME`, WAL mode and a busy timeout so several processes (two agents at
once, the CLI and the web UI) can share it; one connection per thread because sqlite3
connections must not cross threads. Each domain owns a list of named migrations that are
applied once, in order, and never edited: a change is a new migration.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lore.core.errors import StoreError
from lore.core.home import ensure_home

DB_NAME = "lore.db"
BUSY_TIMEOUT_MS = 30_000


@dataclass(frozen=True)
class Migration:
    """A named, append-only schema step: SQL text, or a function given the connection."""

    name: str
    apply: str | Callable[[sqlite3.Connection], None]


class Store:
    """A SQLite file shared by every domain; hands each thread its own connection."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._migrated: set[str] = set()
        self._lock = threading.Lock()

    def connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=True,
            )
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _retry_locked(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the store at {self.path}: {exc}") from exc
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction taken up front (BEGIN IMMEDIATE), so writers queue, never deadlock."""
        conn = self.connect()
        if conn.in_transaction:  # nested: join the outer transaction
            yield conn
            return
        _retry_locked(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            _retry_locked(lambda: conn.execute("COMMIT"))

    def migrate(self, migrations: Sequence[Migration]) -> None:
        """Apply the named migrations not yet applied; cheap after the first call per process."""
        key = ",".join(m.name for m in migrations)
        if key in self._migrated:
            return
        with self._lock:
            conn = self.connect()
            try:
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    " name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
                )
                done = {r[0] for r in conn.execute("SELECT name FROM schema_migrations")}
                for m in migrations:
                    if m.name in done:
                        continue
                    with self.transaction() as tx:
                        if tx.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (m.name,)).fetchone():
                            continue  # another process applied it meanwhile
                        if isinstance(m.apply, str):
                            for statement in _split_sql(m.apply):
                                tx.execute(statement)
                        else:
                            m.apply(tx)
                        tx.execute(
                            "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                            (m.name, time.time()),
                        )
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"the store at {self.path} is damaged or not a database: {exc}") from exc
            self._migrated.add(key)

    def applied_migrations(self) -> list[str]:
        rows = self.connect().execute("SELECT name FROM schema_migrations ORDER BY applied_at, name")
        return [r[0] for r in rows]

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _split_sql(script: str) -> list[str]:
    """Split a migration script into statements (sqlite3 runs one per execute)."""
    statements, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                statements.append(buf.strip())
            buf = ""
    if buf.strip():
        statements.append(buf.strip())
    return statements


def _retry_locked(fn: Callable[[], object], attempts: int = 60) -> object:
    """Retry an operation that failed with 'database is locked' past the busy timeout's reach.

    BEGIN IMMEDIATE and WAL switching can report SQLITE_BUSY at once under contention.
    """
    delay = 0.01
    for attempt in range(attempts):
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if attempt == attempts - 1:
                raise StoreError(f"the store stayed busy: {exc}") from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
    return None


_stores: dict[str, Store] = {}
_stores_lock = threading.Lock()


def open_store(path: Path | None = None) -> Store:
    """The process-wide Store for a file (default `$LORE_HOME/lore.db`)."""
    key = str(path) if path else "home:" + os.environ.get("LORE_HOME", "")
    store = _stores.get(key)
    if store is not None:
        return store
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            target = Path(path) if path else ensure_home() / DB_NAME
            store = _stores[key] = Store(target.resolve())
        return store


def forget_stores() -> None:
    """Close and drop cached stores (tests switch `$LORE_HOME` between cases)."""
    with _stores_lock:
        for store in _stores.values():
            store.close()
        _stores.clear()
