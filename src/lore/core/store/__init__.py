"""The core store layer: the embedded SQLite backend and the store modules of core concerns.

Everything above this package talks to the database only through store objects and functions
defined here or in a domain's own store module; `sqlite.py` is the one place that knows the
driver. The names below are re-exported so `from lore.core.store import open_store` keeps
working for every caller.
"""

from lore.core.errors import StoreError
from lore.core.store.sqlite import (
    BUSY_TIMEOUT_MS,
    DB_NAME,
    Migration,
    Store,
    StoreBusy,
    StoreOutdated,
    StoreReadOnly,
    damaged_message,
    database_url,
    forget_stores,
    open_database,
    open_store,
    open_store_for,
    read_only_message,
)

__all__ = [
    "BUSY_TIMEOUT_MS",
    "DB_NAME",
    "Migration",
    "Store",
    "StoreBusy",
    "StoreError",
    "StoreOutdated",
    "StoreReadOnly",
    "damaged_message",
    "database_url",
    "forget_stores",
    "open_database",
    "open_store",
    "open_store_for",
    "read_only_message",
]
