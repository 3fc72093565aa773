"""All SQL of the decisions layer (layer 2): its tables, its writes, and its reads of layer 1.

Layer 2 is interpreted: every row here was proposed by a model and can be wrong, so it lives in
tables of its own, apart from the facts of layer 1 (`lore.history.store`), and carries the
evidence it rests on (the verbatim quote, its span in the source, who said it) and who made it
(`extracted_by`, `confidence`). Layer-1 tables are only read here, with queries of this package;
layer 1's store (`lore.history.store`) never reads or writes these tables, so the facts stand
whatever a model proposed.

Nothing is ever deleted. A decision ends when a supersession row says a later one replaced it;
undoing that supersession stamps `undone_at` and the interval opens again. `valid_to` is never
stored: it is worked out from the supersessions in force (`lore.history.decisions.service`).

`DecisionStore` is one object composed of rooms of one concern each:

- `schema`: the tables and their migrations, SQLite and PostgreSQL side by side;
- `records`: the typed records the store takes and hands out;
- `base`: who may bind the project, and the rooms' base class;
- `layer1`: the read-only views of layer 1 that extract reads its sources from;
- `decisions`: decisions and the marks of what extract has read;
- `supersessions`: supersessions and the judges' checked pairs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lore.core.store.base import Store
from lore.core.store.open import open_store_for
from lore.history.decisions.store.base import AUTHORITY, WEB_FLOW_EMAILS
from lore.history.decisions.store.decisions import Decisions
from lore.history.decisions.store.layer1 import LayerOneReads
from lore.history.decisions.store.records import (
    CommitText,
    DecisionRow,
    NewDecision,
    Post,
    SupersessionRow,
    Thread,
    ThreadSummary,
)
from lore.history.decisions.store.schema import MIGRATIONS
from lore.history.decisions.store.supersessions import Supersessions

__all__ = [
    "AUTHORITY",
    "MIGRATIONS",
    "WEB_FLOW_EMAILS",
    "CommitText",
    "DecisionRow",
    "DecisionStore",
    "NewDecision",
    "Post",
    "SupersessionRow",
    "Thread",
    "ThreadSummary",
    "open_decisions",
]


class DecisionStore(LayerOneReads, Decisions, Supersessions):
    """Typed access to the decision tables, and read-only views of layer 1 they are built from."""

    @contextmanager
    def transaction(self) -> Iterator[DecisionStore]:
        """One write transaction over several calls (a batch of decisions and their marks)."""
        with self.store.transaction():
            yield self


def open_decisions(store: Store | None = None) -> DecisionStore:
    """The decisions store over the shared Store, its tables (and layer 1's) in place."""
    from lore.history.store.schema import MIGRATIONS as LAYER1

    store = store or open_store_for(LAYER1 + MIGRATIONS)
    store.migrate(LAYER1)
    store.migrate(MIGRATIONS)
    return DecisionStore(store)
