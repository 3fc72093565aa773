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
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from lore.core.config import read_raw
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

BUSY_TIMEOUT_MS = 30_000


class SqliteStore(Store):
    """A SQLite file shared by every domain; hands each thread its own connection.

    Every driver error from a connection this store hands out arrives as a `StoreError` with one
    line naming the file (see `_Connection`), so no call site needs its own try/except. Before the
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
            self._read_only = _wants_read_only(self.path, self._forced_read_only)
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
            if self.path.stat().st_size == 0:  # a new store is never left empty (see _create)
                raise self._damaged("the file is empty")
        elif self.read_only:
            raise StoreError(f"there is no store at {self.path} and it was asked to open read-only")
        else:
            _create(self.path)
        try:
            target, uri = _target(self.path, self.read_only)
            conn = sqlite3.connect(
                target,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=True,
                uri=uri,
                factory=_Connection,
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


def _wants_read_only(path: Path, forced: bool | None) -> bool:
    if forced is not None:
        return forced
    section = read_raw().get("store")
    if isinstance(section, dict) and section.get("read_only") is True:
        return True
    if not path.exists():
        return False
    # os.access, not the mode bits: it answers for this user (root may write a 0444 file)
    return not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)


def _target(path: Path, read_only: bool) -> tuple[str | Path, bool]:
    """What sqlite3.connect is given: the path, or a read-only URI.

    In a folder Lore cannot write, SQLite cannot create the WAL index (`-shm`) it needs even to
    read, so a file with no `-wal` beside it is opened as immutable: nobody can be writing it.
    """
    if not read_only:
        return path, False
    query = "mode=ro"
    wal = path.with_name(path.name + "-wal")
    if not os.access(path.parent, os.W_OK) and not wal.exists():
        query += "&immutable=1"
    return f"{path.resolve().as_uri()}?{query}", True


def _create(path: Path) -> None:
    """Make a new, empty store whole before it appears under its name.

    SQLite creates a zero-byte file and fills in its header later, so another process opening
    the name in between would see an empty file; an empty file is treated as damage (a truncated
    store must not silently become a new one), so the new file is built under a temporary name
    and linked into place, which fails if someone else got there first.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.new")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it meanwhile: use theirs
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(tmp, path)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot create the store at {path} ({exc})") from None
    except OSError as exc:  # e.g. a folder Lore may not write
        raise StoreError(f"cannot create the store at {path} ({exc.strerror or exc})") from None
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
            with suppress(FileNotFoundError):
                leftover.unlink()


class _Cursor(sqlite3.Cursor):
    """A cursor whose driver errors arrive as `StoreError` (reads can hit a damaged page late).

    Plain try/except rather than a context manager: these run once per row, and an unraised
    `try` costs nothing, while a generator-based context manager would cost more than the row.
    """

    connection: _Connection

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        conn = self.connection
        if not conn.in_transaction and not conn.store.write_cleared:
            _check_write(conn, sql)
        try:
            return super().execute(sql, parameters)
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, conn) from None

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> _Cursor:
        conn = self.connection
        if not conn.in_transaction and not conn.store.write_cleared:
            _check_write(conn, sql)
        try:
            return super().executemany(sql, seq_of_parameters)
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, conn) from None

    def executescript(self, sql_script: str, /) -> sqlite3.Cursor:
        conn = self.connection
        if not conn.in_transaction and not conn.store.write_cleared:
            _check_write(conn, sql_script)
        try:
            return super().executescript(sql_script)
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, conn) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, self.connection) from None

    def fetchmany(self, size: int | None = None) -> list[Any]:
        try:
            return super().fetchmany(self.arraysize if size is None else size)
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, self.connection) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, self.connection) from None

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, self.connection) from None


def _check_write(conn: _Connection, sql: str) -> None:
    """A write outside `SqliteStore.transaction` gets the same health and read-only check.

    A plain (deferred) `BEGIN` only opens a read snapshot, so it is not a write; `BEGIN
    IMMEDIATE` / `EXCLUSIVE` take the write lock and are."""
    head = sql.lstrip()[:24].upper()
    if head.startswith(_WRITES + _WRITE_BEGINS):
        conn.store.ensure_writable()


class _Connection(sqlite3.Connection):
    """The one place driver errors become Lore's: every statement runs through `_Cursor`."""

    store: SqliteStore

    def cursor(self, factory: Any = _Cursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> _Cursor:
        return self.cursor().executemany(sql, parameters)

    def executescript(self, sql_script: str, /) -> _Cursor:
        return self.cursor().executescript(sql_script)

    def commit(self) -> None:
        try:
            super().commit()
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, self) from None


_DAMAGE = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "VACUUM")
_WRITE_BEGINS = ("BEGIN IMMEDIATE", "BEGIN EXCLUSIVE")


def _translate(exc: sqlite3.DatabaseError, conn: _Connection) -> Exception:
    """A driver error as a one-line `StoreError` naming the file and what to do.

    Constraint failures (`IntegrityError`) come back unchanged: they are answers the domain code
    asks for (a duplicate name), not failures. So do programming errors (a closed connection, a
    wrong number of parameters): those are bugs, and a message about the file would hide them.
    """
    if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError):
        return exc
    store = getattr(conn, "store", None)
    path = store.path if store is not None else Path("?")
    name = getattr(exc, "sqlite_errorname", "") or ""
    reason = str(exc)
    if name.startswith(_DAMAGE) or "malformed" in reason or "not a database" in reason:
        if store is not None:
            store.mark_damaged(reason)
        return StoreError(damaged_message(path, reason))
    if name.startswith("SQLITE_READONLY"):
        return StoreReadOnly(read_only_message(path))
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in reason:
        return StoreBusy(
            f"the store at {path} stayed busy ({reason}): another Lore process is writing; try again"
        )
    if name.startswith("SQLITE_FULL"):
        return StoreError(f"the disk holding the store at {path} is full; nothing was written")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_PERM", "SQLITE_AUTH")):
        return StoreError(f"cannot read or write the store at {path} ({reason})")
    return StoreError(f"the store at {path} failed ({reason}); nothing was written")


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
