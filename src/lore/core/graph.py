"""A typed, timed graph and a bounded walk over it: the records and the rules of the walk.

Domain-agnostic: a domain keeps its own three tables (named in `GraphTables`) with the columns
below; `lore.core.store.graph_store.GraphStore` writes them and walks them (one recursive
CTE, on SQLite and on PostgreSQL). This module holds no SQL, so a second backend only replaces the store.

    nodes   (id INTEGER PRIMARY KEY, kind TEXT, key TEXT, label TEXT, at REAL, degree INTEGER)
    edges   (src INTEGER, dst INTEGER, rel TEXT, at REAL, position INTEGER)   -- one row per edge
    degrees (node_id INTEGER, rel TEXT, n INTEGER)                           -- edges per relation

Edges are stored once with a direction but walked both ways. The walk suppresses hubs: a node
whose degree is above `max_degree` is still returned when reached, but is never expanded, because
bridging through a sweeping commit or a changelog connects everything to everything and the walk
stops being about where it started. Results are ordered in the final SELECT (depth, then
recency, then kind and key), never by whatever order the CTE happened to produce.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class GraphTables:
    """The names of a domain's node, edge and degree tables (columns as in the module doc)."""

    nodes: str
    edges: str
    degrees: str

    def __post_init__(self) -> None:
        for name in (self.nodes, self.edges, self.degrees):
            if not _IDENT.match(name):
                raise ValueError(f"not a plain SQL table name: {name!r}")


@dataclass(frozen=True)
class BridgeCap:
    """A node with more than `limit` edges of `rel` does not expand along `rel`.

    E.g. BridgeCap("MODIFIED", 50, kind="commit"): a commit touching more than 50 files is still
    reached, and still leads to its author, but adds no file-to-file bridge.
    """

    rel: str
    limit: int
    kind: str | None = None


@dataclass(frozen=True)
class EdgeFilter:
    """An extra SQL predicate on the edge alias `e` (columns src, dst, rel, at, position).

    Parameters are named; prefix them (e.g. `:book_id`) to keep clear of the walk's own names,
    which all start with `w_`.
    """

    sql: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    """One node reached by a walk, at its shortest distance from the start."""

    id: int
    kind: str
    key: str
    label: str
    at: float | None
    degree: int
    depth: int
