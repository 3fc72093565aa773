"""What every backend shares: the `Store` interface, migrations and the store errors.

A store module is written against `Store` and never against one backend's class: it opens a
connection or a transaction, runs its statements and reads rows by position or by name. The
embedded file (`sqlite.py`) and a shared PostgreSQL database (`postgres.py`) each implement it
and import only this module; which one a process uses is decided in `open.py`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from lore.core.errors import StoreError

DB_NAME = "lore.db"  # the embedded file under `$LORE_HOME`, and each user's own file beside a shared database


@dataclass(frozen=True)
class Migration:
    """A named, append-only schema step: SQL text, or a function given the connection."""

    name: str
    apply: str | Callable[[Any], None]
    # the same step on PostgreSQL, under the same name (None: the domain does not run there yet)
    postgres: str | Callable[[Any], None] | None = None


class Store(ABC):
    """One database shared by every domain; hands each thread its own connection.

    A connection speaks the subset of sqlite3's interface the store modules use (`execute`,
    `executemany`, rows readable by position and by name, `rowcount`, `in_transaction`), and
    every driver error arrives as a `StoreError` with one line naming the database.
    """

    dialect: ClassVar[str]  # "sqlite" or "postgres": which text a store module runs where they differ
    path: Path  # the file, or the URL without its password: keys per-store caches in the domains
    damage: str | None  # why this process no longer writes here, once known
    write_cleared: bool  # checked healthy and writable in this process

    @property
    @abstractmethod
    def read_only(self) -> bool:
        """Opened read-only: asked for in config.json, or the database cannot be written."""

    @abstractmethod
    def connect(self) -> Any:
        """This thread's connection."""

    @abstractmethod
    def ensure_writable(self) -> None:
        """Refuse a write up front (`StoreReadOnly`, or `StoreError` for a damaged file)."""

    @abstractmethod
    def mark_damaged(self, reason: str) -> None:
        """From now on this process refuses every write to the database."""

    @abstractmethod
    def transaction(self, *, wait_ms: int | None = None) -> AbstractContextManager[Any]:
        """A write transaction: writers queue, never deadlock; nested calls join the outer one.

        `wait_ms` bounds how long to wait for another writer (`StoreBusy` after it).
        """

    @abstractmethod
    def snapshot(self) -> AbstractContextManager[Any]:
        """Reads that all see one moment of the database, as a connection (a transaction already
        open on this thread is joined instead)."""

    @abstractmethod
    def migrate(self, migrations: Sequence[Migration]) -> None:
        """Apply the named migrations not yet applied, in order; cheap after the first call."""

    @abstractmethod
    def primary_key(self, table: str) -> tuple[str, ...]:
        """The primary-key columns of a table, in key order."""

    @abstractmethod
    def applied_migrations(self) -> list[str]:
        """The names of the migrations applied, oldest first."""

    @abstractmethod
    def exclusive(self, key: str) -> AbstractContextManager[bool]:
        """Hold `key` for a long job (an ingest), or yield False if someone else holds it."""

    @abstractmethod
    def close(self) -> None:
        """Close this thread's connection."""


class StoreBusy(StoreError):
    """Another process held the store past the busy timeout."""


class StoreReadOnly(StoreError):
    """The store is open read-only and a write was asked for: bookkeeping may skip it."""


class StoreOutdated(StoreReadOnly):
    """A read-only store lacks tables this version needs and cannot be given them.

    `absent`: none of the asked migrations was ever applied, so that part of Lore was never used
    with this store (each domain makes its tables on first use) and it holds nothing of it; a
    reader may answer as from an empty part instead of failing."""

    def __init__(self, message: str, *, absent: bool):
        super().__init__(message)
        self.absent = absent


def damaged_message(path: Path, reason: str) -> str:
    return (
        f"the store at {path} is damaged ({reason}); nothing was written; restore a backup or move it aside"
    )


def read_only_message(path: Path) -> str:
    return (
        f"the store at {path} is read-only; this command needs to write to it "
        "(make the file and its folder writable, or unset store.read_only in config.json)"
    )
