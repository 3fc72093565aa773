"""Nearest rows on PostgreSQL: pgvector's exact scan, the filter's rows found by an index.

One scan with pgvector's cosine distance and the filter in the same WHERE, so the filter chooses
the candidates and its top k equals the in-memory path's and SQLite's, k rows whenever k match.
The filter's rows are found by an index rather than a read of the collection: the b-tree over
the clause's fields (`indexes.filter_index`, built by the first search of that shape), or, where
none can be built (a read-only store, a clause with no term a b-tree narrows by, more shapes
than `FILTER_INDEXES`), the GIN index on `meta_doc` through the filter's equalities
(`filters.pg_contains`).

Why exact, with no approximate walk: every search Lore makes under a filter (a reader's book or
series, a project's rules, a repository's history) keeps a few thousand rows at a team's size,
and there the b-tree's exact scan answers faster than an HNSW walk, and exactly
(`bench/vectors_team.py`; docs/store.md#vectors).
"""

from __future__ import annotations

from lore.core.store.base import Store
from lore.core.store.vectors import indexes
from lore.core.store.vectors.filters import index_fields, pg_narrowed, pg_vector, pg_where
from lore.core.store.vectors.records import Condition, ScoredRow

FILTER_INDEXES = 4  # b-trees one filter may build (one per shape of its clauses)


def nearest(
    store: Store, collection: str, embedder: str, query: bytes, k: int, clauses: list[list[Condition]] | None
) -> list[ScoredRow]:
    """The k nearest rows under the filter, through its b-trees when they are (or can be) built."""
    return exact_scan(store, collection, embedder, query, k, clauses, contains=not _by_btree(store, clauses))


def _by_btree(store: Store, clauses: list[list[Condition]] | None) -> bool:
    """Whether every clause of the filter has its b-tree in place (built here if need be)."""
    if not clauses:
        return False
    shapes = {index_fields(clause) for clause in clauses}
    return (
        all(shapes)
        and len(shapes) <= FILTER_INDEXES
        and all([indexes.filter_index(store, fields) for fields in shapes])
    )


def exact_scan(
    store: Store,
    collection: str,
    embedder: str,
    query: bytes,
    k: int,
    clauses: list[list[Condition]] | None,
    *,
    contains: bool = True,
) -> list[ScoredRow]:
    """The exact scan. With `contains`, the filter's equalities also go in as containment
    (`filters.pg_contains`), which the GIN index on `meta_doc` answers, so a selective filter
    reads only its rows; without it when the filter's own b-trees find them: adding the GIN
    index then turns the b-tree's ordered read into a bitmap of both, which is slower. The sort
    holds (id, distance) only; the k winners' keys and metadata are read after it."""
    where_sql, params = pg_narrowed(clauses) if contains else pg_where(clauses)
    found = (
        store.connect()
        .execute(
            "WITH top AS MATERIALIZED ("
            " SELECT id, COALESCE(NULLIF(embedding <=> CAST(? AS vector), 'NaN'), 1.0) AS distance"
            " FROM core_vectors"
            f" WHERE collection = ? AND embedder = ? AND {where_sql}"
            " ORDER BY distance, id LIMIT ?)"
            " SELECT v.item_key, v.meta, top.distance FROM top JOIN core_vectors v ON v.id = top.id"
            " ORDER BY top.distance, top.id",
            (pg_vector(query), collection, embedder, *params, k),
        )
        .fetchall()
    )
    return [ScoredRow(r[0], r[1], float(r[2])) for r in found]
