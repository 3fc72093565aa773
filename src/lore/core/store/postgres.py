"""The PostgreSQL backend: the same `Store` API over a shared database.

Chosen by `LORE_DATABASE_URL=postgresql://...` or `database_url` in `config.json`. The store
modules do not change: each thread is handed one connection from a `psycopg_pool` pool, which
speaks the subset of sqlite3's interface the stores use (`postgres_connection`); a statement
reaches the server as the store module wrote it, its placeholders given psycopg's paramstyle.

Writers queue as they do in SQLite: every write transaction takes one advisory lock first, so a
check and the write it permits (a duplicate rule, a contradiction, an auto-save limit) can never
interleave with another writer's, in this process or on another machine. Reads never wait for
it. Driver errors arrive as the same `StoreError` family with one line naming the database
(`postgres_errors`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg_pool

from lore.core.errors import StoreError
from lore.core.store.base import (
    Migration,
    Store,
    StoreOutdated,
    StoreReadOnly,
    read_only_message,
)
from lore.core.store.postgres_connection import Connection, configure

# every writer takes this transaction-scoped advisory lock first (an arbitrary, fixed number)
WRITE_LOCK = 0x4C6F7265  # "Lore"
JOB_LOCKS = 0x4C6F72  # the namespace of `exclusive`'s keys (two-int advisory locks)
CONNECT_TIMEOUT_S = 10
POOL_SIZE = 16


def safe_url(url: str) -> str:
    """The URL without its password, for messages and `lore store check`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, f"{user}{host}{port}", parts.path, parts.query, parts.fragment))


class _Lease:
    """A thread's connection, handed back to the pool when the thread ends."""

    def __init__(self, pool: psycopg_pool.ConnectionPool[Any], conn: Connection):
        self.pool = pool
        self.conn = conn

    def __del__(self) -> None:
        with suppress(Exception):
            if not self.pool.closed:
                self.pool.putconn(self.conn.raw)


