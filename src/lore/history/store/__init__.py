"""The history store (layer 1): all SQL of the facts read from git and the GitHub API.

`HistoryStore` is one object with one method per read or write; its methods live in rooms of
one concern each, composed here:

- `schema`: the tables and their migrations, SQLite and PostgreSQL side by side;
- `records`: the typed records every read hands out;
- `base`: the graph tables, the words the engines spell differently, the rooms' base class;
- `repos`: repositories, their sync state and ingest locks, and what each holds;
- `writes`: the graph writes of ingest and what an ingest reads to resume;
- `threads`: PRs, issues and their comments;
- `commits`: commits, their changes and a path's events (stats, churn, lineage, `show`);
- `nodes`: finding nodes by key, prefix, suffix or a person's name;
- `walks`: a file's timeline and story, and the edges `why` follows.

The decisions of layer 2 (`history/decisions/store.py`) and the keyword index of `why`
(`history/why/store/`) keep stores of their own: both are derived from these tables and never
write into them.
"""

from __future__ import annotations

import sqlite3
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from lore.core.store.base import Store
from lore.core.store.open import open_store_for
from lore.history.store.commits import CommitReads
from lore.history.store.nodes import NodeLookups
from lore.history.store.repos import Repositories
from lore.history.store.schema import MIGRATIONS
from lore.history.store.threads import Threads
from lore.history.store.walks import Walks
from lore.history.store.writes import GraphWrites

# connection -> what -> (data_version, total_changes) at the last look (see quiet_since_last_look)
_looks: weakref.WeakKeyDictionary[sqlite3.Connection, dict[str, tuple[int, int]]] = (
    weakref.WeakKeyDictionary()
)


class HistoryStore(Repositories, GraphWrites, Threads, CommitReads, NodeLookups, Walks):
    """Typed access to the history tables of one Store.

    Methods run on the calling thread's connection, so inside `transaction()` they all join
    one transaction; nothing driver-made (rows, cursors, connections) leaves this class.
    """

    @contextmanager
    def transaction(self) -> Iterator[HistoryStore]:
        """One write transaction over several calls (a batch and its checkpoint)."""
        with self.store.transaction():
            yield self

    def quiet_since_last_look(self, what: str) -> bool:
        """True when nothing at all was committed to the store file since the last call with
        `what` on this thread's connection (by this process or any other); the look is recorded.

        Two numbers SQLite keeps for free say so: `PRAGMA data_version` moves when another
        connection commits, `total_changes()` when this one writes. A cache that is checked
        against the tables on every call (reading thousands of rows) can trust itself while the
        store is quiet; looks are kept per connection object, so a new connection starts over."""
        conn = self.store.connect()
        if not isinstance(conn, sqlite3.Connection):  # another backend: no such counters, no shortcut
            return False
        token = (
            conn.execute("PRAGMA data_version").fetchone()[0],
            conn.execute("SELECT total_changes()").fetchone()[0],
        )
        looks = _looks.setdefault(conn, {})
        quiet = looks.get(what) == token
        looks[what] = token
        return quiet


def open_history(store: Store | None = None) -> HistoryStore:
    """The history store over the shared Store, its tables in place."""
    store = store or open_store_for(MIGRATIONS)
    store.migrate(MIGRATIONS)
    return HistoryStore(store)
