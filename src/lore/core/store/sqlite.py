"""The embedded SQLite store.

One file under `$LORE_HOME`, WAL mode and a busy timeout so several processes (two agents at
once, the CLI and the web UI) can share it; one connection per thread because sqlite3
connections must not cross threads. Each domain owns a list of named migrations that are
applied once, in order, and never edited: a change is a new migration.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

from lore.core.errors import StoreError
from lore.core.store.base import (
    Migration,
    Store,
    StoreBusy,
    StoreOutdated,
    StoreReadOnly,
    damaged_message,
    read_only_message,
)
from lore.core.store.sqlite_connection import SqliteConnection
from lore.core.store.sqlite_file import connect_target, create_file, wants_read_only

BUSY_TIMEOUT_MS = 30_000


class SqliteStore(Store):
    """A SQLite file shared by every domain; hands each thread its own connection.

    Every driver error from a connection this store hands out arrives as a `StoreError` with one
    line naming the file (see `sqlite_connection`), so no call site needs its own try/except. Before the
    first write of a process the file is checked (`PRAGMA quick_check`), and a damaged file is
    never written to: a migration or a rule saved into a broken b-tree makes the damage worse and
    a backup harder to trust.
    """

    dialect = "sqlite"  # which SQL a store module writes where the engines differ

    def __init__(self, path: Path, read_only: bool | None = None):
        self.path = Path(path)
        self._local = threading.local()
        self._migrated: set[str] = set()
        self._lock = threading.Lock()
        self._forced_read_only = read_only
        self._read_only: bool | None = None
        self.damage: str | None = None  # set once the file is known to be damaged
        self.write_cleared = False  # checked healthy and writable in this process

    @property
    def read_only(self) -> bool:
        """Opened read-only: asked for (`store.read_only` in config.json) or the file or its
        folder is not writable. Decided once, on first open."""
        if self._read_only is None:
            self._read_only = wants_read_only(self.path, self._forced_read_only)
        return self._read_only

    def connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self) -> sqlite3.Connection:
        if self.path.exists():
            if self.path.is_dir():
                raise StoreError(f"the store at {self.path} is a folder, not a database file")
            if self.path.stat().st_size == 0:  # a new store is never left empty (see create_file)
                raise self._damaged("the file is empty")
        elif self.read_only:
            raise StoreError(f"there is no store at {self.path} and it was asked to open read-only")
        else:
            create_file(self.path)
        try:
            target, uri = connect_target(self.path, self.read_only)
            conn = sqlite3.connect(
                target,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=True,
                uri=uri,
                factory=SqliteConnection,
            )
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the store at {self.path} ({exc})") from None
        conn.store = self
        conn.row_factory = sqlite3.Row
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not self.read_only:
                _retry_locked(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
        except StoreError:
            conn.close()
            raise
        return conn

    def _damaged(self, reason: str) -> StoreError:
        self.mark_damaged(reason)
        return StoreError(damaged_message(self.path, reason))

    def mark_damaged(self, reason: str) -> None:
        """From now on this process refuses every write to the file."""
        self.damage = reason
        self.write_cleared = False

    def ensure_writable(self) -> None:
        """Refuse a write up front: read-only, or damaged (checked once per process)."""
        if self.read_only:
            raise StoreReadOnly(read_only_message(self.path))
        if self.damage is not None:
            raise StoreError(damaged_message(self.path, self.damage))
        if self.write_cleared:
            return
        rows = self.connect().execute("PRAGMA quick_check").fetchall()
        problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        if problems:
            raise self._damaged(problems[0][:200])
        self.write_cleared = True

    @contextmanager
    def transaction(self, *, wait_ms: int | None = None) -> Iterator[sqlite3.Connection]:
        """A write transaction taken up front (BEGIN IMMEDIATE), so writers queue, never deadlock.

        `wait_ms` bounds how long to wait for another writer (StoreBusy after it): for small
        bookkeeping writes that must never keep an agent waiting behind a long import.
        """
        conn = self.connect()
        if conn.in_transaction:  # nested: join the outer transaction
            yield conn
            return
        self.ensure_writable()
        if wait_ms is None:
            _retry_locked(lambda: conn.execute("BEGIN IMMEDIATE"))
        else:
            _begin_within(conn, wait_ms)
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:  # SQLite may already have rolled back (corruption, full disk)
                with suppress(sqlite3.Error, StoreError):
                    conn.execute("ROLLBACK")
            raise
        else:
            _retry_locked(lambda: conn.execute("COMMIT"))

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A deferred `BEGIN`: SQLite reads one snapshot from the first read to the `COMMIT`."""
        conn = self.connect()
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def migrate(self, migrations: Sequence[Migration]) -> None:
        """Apply the named migrations not yet applied; cheap after the first call per process."""
        key = ",".join(m.name for m in migrations)
        if key in self._migrated:
            return
        with self._lock:
            conn = self.connect()
            has_table = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
            ).fetchone()
            done = {r[0] for r in conn.execute("SELECT name FROM schema_migrations")} if has_table else set()
            pending = [m for m in migrations if m.name not in done]
            if pending:
                if self.read_only:
                    raise StoreOutdated(
                        f"the store at {self.path} is read-only and needs {len(pending)} schema "
                        "update(s) before this version of Lore can use it; open it once writable",
                        absent=len(pending) == len(migrations),
                    )
                self.ensure_writable()
                if not has_table:
                    with self.transaction() as tx:
                        tx.execute(
                            "CREATE TABLE IF NOT EXISTS schema_migrations ("
                            " name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
                        )
            for m in pending:
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
            self._migrated.add(key)

    def primary_key(self, table: str) -> tuple[str, ...]:
        """The primary-key columns of a table, in key order (`lore store migrate` merges on them)."""
        rows = self.connect().execute(f'PRAGMA table_info("{table}")').fetchall()
        return tuple(r[1] for r in sorted((r for r in rows if r[5]), key=lambda r: r[5]))

    def applied_migrations(self) -> list[str]:
        rows = self.connect().execute("SELECT name FROM schema_migrations ORDER BY applied_at, name")
        return [r[0] for r in rows]

    @contextmanager
    def exclusive(self, key: str) -> Iterator[bool]:
        """Hold `key` across processes and machines for a long job (an ingest), or yield False
        if someone else holds it. An embedded file is one machine's: its users keep a row naming
        their process, so there is nothing more to take here."""
        yield True

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


def _begin_within(conn: sqlite3.Connection, wait_ms: int) -> None:
    """BEGIN IMMEDIATE with a short busy timeout (StoreBusy after it), restored either way."""
    conn.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
    try:
        conn.execute("BEGIN IMMEDIATE")
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def _retry_locked(fn: Callable[[], object], attempts: int = 60) -> object:
    """Retry an operation that failed with 'database is locked' past the busy timeout's reach.

    BEGIN IMMEDIATE and WAL switching can report SQLITE_BUSY at once under contention.
    """
    delay = 0.01
    for attempt in range(attempts):
        try:
            return fn()
        except StoreBusy:
            if attempt == attempts - 1:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
    return None
