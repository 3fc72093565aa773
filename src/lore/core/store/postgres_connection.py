"""The connection `PgStore` hands each thread: psycopg behind the sqlite3 subset the stores use.

A store module runs the same calls on either backend (`execute`, `executemany`, rows readable
by position and by name, `rowcount`, `in_transaction`), so this module wraps one pooled psycopg
connection in autocommit mode to answer them: placeholders are given psycopg's paramstyle
(`postgres_params`), rows come back as `Row`, numbers and flags are read and written as SQLite
gives and takes them, and every driver error arrives through `postgres_errors`. Bulk rows go by
`COPY` (`Connection.insert_rows`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from functools import lru_cache
from typing import Any

import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import TransactionStatus

from lore.core.store.postgres_errors import translate
from lore.core.store.postgres_params import pyformat


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


def configure(conn: psycopg.Connection[Any]) -> None:
    """Every pooled connection reads and writes values as the stores expect from SQLite."""
    conn.row_factory = _row_factory
    conn.adapters.register_loader("numeric", _NumericLoader)
    conn.adapters.register_dumper(bool, _BoolAsInt)


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
    """One pooled connection in autocommit mode, speaking the stores' sqlite3 subset.

    `label` names the database in error messages (the URL without its password); `raw` is the
    psycopg connection, for the backend's own PostgreSQL statements.
    """

    def __init__(self, label: str, raw: psycopg.Connection[Any]):
        self.label = label
        self.raw = raw

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, parameters: Any = ()) -> Cursor:
        cur = self.raw.cursor()
        with self.translated():
            cur.execute(pyformat(sql), _params(parameters))
        return Cursor(self, cur)

    def executemany(self, sql: str, seq_of_parameters: Any) -> Cursor:
        cur = self.raw.cursor()
        rows = [_params(p) for p in seq_of_parameters]
        if rows:
            with self.translated():
                cur.executemany(pyformat(sql), rows)
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

        `ignore_conflicts` keeps the rows already stored, as SQLite's `INSERT OR IGNORE` does: the
        rows go to a temporary copy of the table first (emptied at commit) and on with `ON
        CONFLICT DO NOTHING` in the order given, so the first of two rows with one key wins, as in
        SQLite. Run it inside a transaction.
        """
        names = ", ".join(columns)
        target = f"lore_copy_{table}" if ignore_conflicts else table
        with self.translated():  # PostgreSQL's own text, with no placeholders to swap
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
        """Driver errors raised inside arrive as Lore's (see `postgres_errors.translate`)."""
        try:
            yield
        except psycopg.Error as exc:
            raise translate(exc, self.label) from None


def _params(parameters: Any) -> Any:
    """sqlite3 takes any sequence or a mapping; psycopg wants a tuple/list or a dict."""
    if isinstance(parameters, dict | list | tuple):
        return parameters
    return tuple(parameters)
