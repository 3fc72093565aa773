"""The b-trees a PostgreSQL vector search builds the first time it needs them.

Writers never pay for these: a store that is only written to has none. The first search under a
filter of a given shape (its clauses' fields) builds the b-tree over those fields' values, over
the rows already there (far cheaper than growing it row by row); PostgreSQL keeps it up after.
A read-only store cannot build one: the search then finds the filter's rows through the GIN
index on `meta_doc` instead. `lore store check` names them (`describe_index`). SQLite has none:
its scans read the file in one pass.
"""

from __future__ import annotations

import hashlib

from lore.core.errors import StoreError
from lore.core.store.base import Store
from lore.core.store.vectors.filters import pg_value

FILTER_INDEX_PREFIX = (
    "core_vectors_by_"  # + a hash of the filter's fields: one spelling for building and describing
)

_filters_ready: set[tuple[str, str]] = set()  # (database, index name) of filter b-trees in place


def describe_index(name: str) -> str | None:
    """What an index that vector searches build on first use is for, from its name (None for
    any other index)."""
    if name.startswith(FILTER_INDEX_PREFIX):
        return "b-tree for one shape of filter (exact scans)"
    return None


def filter_index(store: Store, fields: tuple[tuple[str, bool], ...]) -> bool:
    """The b-tree over (collection, embedder, these fields' values), built by the first search
    of that shape: the filter's terms spell each value as the index does (`filters.pg_value`),
    so an exact scan reads just the rows the filter keeps. False when it cannot be built (a
    read-only store); the GIN index on `meta_doc` still narrows by the equalities then."""
    name = FILTER_INDEX_PREFIX + hashlib.sha1(repr(fields).encode()).hexdigest()[:16]
    if (str(store.path), name) in _filters_ready:
        return True
    values = ", ".join(f"({pg_value(field, numeric)})" for field, numeric in fields)
    try:
        with store.transaction() as tx:
            tx.execute(f"CREATE INDEX IF NOT EXISTS {name} ON core_vectors (collection, embedder, {values})")
            tx.execute("ANALYZE core_vectors")  # statistics of the new values, for the planner
    except StoreError:
        return False
    _filters_ready.add((str(store.path), name))
    return True
