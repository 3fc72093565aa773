"""Nearest rows on PostgreSQL: pgvector's exact scan, the HNSW walk, and the plan between them.

An exact search is one scan with pgvector's cosine distance and the filter in the same WHERE, so
the filter chooses the candidates and its top k equals the in-memory path's and SQLite's. An
approximate search (`pgvector-hnsw`) is planned first (`plan`), from a sample of the table: a
filter keeping few rows is answered by the exact scan over just those rows, found by an index
(`indexes.py`); a broad one by the walk of the dimension's HNSW graph, or of a prefix tier's
(`tiers.py`), with `ef_search` widened as the filter narrows. This applies only to approximate
searches on PostgreSQL; SQLite and the in-memory path always scan exactly.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Protocol

from lore.core.store.base import Store
from lore.core.store.vectors import indexes
from lore.core.store.vectors.filters import index_fields, pg_contains, pg_narrowed, pg_vector, pg_where
from lore.core.store.vectors.records import Condition, Plan, ScoredRow, clauses_key
from lore.core.store.vectors.tiers import tier_for, tier_predicate

EF_SEARCH = 400  # candidates the walk keeps at least (pgvector's default of 40 misses many neighbours)
EF_MAX = 1000  # pgvector's ceiling for hnsw.ef_search
# rows an index reads for a filter, up to which the exact scan answers (`VectorStore.exact_rows`)
EXACT_ROWS = 20_000
WALK_SHARE = 0.10  # a filter keeping less than this share is scanned exactly up to 4x `exact_rows`
WALK_ROWS = 4  # the walk takes this many times k rows, the best k kept (relaxed order, filters)
SAMPLE_ROWS = 2_000  # rows of the table sampled to estimate what a filter keeps
FILTER_INDEXES = 4  # b-trees one filter may build (one per shape of its clauses)
PLANS_KEPT = 256  # plans remembered per process (a reader asks many questions under one cap)
TIER_EF_FACTOR = 2  # ef_search in a prefix tier, against the whole graph's: its graph is denser in hits


class Rows(Protocol):
    """What a search here needs of the vector store (`store.VectorStore`)."""

    store: Store
    exact_rows: int  # rows an index reads for a filter, up to which the exact scan answers

    @property
    def key(self) -> str: ...

    def generation(self, collection: str, embedder: str) -> int: ...


_plans: OrderedDict[tuple[Any, ...], tuple[int, Plan]] = OrderedDict()
_plans_lock = threading.Lock()


def nearest(
    rows: Rows,
    collection: str,
    embedder: str,
    query: bytes,
    k: int,
    clauses: list[list[Condition]] | None,
    *,
    approximate: bool,
) -> list[ScoredRow]:
    """The k nearest rows; `approximate` lets `plan` choose between the exact scan over the few
    rows a selective filter keeps and the walk of the embedder's HNSW graph."""
    if approximate:
        chosen = plan(rows, collection, embedder, len(query) // 4, k, clauses)
        if chosen.path == "hnsw":
            hits = walk(rows, collection, embedder, query, k, clauses, chosen.ef_search, chosen.tier)
            if hits is not None:
                return hits
        elif chosen.by == "btree":
            return exact_scan(rows, collection, embedder, query, k, clauses, contains=False)
    return exact_scan(rows, collection, embedder, query, k, clauses)


def plan(
    rows: Rows, collection: str, embedder: str, dim: int, k: int, clauses: list[list[Condition]] | None
) -> Plan:
    """Choose how an approximate search runs, from a sample of the table.

    A walk tests the filter on what the graph yields, so a filter keeping a small share of the
    rows makes it pass many candidates per hit and stop at the first k that pass, not the best
    k. When the filter keeps few rows (estimated at most `exact_rows`), or a small share of
    them (under `WALK_SHARE`, up to four times as many rows), and every clause has a term a
    b-tree narrows by, the exact scan over just those rows, found by the b-tree on the clause's
    fields (`indexes.filter_index`), is cheaper or exact where the walk is not; failing that,
    when the GIN index finds few rows for the equalities, the exact scan over those. Otherwise
    the walk runs, with `ef_search` raised by the inverse fourth root of the share kept below
    `WALK_SHARE` (pgvector's ceiling is `EF_MAX`), in the smallest prefix tier holding the
    filter when there is one. The sample is about `SAMPLE_ROWS` rows (`TABLESAMPLE SYSTEM`, the
    same pages every time), so planning costs the same at any size, and a plan is remembered
    until the collection's generation moves (any write), so the next question under the same
    cap pays one read.
    """
    base = min(EF_MAX, max(EF_SEARCH, 4 * k))
    if clauses is None:
        return Plan("hnsw", base, -1, -1, None)
    ident = (rows.key, collection, embedder, dim, base, rows.exact_rows, clauses_key(clauses))
    generation = rows.generation(collection, embedder)
    with _plans_lock:
        known = _plans.get(ident)
        if known is not None and known[0] == generation:
            _plans.move_to_end(ident)
            return known[1]
    chosen = _sampled_plan(rows, collection, embedder, dim, base, clauses)
    with _plans_lock:
        _plans[ident] = (generation, chosen)
        while len(_plans) > PLANS_KEPT:
            _plans.popitem(last=False)
    return chosen


def forget_plans() -> None:
    """Drop every remembered plan (a benchmark timing the planning itself)."""
    with _plans_lock:
        _plans.clear()


def _sampled_plan(
    rows: Rows, collection: str, embedder: str, dim: int, base: int, clauses: list[list[Condition]]
) -> Plan:
    """`plan` without its memory: one sampling query."""
    conn = rows.store.connect()
    total = conn.execute("SELECT reltuples FROM pg_class WHERE oid = to_regclass('core_vectors')").fetchone()
    percent = min(100.0, 100.0 * SAMPLE_ROWS / total[0]) if total and total[0] > 0 else 100.0
    where_sql, params = pg_where(clauses)
    contains = pg_contains(clauses)
    found_sql, found_params = contains if contains is not None else ("FALSE", [])
    tier = tier_for(clauses)
    tier_sql = tier_predicate(tier) if tier is not None else "FALSE"
    sampled = conn.execute(
        f"SELECT count(*), count(*) FILTER (WHERE {where_sql}), count(*) FILTER (WHERE {found_sql}),"
        f" count(*) FILTER (WHERE {tier_sql})"
        " FROM core_vectors TABLESAMPLE SYSTEM (?) REPEATABLE (7)"
        " WHERE dim = ? AND collection = ? AND embedder = ?",
        (*params, *found_params, percent, dim, collection, embedder),
    ).fetchone()
    scale = 100.0 / percent
    total_rows, kept = round(sampled[0] * scale), round(sampled[1] * scale)
    found = round(sampled[2] * scale) if contains is not None else None
    share = max(sampled[1], 1) / max(sampled[0], 1)
    shapes = {index_fields(clause) for clause in clauses}
    if (
        (kept <= rows.exact_rows or (share < WALK_SHARE and kept <= 4 * rows.exact_rows))
        and all(shapes)
        and len(shapes) <= FILTER_INDEXES
        and all([indexes.filter_index(rows.store, fields) for fields in shapes])
    ):
        return Plan("exact", base, total_rows, kept, found, "btree")
    if found is not None and found <= rows.exact_rows:
        return Plan("exact", base, total_rows, kept, found, "gin")
    if tier is not None and indexes.graph_index(rows.store, dim, tier):
        # the walk's rejections are the tier's rows the filter drops, not the table's
        in_tier = max(sampled[1], 1) / max(sampled[3], 1)
        wider = TIER_EF_FACTOR * min(1.0, in_tier / WALK_SHARE) ** -0.25
        return Plan("hnsw", min(EF_MAX, round(base * wider)), total_rows, kept, found, tier=tier)
    wider = min(1.0, share / WALK_SHARE) ** -0.25
    return Plan("hnsw", min(EF_MAX, max(base, round(base * wider))), total_rows, kept, found)


def exact_scan(
    rows: Rows,
    collection: str,
    embedder: str,
    query: bytes,
    k: int,
    clauses: list[list[Condition]] | None,
    *,
    contains: bool = True,
) -> list[ScoredRow]:
    """The exact scan. The filter's equalities also go in as containment (`filters.pg_contains`),
    which the GIN index on `meta_doc` answers, so a selective filter reads only its rows;
    `contains=False` when the filter's own b-tree finds them (`plan`): adding the GIN index
    then turns the b-tree's ordered read into a bitmap of both, which is slower."""
    where_sql, params = pg_narrowed(clauses) if contains else pg_where(clauses)
    found = (
        rows.store.connect()
        .execute(  # the sort holds (id, distance) only; the k winners' keys and metadata after
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


def walk_sql(
    collection: str,
    embedder: str,
    query: bytes,
    k: int,
    clauses: list[list[Condition]] | None,
    ef_search: int,
    tier: float | None,
) -> tuple[str, tuple[Any, ...]]:
    """The walk's statement and parameters (`walk`): the walk takes `WALK_ROWS` x k rows in its
    relaxed order, sorted once more, best k kept."""
    dim = len(query) // 4
    where_sql, params = pg_where(clauses)
    if tier is not None:
        where_sql = f"{where_sql} AND {tier_predicate(tier)}"
    sql = (
        "WITH hits AS MATERIALIZED ("
        f" SELECT id, item_key, meta, CAST(embedding AS vector({dim:d}))"
        f" <=> CAST(? AS vector({dim:d})) AS distance"
        f" FROM core_vectors WHERE dim = {dim:d} AND collection = ? AND embedder = ? AND {where_sql}"
        " ORDER BY distance LIMIT ?)"
        " SELECT item_key, meta, COALESCE(NULLIF(distance, 'NaN'), 1.0) AS distance FROM hits"
        " ORDER BY distance, id LIMIT ?"
    )
    return sql, (pg_vector(query), collection, embedder, *params, min(WALK_ROWS * k, ef_search), k)


def walk(
    rows: Rows,
    collection: str,
    embedder: str,
    query: bytes,
    k: int,
    clauses: list[list[Condition]] | None,
    ef_search: int,
    tier: float | None = None,
) -> list[ScoredRow] | None:
    """The HNSW walk, filters inside it (pgvector's iterative scan keeps walking until k rows
    pass them); None when it found fewer than k, so the exact scan decides whether that many
    exist (a very selective filter can outlast `hnsw.max_scan_tuples`). With `tier` (a bound of
    `tiers.TIERS` that every clause's `depth` bound is within, `plan`) it walks that prefix
    graph: the tier's predicate, spelled as its index spells it, is one more term of the
    filter, true of every row the filter keeps."""
    dim = len(query) // 4
    if dim > indexes.HNSW_MAX_DIM:
        return None
    if not indexes.graph_index(rows.store, dim, tier):
        return None
    conn = rows.store.connect()  # one connection per thread: the settings hold for the query
    conn.execute(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', false), set_config('hnsw.ef_search', ?, false)",
        (str(ef_search),),
    )
    found = conn.execute(*walk_sql(collection, embedder, query, k, clauses, ef_search, tier)).fetchall()
    if len(found) < k:
        return None
    return [ScoredRow(r[0], r[1], float(r[2])) for r in found]
