"""The connection `SqliteStore` hands each thread: sqlite3's, with Lore's errors and checks.

Every statement runs through `SqliteCursor`, so a driver error arrives as a one-line
`StoreError` naming the file (`translate`) and no call site needs its own try/except; a write
run outside `SqliteStore.transaction` gets the same health and read-only check as one inside.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from lore.core.errors import StoreError
from lore.core.store.base import (
    Store,
    StoreBusy,
    StoreReadOnly,
    damaged_message,
    read_only_message,
)


class SqliteCursor(sqlite3.Cursor):
    """A cursor whose driver errors arrive as `StoreError` (reads can hit a damaged page late).

    Plain try/except rather than a context manager: these run once per row, and an unraised
    `try` costs nothing, while a generator-based context manager would cost more than the row.
    """

    connection: SqliteConnection

    def execute(self, sql: str, parameters: Any = (), /) -> SqliteCursor:
        conn = self.connection
        if not conn.in_transaction and not conn.store.write_cleared:
            _check_write(conn, sql)
        try:
            return super().execute(sql, parameters)
        except sqlite3.DatabaseError as exc:
            raise translate(exc, conn) from None

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> SqliteCursor:
        conn = self.connection
        if not conn.in_transaction and not conn.store.write_cleared:
            _check_write(conn, sql)
        try:
            return super().executemany(sql, seq_of_parameters)
        except sqlite3.DatabaseError as exc:
            raise translate(exc, conn) from None

    def executescript(self, sql_script: str, /) -> sqlite3.Cursor:
        conn = self.connection
        if not conn.in_transaction and not conn.store.write_cleared:
            _check_write(conn, sql_script)
        try:
            return super().executescript(sql_script)
        except sqlite3.DatabaseError as exc:
            raise translate(exc, conn) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self.connection) from None

    def fetchmany(self, size: int | None = None) -> list[Any]:
        try:
            return super().fetchmany(self.arraysize if size is None else size)
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self.connection) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self.connection) from None

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self.connection) from None


def _check_write(conn: SqliteConnection, sql: str) -> None:
    """A write outside `SqliteStore.transaction` gets the same health and read-only check.

    A plain (deferred) `BEGIN` only opens a read snapshot, so it is not a write; `BEGIN
    IMMEDIATE` / `EXCLUSIVE` take the write lock and are."""
    head = sql.lstrip()[:24].upper()
    if head.startswith(_WRITES + _WRITE_BEGINS):
        conn.store.ensure_writable()


class SqliteConnection(sqlite3.Connection):
    """The one place driver errors become Lore's: every statement runs through `SqliteCursor`."""

    store: Store  # the SqliteStore that opened it

    def cursor(self, factory: Any = SqliteCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> SqliteCursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> SqliteCursor:
        return self.cursor().executemany(sql, parameters)

    def executescript(self, sql_script: str, /) -> SqliteCursor:
        return self.cursor().executescript(sql_script)

    def commit(self) -> None:
        try:
            super().commit()
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self) from None


_DAMAGE = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "VACUUM")
_WRITE_BEGINS = ("BEGIN IMMEDIATE", "BEGIN EXCLUSIVE")


def translate(exc: sqlite3.DatabaseError, conn: SqliteConnection) -> Exception:
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
