"""All SQL of `lore history why`: its keyword index over layer-1 text, and the reads it needs.

The index is a copy of the text layer 1 already holds (commit messages, PR and issue titles and
bodies, comments), one row per source, with its words counted per repository (`terms_store`),
which is what a question ranks by. It is derived data: built incrementally from the layer-1
tables (only rows not yet indexed, or edited since), so it can be dropped and rebuilt at any
time, and it never feeds anything back into layer 1. That is why it is a store of its own,
beside the ranking that reads it, and not a room of layer 1's store (`lore.history.store`):
layer 1 holds facts, this holds a copy that can always be thrown away.

`WhyStore` is composed of rooms of one concern each:

- `schema`: the tables and their migrations, SQLite and PostgreSQL side by side;
- `records`: the typed records the rooms hand out;
- `texts`: the indexed texts, kept current with layer 1 (`TextIndex`);
- `sources`: each text's source, a file's changes, layer 2's presence (`SourceReads`);
- `eval_rows`: the rows `lore history eval` drafts questions from (`EvalRows`, imported from
  there: a question never loads it).
"""

from __future__ import annotations

from lore.core.store.base import Store
from lore.core.store.open import open_store_for
from lore.history.why.store.records import ChangeSize, Counter, Doc, DocHit, Look, Sourced, SourceMeta
from lore.history.why.store.schema import MIGRATIONS
from lore.history.why.store.sources import SourceReads
from lore.history.why.store.texts import TextIndex

__all__ = [
    "MIGRATIONS",
    "ChangeSize",
    "Counter",
    "Doc",
    "DocHit",
    "Look",
    "SourceMeta",
    "Sourced",
    "WhyStore",
    "open_why",
]


class WhyStore(TextIndex, SourceReads):
    """The keyword index and the reads of `why`, over the shared Store."""

    def __init__(self, store: Store):
        self.store = store
        self.pruned = []


def open_why(store: Store | None = None) -> WhyStore:
    """The why store over the shared Store. Its reads join layer 1's tables, so both are in the
    same database: the domain moves to PostgreSQL with history or not at all."""
    from lore.history.store.schema import MIGRATIONS as LAYER1

    store = store or open_store_for(LAYER1 + MIGRATIONS)
    store.migrate(LAYER1)
    store.migrate(MIGRATIONS)
    return WhyStore(store)
