"""Indexes a PostgreSQL vector search builds the first time it needs them.

Writers never pay for these: a store that is only written to, or only searched exactly, has
none. The first approximate search of a dimension builds that dimension's HNSW graph, the first
plan that wants a prefix tier builds that tier's graph (`tiers.py`), and the first selective
filter of a shape builds the b-tree over its fields, each over the rows already there (far
cheaper than growing it row by row). A read-only store cannot build them: the search then
answers by an exact scan (or, for a tier, the whole graph). `lore store check` names them
(`describe_index`). SQLite has none of them: its scans read the file in one pass.
"""

from __future__ import annotations

import hashlib
import re

from lore.core.errors import StoreError
from lore.core.store.base import Store
from lore.core.store.vectors.filters import pg_value
from lore.core.store.vectors.tiers import TIERS, tier_predicate

HNSW_MAX_DIM = 2000  # pgvector's limit for an HNSW index on `vector`; wider ones scan exactly
HNSW_M = 16  # links per node (pgvector's default)
# candidates kept while linking a node: above pgvector's 64, for a graph that recalls more at
# the same ef_search, at the cost of a slower build (docs/store.md)
HNSW_EF_CONSTRUCTION = 200
# maintenance_work_mem for a graph's build: pgvector builds in memory while the graph fits and
# far slower once it does not; this is room for a graph of about a million rows, this build only
BUILD_MEMORY = "2GB"
# the names of the indexes built here, one spelling for building and describing
GRAPH_INDEX_PREFIX = "core_vectors_hnsw_"  # + the dimension (+ "_depth_" and a tier's bound)
FILTER_INDEX_PREFIX = "core_vectors_by_"  # + a hash of the filter's fields

# (database, dimension, tier bound or None for the whole graph) with its HNSW graph in place
_graphs_ready: set[tuple[str, int, float | None]] = set()
_filters_ready: set[tuple[str, str]] = set()  # (database, index name) of filter b-trees in place


def describe_index(name: str) -> str | None:
    """What an index that vector searches build on first use is for, from its name (None for
    any other index): the whole graph of a dimension, a prefix tier, or a filter's b-tree."""
    graph = re.fullmatch(re.escape(GRAPH_INDEX_PREFIX) + r"(\d+)(?:_depth_(\d{4}))?", name)
    if graph is not None:
        dim, tier = graph.groups()
        if tier is None:
            return f"HNSW graph, {dim}-d vectors"
        return f"HNSW prefix tier, depth <= {int(tier) / 1000:g}, {dim}-d vectors"
    if name.startswith(FILTER_INDEX_PREFIX):
        return "b-tree for one shape of filter (exact scans)"
    return None


def filter_index(store: Store, fields: tuple[tuple[str, bool], ...]) -> bool:
    """The b-tree over (collection, embedder, these fields' values), built by the first
    selective search of that shape: the filter's terms spell each value as the index does
    (`filters.pg_value`), so an exact scan reads just the rows the filter keeps. False when it
    cannot be built (a read-only store); the GIN index on `meta_doc` still narrows by the
    equalities then."""
    name = FILTER_INDEX_PREFIX + hashlib.sha1(repr(fields).encode()).hexdigest()[:16]
    if (str(store.path), name) in _filters_ready:
        return True
    values = ", ".join(f"({pg_value(field, numeric)})" for field, numeric in fields)
    try:
        with store.transaction() as tx:
            tx.execute(f"CREATE INDEX IF NOT EXISTS {name} ON core_vectors (collection, embedder, {values})")
            tx.execute("ANALYZE core_vectors")  # statistics of the new values, for the planner
    except StoreError:
        return False
    _filters_ready.add((str(store.path), name))
    return True


def graph_index(store: Store, dim: int, tier: float | None = None) -> bool:
    """Build the HNSW graph for this dimension on the first walk that needs it. With `tier` (one
    of `tiers.TIERS`), the prefix graph of that `depth` bound instead, built by the first plan
    that wants it: it holds only the rows at or before the bound, so it costs that share of the
    whole graph's build. False when it cannot be built here (a read-only store, a dimension
    over pgvector's limit for a tier): the exact scan, or for a tier the whole graph, answers
    instead."""
    ident = (str(store.path), dim, tier)
    if ident in _graphs_ready:
        return True
    if tier is None:
        name, where = f"{GRAPH_INDEX_PREFIX}{dim:d}", f"dim = {dim:d}"
    elif dim <= HNSW_MAX_DIM and tier in TIERS:
        name = f"{GRAPH_INDEX_PREFIX}{dim:d}_depth_{round(tier * 1000):04d}"
        where = f"dim = {dim:d} AND {tier_predicate(tier)}"
    else:
        return False
    try:
        with store.transaction() as tx:
            tx.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
            tx.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON core_vectors"
                f" USING hnsw ((CAST(embedding AS vector({dim:d}))) vector_cosine_ops)"
                f" WITH (m = {HNSW_M:d}, ef_construction = {HNSW_EF_CONSTRUCTION:d}) WHERE {where}"
            )
            tx.execute("ANALYZE core_vectors")
    except StoreError:
        return False
    _graphs_ready.add(ident)
    return True
