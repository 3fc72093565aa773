"""What the vector store hands out and takes: parsed filter terms, stored rows, scored rows.

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
    """The filter as a hashable value, to remember what was worked out for it (the rows it keeps,
    in `lore.core.vectors`)."""
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
