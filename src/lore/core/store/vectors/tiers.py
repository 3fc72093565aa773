"""Prefix tiers: smaller HNSW graphs over the rows at or before a `depth` bound.

Rows whose metadata carries `depth`, the share of their sequence up to and including them (a
passage's place in its book), get one more HNSW graph per bound in `TIERS`, over the rows at or
before it (built on demand, `indexes.graph_index`). A filter bounding `depth` in every clause (a
reader's cap: a prefix of each book) walks the smallest tier holding it, where most rows pass
the filter, instead of the whole graph where most are rejected. It applies only on PostgreSQL,
to an approximate search whose filter bounds `depth`; every other search ignores the tiers.
"""

from __future__ import annotations

from lore.core.store.vectors.filters import pg_value
from lore.core.store.vectors.records import Condition

DEPTH_FIELD = "depth"
TIERS = (0.125, 0.25, 0.5)


def tier_for(clauses: list[list[Condition]]) -> float | None:
    """The smallest prefix tier (`TIERS`) holding every row the filter keeps: each clause must
    bound `depth` from above, and the largest of those bounds must be within a tier."""
    bounds = []
    for clause in clauses:
        caps = [
            float(c.value)
            for c in clause
            if c.field == DEPTH_FIELD and c.numeric and c.op in ("<", "<=", "=")
        ]
        if not caps:
            return None
        bounds.append(min(caps))
    if not bounds:
        return None
    return next((tier for tier in TIERS if max(bounds) <= tier), None)


def tier_predicate(bound: float) -> str:
    """A prefix tier's condition, one spelling for its index and for the walk that uses it (the
    planner takes a partial index only for a query that repeats its predicate)."""
    return f"{pg_value(DEPTH_FIELD, True)} <= CAST({float(bound)!r} AS DOUBLE PRECISION)"
