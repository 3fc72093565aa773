"""What the vector store hands out and takes: parsed filter terms, stored rows, scored rows, plans.

Plain frozen records, no SQL: `lore.core.vectors` builds `Condition`s from a search's `where`,
and the store modules beside this one answer with the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Condition:
    """One parsed filter term on a metadata field: `op` in SQL spelling, value checked."""

    field: str
    op: str
    value: Any
    numeric: bool


def clauses_key(clauses: list[list[Condition]]) -> tuple[tuple[Condition, ...], ...]:
    """The filter as a hashable value, to remember what was worked out for it (a plan in
    `pgvector.py`, the rows it keeps in `lore.core.vectors`)."""
    return tuple(tuple(clause) for clause in clauses)


@dataclass(frozen=True)
class StoredVectors:
    """A collection's rows for one embedder: row ids, keys, vector bytes and metadata JSON."""

    ids: list[int]
    keys: list[str]
    vectors: list[bytes]
    metas: list[str]


@dataclass(frozen=True)
class Collection:
    collection: str
    embedder: str
    dim: int
    vectors: int


@dataclass(frozen=True)
class ScoredRow:
    key: str
    meta: str
    distance: float


@dataclass(frozen=True)
class Plan:
    """How a filtered approximate search is answered on PostgreSQL, from a sample of the table.

    `path` is `exact` (the scan over the rows an index finds: every neighbour found) or `hnsw`
    (the walk, at `ef_search`); `by` names the index an exact scan reads (`btree`: the filter's
    own b-trees, about `kept` rows; `gin`: its equalities, about `found` rows). `rows`, `kept`
    and `found` are estimates of the collection's rows, the rows passing the filter and the rows
    the GIN index yields for its equalities (None: a clause has none). `tier` is the `depth`
    bound of the prefix graph a walk takes (`tiers.TIERS`), None for the whole graph."""

    path: str
    ef_search: int
    rows: int
    kept: int
    found: int | None
    by: str = ""
    tier: float | None = None
