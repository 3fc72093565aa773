"""All SQL of the rules domain's projects, rules and trust.

`RulesStore` is one object with one method per read or write; its methods live in rooms of one
concern each, composed here:

- `schema`: the tables and their migrations, SQLite and PostgreSQL side by side;
- `base`: the rule columns, rows turned into records, the text key, the rooms' base class;
- `projects`: registered repositories, their sections and rules version;
- `writes`: rules added, changed and removed, each bumping the project's version;
- `reads`: rules by id, prefix or text, a project's rules, changes since a version;
- `serving`: sessions, what they were served, their notes;
- `trust`: repository trust overrides and verdicts, in the user's own file;
- `caches`: rule vectors for hybrid selection, review-feedback attempts.

What each agent session was sent keeps a store of its own (`rules/store/sessions.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lore.core.home import ensure_home
from lore.core.store.base import DB_NAME
from lore.core.store.open import open_store
from lore.rules.store.rules.base import text_key
from lore.rules.store.rules.caches import VECTOR_WAIT_MS, Caches
from lore.rules.store.rules.projects import Projects
from lore.rules.store.rules.reads import RuleReads
from lore.rules.store.rules.schema import MIGRATIONS
from lore.rules.store.rules.serving import SETUP_PENDING, Serving
from lore.rules.store.rules.trust import TrustRecords
from lore.rules.store.rules.writes import RuleWrites

__all__ = ["MIGRATIONS", "SETUP_PENDING", "VECTOR_WAIT_MS", "RulesStore", "rules_store", "text_key"]


def rules_store() -> RulesStore:
    store = open_store()
    store.migrate(MIGRATIONS)
    local = store
    if store.dialect != "sqlite":  # a shared database: trust stays in the user's own file
        local = open_store(ensure_home() / DB_NAME)
        local.migrate(MIGRATIONS)
    return RulesStore(store, trust_store=local)


class RulesStore(Projects, RuleWrites, RuleReads, Serving, TrustRecords, Caches):
    """Typed access to the rules tables of one Store (see `RulesTables` for `trust_store`).

    Methods run on the calling thread's connection, so inside `transaction()` they all join one
    transaction; nothing driver-made (rows, cursors, connections) leaves this class.
    """

    @contextmanager
    def transaction(self) -> Iterator[RulesStore]:
        """One write transaction (BEGIN IMMEDIATE) over several calls, which join it: every read
        inside sees the latest committed rules and no other writer, in this process or another,
        can slip in between a check and the write it permits."""
        with self.store.transaction():
            yield self
