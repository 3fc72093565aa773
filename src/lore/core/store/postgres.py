"""The PostgreSQL backend: the same `Store` API over a shared database.

Chosen by `LORE_DATABASE_URL=postgresql://...` or `database_url` in `config.json`. The store
modules do not change: each thread is handed one connection from a `psycopg_pool` pool, and
that connection speaks the subset of sqlite3's interface the stores use (`execute`,
`executemany`, rows readable by position and by name, `rowcount`, `in_transaction`) with their
SQL rewritten by `dialect.to_postgres`.

Writers queue as they do in SQLite: every write transaction takes one advisory lock first, so a
check and the write it permits (a duplicate rule, a contradiction, an auto-save limit) can never
interleave with another writer's, in this process or on another machine. Reads never wait for
it. Driver errors arrive as the same `StoreError` family with one line naming the database.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg_pool
from psycopg import errors as pg_errors
from psycopg.adapt import Dumper, Loader
from psycopg.pq import TransactionStatus

from lore.core.errors import StoreError
from lore.core.store.base import (
    Migration,
    Store,
    StoreBusy,
    StoreOutdated,
    StoreReadOnly,
    read_only_message,
)
from lore.core.store.dialect import to_postgres

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


class Row(tuple):
    """A row readable by position and by column name, as sqlite3.Row is."""

    __slots__ = ()
    _index: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


@lru_cache(maxsize=1024)
def _row_class(names: tuple[str, ...]) -> type[Row]:
    index = {name: i for i, name in reversed(list(enumerate(names)))}  # the first of a repeated name
    return type("Row", (Row,), {"__slots__": (), "_index": index})


def _row_factory(cursor: Any) -> Any:
    if cursor.description is None:
        return tuple
    cls = _row_class(tuple(col.name for col in cursor.description))
    return lambda values: tuple.__new__(cls, values)


class _NumericLoader(Loader):
    """SUM and AVG of integers come back as `numeric`; SQLite gives an int or a float."""

    def load(self, data: Any) -> Any:
        text = bytes(data).decode()
        try:
            return int(text)
        except ValueError:  # a fraction, an exponent or NaN
            return float(Decimal(text))


class _BoolAsInt(Dumper):
    """Stores pass Python booleans for INTEGER flag columns, which SQLite takes as 0 and 1."""

    oid = 20  # int8

    def dump(self, obj: Any) -> bytes:
        return b"1" if obj else b"0"


class Cursor:
    """What a statement returns: rows, `rowcount`; driver errors arrive as `StoreError`."""

    def __init__(self, conn: Connection, cur: psycopg.Cursor[Any]):
        self._conn = conn
        self._cur = cur

    @property
    def rowcount(self) -> int:
        return self._cur.rowcount

    @property
    def description(self) -> Any:
        return self._cur.description

    def fetchone(self) -> Any:
        if self._cur.description is None:
            return None
        with self._conn.translated():
            return self._cur.fetchone()

    def fetchall(self) -> list[Any]:
        if self._cur.description is None:
            return []
        with self._conn.translated():
            return self._cur.fetchall()

    def fetchmany(self, size: int | None = None) -> list[Any]:
        if self._cur.description is None:
            return []
        with self._conn.translated():
            return self._cur.fetchmany(size or self._cur.arraysize)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class Connection:
    """One pooled connection in autocommit mode, speaking the stores' sqlite3 subset."""

    def __init__(self, store: PgStore, raw: psycopg.Connection[Any]):
        self.store = store
        self.raw = raw

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, parameters: Any = ()) -> Cursor:
        text = to_postgres(sql, self.store.primary_key)
        cur = self.raw.cursor()
        with self.translated():
            cur.execute(text, _params(parameters))
        return Cursor(self, cur)

    def executemany(self, sql: str, seq_of_parameters: Any) -> Cursor:
        text = to_postgres(sql, self.store.primary_key)
        cur = self.raw.cursor()
        rows = [_params(p) for p in seq_of_parameters]
        if rows:
            with self.translated():
                cur.executemany(text, rows)
        return Cursor(self, cur)

    def commit(self) -> None:
        if self.in_transaction:
            self.execute("COMMIT")

    def insert_rows(
        self,
        table: str,
        columns: Sequence[str],
        rows: Iterable[Sequence[Any]],
        *,
        ignore_conflicts: bool = False,
    ) -> None:
        """Bulk rows through `COPY ... FROM STDIN`: one stream where `executemany` sends a
        statement per row, so a large write (a history ingest) costs one round trip, not one per row.

        `ignore_conflicts` is `INSERT OR IGNORE`: the rows go to a temporary copy of the table
        first (emptied at commit) and on with `ON CONFLICT DO NOTHING` in the order given, so the
        first of two rows with one key wins, as in SQLite. Run it inside a transaction.
        """
        names = ", ".join(columns)
        target = f"lore_copy_{table}" if ignore_conflicts else table
        with self.translated():  # PostgreSQL's own text: nothing here for the dialect to rewrite
            if ignore_conflicts:
                self.raw.execute(
                    f"CREATE TEMP TABLE IF NOT EXISTS {target} (LIKE {table} INCLUDING DEFAULTS,"
                    " lore_seq BIGINT GENERATED ALWAYS AS IDENTITY) ON COMMIT DELETE ROWS"
                )
            with self.raw.cursor().copy(f"COPY {target} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            if ignore_conflicts:
                self.raw.execute(
                    f"INSERT INTO {table} ({names}) SELECT {names} FROM {target} ORDER BY lore_seq"
                    " ON CONFLICT DO NOTHING"
                )
                self.raw.execute(f"TRUNCATE {target}")

    @contextmanager
    def translated(self) -> Iterator[None]:
        try:
            yield
        except psycopg.Error as exc:
            raise _translate(exc, self.store) from None


def _params(parameters: Any) -> Any:
    """sqlite3 takes any sequence or a mapping; psycopg wants a tuple/list or a dict."""
    if isinstance(parameters, dict | list | tuple):
        return parameters
    return tuple(parameters)


class IntegrityError(sqlite3.IntegrityError):
    """A constraint collision on PostgreSQL, raised as sqlite3's so a store catches one kind
    (`except sqlite3.IntegrityError` turns it into `AlreadyExists` on either backend)."""


def _translate(exc: psycopg.Error, store: PgStore) -> Exception:
    """A driver error as one line naming the database; collisions and bugs pass through."""
    label = store.label
    reason = (str(exc).strip().splitlines() or [exc.__class__.__name__])[0]
    if isinstance(exc, psycopg.IntegrityError):
        return IntegrityError(reason)
    if isinstance(exc, pg_errors.LockNotAvailable | pg_errors.QueryCanceled | pg_errors.DeadlockDetected):
        return StoreBusy(
            f"the database at {label} stayed busy ({reason}): another Lore process is writing; try again"
        )
    if isinstance(exc, pg_errors.ReadOnlySqlTransaction):
        return StoreReadOnly(read_only_message(Path(label)))
    if isinstance(exc, pg_errors.DiskFull):
        return StoreError(f"the disk holding the database at {label} is full; nothing was written")
    if isinstance(exc, pg_errors.SyntaxErrorOrAccessRuleViolation) and not isinstance(
        exc, pg_errors.InsufficientPrivilege | pg_errors.InvalidAuthorizationSpecification
    ):
        return exc  # a statement this code got wrong: a bug, and the driver's message says where
    if isinstance(exc, psycopg.OperationalError):
        return StoreError(f"cannot reach the database at {label} ({reason})")
    return StoreError(f"the database at {label} failed ({reason}); nothing was written")


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
                    configure=_configure,
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
            lease = _Lease(pool, Connection(self, raw))
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
        """The primary-key columns of a table (what `INSERT OR REPLACE` conflicts on)."""
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


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Every pooled connection reads and writes values as the stores expect from SQLite.

    Commits do not wait for the WAL flush unless `store.synchronous_commit` in config.json says
    so (see `_configured_commit`).
    """
    conn.row_factory = _row_factory
    conn.adapters.register_loader("numeric", _NumericLoader)
    conn.adapters.register_dumper(bool, _BoolAsInt)


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