class PgStore(Store):
    """A PostgreSQL database shared by every domain (and every member of a team)."""

    dialect = "postgres"

    def __init__(self, url: str, read_only: bool | None = None):
        self.url = url
        self.label = safe_url(url)
        # `path` keys per-store caches in the domains: the URL (without its password) is unique
        self.path = Path(self.label)
        self._local = threading.local()
        self._migrated: set[str] = set()
        self._lock = threading.Lock()  # one migration run at a time
        self._pool_lock = threading.Lock()
        self._forced_read_only = read_only
        self._read_only: bool | None = None
        self._pool: psycopg_pool.ConnectionPool[Any] | None = None
        self._keys: dict[str, tuple[str, ...]] = {}
        self.damage = None
        self.write_cleared = True

    # -- connections -----------------------------------------------------------------------
    def _open_pool(self) -> psycopg_pool.ConnectionPool[Any]:
        with self._pool_lock:
            if self._pool is None:
                try:  # one direct connection first, so a wrong URL fails with the server's reason
                    psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S).close()
                except psycopg.Error as exc:
                    first = (str(exc).strip().splitlines() or ["no reason given"])[0]
                    raise StoreError(f"cannot connect to the database at {self.label} ({first})") from None
                self._pool = psycopg_pool.ConnectionPool(
                    self.url,
                    min_size=0,
                    max_size=POOL_SIZE,
                    kwargs={
                        "autocommit": True,
                        "connect_timeout": CONNECT_TIMEOUT_S,
                        "options": f"-c synchronous_commit={_configured_commit()}",
                    },
                    configure=configure,
                    open=True,
                    timeout=60,
                )
            return self._pool

    def connect(self) -> Any:
        lease: _Lease | None = getattr(self._local, "lease", None)
        if lease is None:
            pool = self._open_pool()
            try:
                raw = pool.getconn()
            except psycopg_pool.PoolTimeout:
                raise StoreError(f"no connection to the database at {self.label} came free in time") from None
            lease = _Lease(pool, Connection(self.label, raw))
            self._local.lease = lease
        return lease.conn

    @property
    def read_only(self) -> bool:
        """Asked for (`store.read_only`), or the server only serves reads (a replica)."""
        if self._read_only is None:
            forced = self._forced_read_only
            if forced is None:
                forced = _configured_read_only()
            if not forced:
                row = self.connect().execute("SHOW transaction_read_only").fetchone()
                forced = row is not None and row[0] == "on"
            self._read_only = bool(forced)
        return self._read_only

    def ensure_writable(self) -> None:
        if self.read_only:
            raise StoreReadOnly(read_only_message(Path(self.label)))

    def mark_damaged(self, reason: str) -> None:
        """The server keeps its own pages whole; nothing to remember here."""

    def primary_key(self, table: str) -> tuple[str, ...]:
        """The primary-key columns of a table, in key order (`lore store migrate` merges on them)."""
        keys = self._keys.get(table)
        if keys is None:
            rows = (
                self.connect()
                .raw.execute(
                    "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
                    " AND a.attnum = ANY(i.indkey) WHERE i.indrelid = to_regclass(%s) AND i.indisprimary"
                    " ORDER BY array_position(i.indkey, a.attnum)",
                    (table,),
                )
                .fetchall()
            )
            keys = self._keys[table] = tuple(r[0] for r in rows)
        return keys

    # -- transactions and migrations ----------------------------------------------------------
    @contextmanager
    def transaction(self, *, wait_ms: int | None = None) -> Iterator[Any]:
        """A write transaction that waits for the one writer before it (see the module doc).

        `wait_ms` bounds that wait (StoreBusy after it), as in SQLite.
        """
        conn = self.connect()
        if conn.in_transaction:  # nested: join the outer transaction
            yield conn
            return
        self.ensure_writable()
        # one round trip: the transaction, the bound on the wait, the writer lock, the bound off
        wait = f"SET LOCAL lock_timeout = {int(wait_ms)}; " if wait_ms is not None else ""
        unwait = "; SET LOCAL lock_timeout = 0" if wait_ms is not None else ""
        try:
            with conn.translated():
                conn.raw.execute(
                    f"BEGIN ISOLATION LEVEL READ COMMITTED; {wait}SELECT pg_advisory_xact_lock({WRITE_LOCK}){unwait}"
                )
            yield conn
        except BaseException:
            if conn.in_transaction:
                with suppress(StoreError, psycopg.Error):
                    conn.raw.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[Any]:
        """`REPEATABLE READ`: every read inside sees the moment of its first, as in SQLite."""
        conn = self.connect()
        if conn.in_transaction:
            yield conn
            return
        with conn.translated():
            conn.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def migrate(self, migrations: Sequence[Migration]) -> None:
        """Apply the PostgreSQL text of each named migration not yet applied, in order."""
        key = ",".join(m.name for m in migrations)
        if key in self._migrated:
            return
        missing = [m.name for m in migrations if m.postgres is None]
        if missing:
            domain = missing[0].split("/")[0]
            raise StoreError(
                f"the {domain} store does not run on PostgreSQL yet (no PostgreSQL text for "
                f"{missing[0]}); unset LORE_DATABASE_URL to use the embedded store"
            )
        with self._lock:
            conn = self.connect()
            done = set(self._applied(conn))
            pending = [m for m in migrations if m.name not in done]
            if pending and self.read_only:
                raise StoreOutdated(
                    f"the database at {self.label} is read-only and needs {len(pending)} schema "
                    "update(s) before this version of Lore can use it; run it once writable",
                    absent=len(pending) == len(migrations),
                )
            for m in pending:
                with self.transaction() as tx:
                    tx.execute(
                        "CREATE TABLE IF NOT EXISTS schema_migrations"
                        " (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"
                    )
                    if tx.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (m.name,)).fetchone():
                        continue  # another process applied it meanwhile
                    if isinstance(m.postgres, str):
                        with tx.translated():
                            tx.raw.execute(m.postgres)  # several statements in one simple query
                    elif m.postgres is not None:
                        m.postgres(tx)
                    tx.execute(
                        "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                        (m.name, time.time()),
                    )
            self._keys.clear()
            self._migrated.add(key)

    def _applied(self, conn: Connection) -> list[str]:
        if conn.execute("SELECT to_regclass('schema_migrations')").fetchone()[0] is None:
            return []
        rows = conn.execute("SELECT name FROM schema_migrations ORDER BY applied_at, name")
        return [r[0] for r in rows]

    def applied_migrations(self) -> list[str]:
        return self._applied(self.connect())

    @contextmanager
    def exclusive(self, key: str) -> Iterator[bool]:
        """`key` held by a session advisory lock on a connection of its own for as long as the
        job runs: members on other machines see it taken, and a killed job's lock goes with its
        connection, so nothing is left to clear by hand."""
        with self._open_pool().connection() as raw:
            got = raw.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", (JOB_LOCKS, key)).fetchone()
            if not (got and got[0]):
                yield False
                return
            try:
                yield True
            finally:
                raw.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (JOB_LOCKS, key))

    def close(self) -> None:
        lease = getattr(self._local, "lease", None)
        self._local.lease = None
        pool, self._pool = self._pool, None
        if lease is not None and pool is not None:
            with suppress(Exception):
                pool.putconn(lease.conn.raw)
        if pool is not None:
            pool.close()


_COMMIT_LEVELS = ("off", "local", "remote_write", "on", "remote_apply")


def _configured_commit() -> str:
    """`synchronous_commit` for Lore's connections: `off` unless config.json's
    `store.synchronous_commit` names another level. Off matches SQLite's `synchronous = NORMAL`
    in WAL mode: a crash of the server can lose the last fraction of a second of commits, never
    corrupt or half-apply one, and a save does not wait for the disk (bench/store_backends.py measures it)."""
    from lore.core.config import read_raw, warn

    section = read_raw().get("store")
    value = section.get("synchronous_commit", "off") if isinstance(section, dict) else "off"
    if value not in _COMMIT_LEVELS:
        warn(f"store.synchronous_commit must be one of {', '.join(_COMMIT_LEVELS)}; using off")
        return "off"
    return str(value)


def _configured_read_only() -> bool:
    from lore.core.config import read_raw

    section = read_raw().get("store")
    return isinstance(section, dict) and section.get("read_only") is True
