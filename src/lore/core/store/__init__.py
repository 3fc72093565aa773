"""The core store layer: the backends and the store modules of core concerns.

Everything above this package talks to the database only through store objects and functions
defined here or in a domain's own store module: `base` (the `Store` interface, migrations, the
errors), `open` (which backend a process uses), `sqlite` and `postgres` (the two backends).
New code imports those modules directly; the names below are the package's public face.
"""

from lore.core.errors import StoreError
from lore.core.store.base import (
    DB_NAME,
    Migration,
    Store,
    StoreBusy,
    StoreOutdated,
    StoreReadOnly,
    damaged_message,
    read_only_message,
)
from lore.core.store.open import database_url, forget_stores, open_database, open_store, open_store_for
from lore.core.store.sqlite import BUSY_TIMEOUT_MS

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
