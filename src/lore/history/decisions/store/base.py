"""What every room of the decisions store stands on: who may bind the project, GitHub's own
web-flow identity, and the base class that holds the Store and the words the engines spell
differently.
"""

from __future__ import annotations

from lore.core.store.base import Store

# who may bind the project on GitHub (the `author_association` of a comment or an item)
AUTHORITY = ("OWNER", "MEMBER", "COLLABORATOR")
# the same, as an SQL list
AUTH_SQL = "('OWNER', 'MEMBER', 'COLLABORATOR')"
# GitHub's own identity on commits made through its web interface: never a person
WEB_FLOW_EMAILS = ("noreply@github.com",)


class DecisionTables:
    """The base of the decisions store's rooms: the Store they read and write through."""

    def __init__(self, store: Store):
        self.store = store
        # SQLite is told which edge index to read by `dst`; PostgreSQL's planner finds it alone
        self._by_dst = " INDEXED BY history_edges_dst" if store.dialect == "sqlite" else ""
