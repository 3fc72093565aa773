"""PostgreSQL's driver errors as Lore's: one line naming the database, in the `StoreError` family.

A store module catches one kind of error whichever backend it runs on: a constraint collision is
raised as sqlite3's `IntegrityError` (so `except sqlite3.IntegrityError` turns a duplicate into
`AlreadyExists` on either), a busy or read-only server as `StoreBusy` / `StoreReadOnly`, and a
statement this code got wrong keeps the driver's own message, since it is a bug.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
from psycopg import errors as pg_errors

from lore.core.errors import StoreError
from lore.core.store.base import StoreBusy, StoreReadOnly, read_only_message


class IntegrityError(sqlite3.IntegrityError):
    """A constraint collision on PostgreSQL, raised as sqlite3's so a store catches one kind
    (`except sqlite3.IntegrityError` turns it into `AlreadyExists` on either backend)."""


def translate(exc: psycopg.Error, label: str) -> Exception:
    """A driver error as one line naming the database `label`; collisions and bugs pass through."""
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
