"""What every room of the history store stands on: its graph tables, the words the two engines
spell differently, and the base class the rooms share.

The statements of this package are written once wherever SQLite and PostgreSQL accept the same
text. A few reads differ in a word or two: SQLite is told to read edges by their `(dst, src)`
index (PostgreSQL's planner picks it itself), a JSON array of ids is unpacked by each engine's
own function (PostgreSQL also wants it typed, since it compares a BIGINT with a BIGINT only),
and a match that ignores case is SQLite's `LIKE` but PostgreSQL's `ILIKE`. Those words are
written here, per engine, side by side in `SPELLINGS`; a statement that needs them is built from
them, never by rewriting another statement's text.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.core.graph import EdgeFilter, GraphTables
from lore.core.store.base import Store
from lore.core.store.graph_store import GraphStore

TABLES = GraphTables(nodes="history_nodes", edges="history_edges", degrees="history_degrees")

# Edges of a commit no ref reaches any more (amended, rebased, dropped) are not walked: the
# commit is kept for `show`, but a walk, like `file` and `stats`, follows only the live history.
LIVE = "NOT EXISTS (SELECT 1 FROM history_commits c WHERE c.node_id IN (e.src, e.dst) AND c.reachable = 0)"
REACHABLE_ONLY = EdgeFilter(LIVE)


@dataclass(frozen=True)
class Spelling:
    """The words of a history read that one engine spells its own way."""

    by_dst: str  # after `history_edges [alias]`: read the edges by their (dst, src) index
    id_value: str  # one element of a JSON array of node ids, as a BIGINT
    json_array: str  # the elements of the JSON array parameter `{}` as rows of `value`
    greatest: str  # the larger of two values
    like_any_case: str  # `LIKE` ignoring case: SQLite's `LIKE` does by itself, PostgreSQL's `ILIKE`
    first_segment: str  # the first `VALUES` row of (path node, from, until): it types the list

    def ids(self, mark: str) -> str:
        """A one-column set of the node ids in the JSON array parameter `mark`."""
        return f"SELECT {self.id_value} FROM {self.json_array.format(mark)}"

    def texts(self, mark: str) -> str:
        """A one-column set of the strings in the JSON array parameter `mark`."""
        return f"SELECT value FROM {self.json_array.format(mark)}"

    def segments(self, count: int) -> str:
        """`VALUES` rows for `count` (path node, from, until) stretches of time."""
        return ", ".join([self.first_segment] + ["(?, ?, ?)"] * (count - 1))


SPELLINGS = {
    "sqlite": Spelling(
        by_dst=" INDEXED BY history_edges_dst",
        id_value="value",
        json_array="json_each({})",
        greatest="MAX",
        like_any_case="LIKE",
        first_segment="(?, ?, ?)",
    ),
    "postgres": Spelling(
        by_dst="",
        id_value="CAST(value AS BIGINT)",
        json_array="json_array_elements_text(CAST({} AS json)) AS j(value)",
        greatest="GREATEST",
        like_any_case="ILIKE",
        first_segment="(CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION), CAST(? AS DOUBLE PRECISION))",
    ),
}


class HistoryTables:
    """The history tables of one Store: the base of every room of `HistoryStore`.

    Methods run on the calling thread's connection, so inside `transaction()` they all join one
    transaction; nothing driver-made (rows, cursors, connections) leaves a room.
    """

    def __init__(self, store: Store):
        self.store = store
        self.graph = GraphStore(store, TABLES)
        self._postgres = store.dialect == "postgres"
        self._spell = SPELLINGS[store.dialect]


def like_escape(text: str) -> str:
    """`text` as a literal inside a `LIKE ... ESCAPE '\\'` pattern."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
