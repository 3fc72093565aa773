"""Benchmark: the PostgreSQL vector tuning at the size of a team of 50, each element on and off.

Every search a team's Lore makes of its vectors (a reader's capped book or series, a project's
rules, a repository's history), on PostgreSQL (pgvector) with each tuning element on and off,
and on SQLite (in memory and sqlite-vec) for reference: p50 and p95 latency, and recall@10
against the exact top-10 of the same run. Baseline: the plain exact scan of each backend.

The team of 50, and how its sizes are derived (all of it in one PostgreSQL, one table, one
embedder, as a team's shared server holds it):

- books: a shared library of 150 books (about three books per member, a club's shelf over a few
  years) of about 1,500 passages each (a 90,000-word novel in passages of about 60 words):
  225,000 passage vectors, each carrying `book_id`, `chapter_seq` (30 chapters of 50 passages),
  `passage_seq` and `depth`, as `lore.books.passage_vectors` stores them;
- rules: 50 projects (one per member) of about 200 rules each: 10,000 rule vectors, `project`;
- history: 20 repositories of about 5,000 commits, PRs and issues each: 100,000 vectors, `repo`
  and `at` (the moment, for a `why` as of a date), as the why index stores them.

335,000 rows. Each search is what Lore asks (k = 50, as `books.search` and `history why` ask):

- one book, capped: the book a reader is in, to chapter 12 of 30 (`cap_filter`'s clause, the
  `depth` bound included): 600 rows;
- a series, capped: five books, three read, one to chapter 12, one not begun (four clauses);
- one book, whole: the spoiler probe every capped search makes (`search._probe`): 1,500 rows;
- a project's rules: 200 rows; a repository's history: 5,000; the same as of a date: half.

Each question of `bench/data/book_questions.jsonl` (122 real reader questions, embedded by
WordLlama) asks about a different book, project or repository in turn, as 50 members would. The
vectors are real WordLlama embeddings of windows of the shared books' and rules' sentences
(`bench/vector_corpus.py`), assigned in reading order: consecutive windows make a book, a
project or a repository. The arms on PostgreSQL:

- `exact scan` (the baseline): the filter and pgvector's distance in one scan, the filter's
  equalities also as a containment the migrated GIN index answers (the `pgvector` path);
- `exact scan, no GIN`: the same without the containment;
- `exact scan, on-demand b-tree`: through a b-tree over the filter's fields, built by the first
  search of that shape;
- `HNSW walk, whole graph`: always the approximate walk (`ef_search` 400, relaxed iterative
  order, 4k rows taken, the exact scan when it finds fewer than k);
- `HNSW walk, prefix tier`: for a cap bounding `depth`, the walk of the smallest prefix graph
  (`depth` <= 0.125, 0.25 or 0.5) holding it, at twice the `ef_search`;
- `planner`: per filter, a sample of the table decides between the b-tree's exact scan (the
  filter keeps at most 20,000 rows) and the walk (in a tier when one holds it), remembered per
  filter until a write.

The tuned arms are written out here in SQL, as the store ran them before it dropped them, so
the measure behind that choice can be repeated. `--quick` runs a tenth of the team (15 books,
5 projects, 2 repositories) and 30 questions, one pass, for a smoke run.

    .venv/bin/python bench/vectors_team.py [--quick] [--repeat 2] [--backends sqlite,postgres]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

K = 50  # what a book search and a why ask of the vectors
RECALL_AT = 10
SLOW_QUESTIONS = 20  # questions timed on the arms that read every row of a collection
EF_SEARCH = 400
WALK_ROWS = 4
EXACT_ROWS = 20_000
TIERS = (0.125, 0.25, 0.5)
END = 10**6  # a chapter past every book's last: a whole book, as `books.store.cap.END`


@dataclass(frozen=True)
class Team:
    """How many of each unit, and each unit's size."""

    books: int = 150
    passages: int = 1_500
    chapters: int = 30
    projects: int = 50
    rules: int = 200
    repos: int = 20
    docs: int = 5_000

    @property
    def rows(self) -> int:
        return self.books * self.passages + self.projects * self.rules + self.repos * self.docs


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- the team's rows ---------------------------------------------------------------------------


def team_rows(team: Team, vectors: np.ndarray) -> dict[str, list[tuple[str, np.ndarray, dict[str, Any]]]]:
    """The corpus's rows (already in reading order) cut into books, projects and repositories."""
    out: dict[str, list[tuple[str, np.ndarray, dict[str, Any]]]] = {"books": [], "rules": [], "history": []}
    at = 0
    per_chapter = team.passages // team.chapters
    for book in range(1, team.books + 1):
        for i in range(team.passages):
            meta = {
                "book_id": book,
                "chapter_seq": i // per_chapter + 1,
                "passage_seq": i % per_chapter + 1,
                "depth": (i + 1) / team.passages,
            }
            out["books"].append((f"b{at}", vectors[at], meta))
            at += 1
    for project in range(1, team.projects + 1):
        for _ in range(team.rules):
            out["rules"].append((f"r{at}", vectors[at], {"project": project}))
            at += 1
    for repo in range(1, team.repos + 1):
        for i in range(team.docs):
            out["history"].append((f"h{at}", vectors[at], {"repo": repo, "at": float(i)}))
            at += 1
    return out


def book_cap(team: Team, book: int, chapter: int) -> dict[str, Any]:
    """A cap's clause as `passage_vectors.cap_filter` writes it, its `depth` bound included."""
    last = min(chapter, team.chapters) * (team.passages // team.chapters)
    return {"book_id": book, "chapter_seq": ("<=", chapter), "depth": ("<=", last / team.passages)}


def searches(team: Team) -> list[tuple[str, str, Callable[[int], Any]]]:
    """(name, collection, the filter of question i): each question another unit, in turn."""

    def series(i: int) -> list[dict[str, Any]]:
        first = (i * 5) % max(1, team.books - 4) + 1
        return [book_cap(team, first + j, END) for j in range(3)] + [book_cap(team, first + 3, 12)]

    return [
        ("one book, capped", "books", lambda i: book_cap(team, i % team.books + 1, 12)),
        ("a series, capped", "books", series),
        ("one book, whole", "books", lambda i: book_cap(team, i % team.books + 1, END)),
        ("a project's rules", "rules", lambda i: {"project": i % team.projects + 1}),
        ("a repository's history", "history", lambda i: {"repo": i % team.repos + 1}),
        (
            "a repository as of a date",
            "history",
            lambda i: {"repo": i % team.repos + 1, "at": ("<=", float(team.docs // 2))},
        ),
    ]


# -- the tuned arms, in SQL, as the store ran them ---------------------------------------------


class Tuned:
    """The tuning elements on PostgreSQL: on-demand b-trees, the HNSW walk, prefix tiers and the
    planner between them."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self.store = index.rows.store
        self.dim = index.dim
        self.plans: dict[Any, tuple[str, float | None]] = {}

    def clauses(self, where: Any) -> list[list[Any]]:
        from lore.core.vector_filters import parse_where

        return parse_where(where) or []

    def exact(self, where: Any, query: np.ndarray, *, gin: bool) -> list[str]:
        from lore.core.store.vectors.filters import pg_narrowed, pg_vector, pg_where

        clauses = self.clauses(where)
        where_sql, params = pg_narrowed(clauses) if gin else pg_where(clauses)
        rows = (
            self.store.connect()
            .execute(
                "WITH top AS MATERIALIZED ("
                " SELECT id, COALESCE(NULLIF(embedding <=> CAST(? AS vector), 'NaN'), 1.0) AS distance"
                f" FROM core_vectors WHERE collection = ? AND embedder = ? AND {where_sql}"
                " ORDER BY distance, id LIMIT ?)"
                " SELECT v.item_key FROM top JOIN core_vectors v ON v.id = top.id ORDER BY top.distance, top.id",
                (pg_vector(_bytes(query)), self.index.collection, self.index.model, *params, K),
            )
            .fetchall()
        )
        return [r[0] for r in rows]

    def btree(self, where: Any) -> None:
        """The b-trees over (collection, embedder, the clause's fields), equalities first."""
        from lore.core.store.vectors.filters import pg_value

        for clause in self.clauses(where):
            eq = sorted({(c.field, c.numeric) for c in clause if c.op in ("=", "IN")})
            ranges = sorted(
                {(c.field, c.numeric) for c in clause if c.op in ("<", "<=", ">", ">=")} - set(eq)
            )
            fields = tuple([*eq, *ranges][:3])
            name = "bench_vectors_by_" + hashlib.sha1(repr(fields).encode()).hexdigest()[:16]
            values = ", ".join(f"({pg_value(f, n)})" for f, n in fields)
            with self.store.transaction() as tx:
                tx.execute(
                    f"CREATE INDEX IF NOT EXISTS {name} ON core_vectors (collection, embedder, {values})"
                )
        with self.store.transaction() as tx:
            tx.execute("ANALYZE core_vectors")

    def graph(self, tier: float | None) -> float:
        """Build the whole HNSW graph, or a prefix tier's; the build's seconds."""
        where = f"dim = {self.dim:d}"
        name = f"bench_vectors_hnsw_{self.dim:d}"
        if tier is not None:
            where += f" AND {_tier_predicate(tier)}"
            name += f"_depth_{round(tier * 1000):04d}"
        started = time.perf_counter()
        with self.store.transaction() as tx:
            tx.execute("SET LOCAL maintenance_work_mem = '2GB'")
            tx.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON core_vectors USING hnsw"
                f" ((CAST(embedding AS vector({self.dim:d}))) vector_cosine_ops)"
                f" WITH (m = 16, ef_construction = 200) WHERE {where}"
            )
            tx.execute("ANALYZE core_vectors")
        return time.perf_counter() - started

    def walk(self, where: Any, query: np.ndarray, ef: int, tier: float | None) -> list[str]:
        from lore.core.store.vectors.filters import pg_vector, pg_where

        where_sql, params = pg_where(self.clauses(where))
        if tier is not None:
            where_sql += f" AND {_tier_predicate(tier)}"
        conn = self.store.connect()
        conn.execute(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', false),"
            " set_config('hnsw.ef_search', ?, false)",
            (str(ef),),
        )
        d = self.dim
        rows = conn.execute(
            "WITH hits AS MATERIALIZED ("
            f" SELECT id, item_key, CAST(embedding AS vector({d})) <=> CAST(? AS vector({d})) AS distance"
            f" FROM core_vectors WHERE dim = {d} AND collection = ? AND embedder = ? AND {where_sql}"
            " ORDER BY distance LIMIT ?)"
            " SELECT item_key FROM hits ORDER BY distance, id LIMIT ?",
            (
                pg_vector(_bytes(query)),
                self.index.collection,
                self.index.model,
                *params,
                min(WALK_ROWS * K, ef),
                K,
            ),
        ).fetchall()
        if len(rows) < K:  # fewer than k found: the exact scan answers, as the store's walk did
            return self.exact(where, query, gin=True)
        return [r[0] for r in rows]

    def planned(self, where: Any, query: np.ndarray) -> list[str]:
        """The planner: a sample of the table per filter (remembered), then the b-tree's exact
        scan for a filter keeping at most `EXACT_ROWS`, else the walk (in a tier if one holds it)."""
        key = json.dumps(where, sort_keys=True)
        if key not in self.plans:
            from lore.core.store.vectors.filters import pg_where

            where_sql, params = pg_where(self.clauses(where))
            conn = self.store.connect()
            total = conn.execute(
                "SELECT reltuples FROM pg_class WHERE oid = 'core_vectors'::regclass"
            ).fetchone()[0]
            percent = min(100.0, 100.0 * 2_000 / total) if total > 0 else 100.0
            kept = conn.execute(
                f"SELECT count(*) FILTER (WHERE {where_sql}) FROM core_vectors TABLESAMPLE SYSTEM (?)"
                " REPEATABLE (7) WHERE collection = ? AND embedder = ?",
                (*params, percent, self.index.collection, self.index.model),
            ).fetchone()[0] * (100.0 / percent)
            self.plans[key] = (
                ("exact", None) if kept <= EXACT_ROWS else ("hnsw", tier_of(self.clauses(where)))
            )
        path, tier = self.plans[key]
        if path == "exact":
            return self.exact(where, query, gin=False)
        return self.walk(where, query, EF_SEARCH * (2 if tier else 1), tier)


def tier_of(clauses: list[list[Any]]) -> float | None:
    """The smallest tier holding every clause's `depth` bound (None: a clause has none)."""
    bounds = []
    for clause in clauses:
        caps = [float(c.value) for c in clause if c.field == "depth" and c.op in ("<", "<=")]
        if not caps:
            return None
        bounds.append(min(caps))
    return next((t for t in TIERS if bounds and max(bounds) <= t), None)


def _tier_predicate(bound: float) -> str:
    from lore.core.store.vectors.filters import pg_value

    return f"{pg_value('depth', True)} <= CAST({float(bound)!r} AS DOUBLE PRECISION)"


def _bytes(query: np.ndarray) -> bytes:
    return (query / np.linalg.norm(query)).astype("<f4").tobytes()


# -- a run -------------------------------------------------------------------------------------


def timed(
    search: Callable[[int], list[str]], questions: int, repeat: int, truth: list[set[str]] | None
) -> tuple[float, float, float | None, list[set[str]]]:
    """p50 and p95 ms over `repeat` timed passes after one untimed pass, recall@10 of that pass
    against `truth` (None: this arm is the truth), and that pass's top-10s."""
    first = [set(search(i)[:RECALL_AT]) for i in range(questions)]
    recall = None
    if truth is not None:
        recall = sum(len(a & b) for a, b in zip(first, truth, strict=False)) / sum(
            len(t) for t in truth[:questions]
        )
    times = []
    for _ in range(repeat):
        for i in range(questions):
            t = time.perf_counter()
            search(i)
            times.append((time.perf_counter() - t) * 1000)
    return pct(times, 0.5), pct(times, 0.95), recall, first


def run_backend(name: str, team: Team, rows: dict[str, Any], queries: np.ndarray, repeat: int) -> list[tuple]:
    from lore.core.vectors import VectorIndex, VectorSpace

    space = VectorSpace("wordllama-team", queries.shape[1])
    indexes = {}
    for collection, items in rows.items():
        indexes[collection] = index = VectorIndex(collection, space)
        started = time.perf_counter()
        index.add(items)
        print(
            f"  [{name}] {len(items):,} {collection} vectors written in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )
    n = len(queries)
    table: list[tuple] = []
    plan = searches(team)
    if name == "sqlite":
        for label, collection, where in plan:
            index = indexes[collection]
            p50, p95, _, truth = timed(
                lambda i, ix=index, w=where: _keys(ix.search(queries[i], K, w(i))), n, repeat, None
            )
            table.append((name, label, "numpy, in memory (baseline)", p50, p95, 1.0))
            try:
                p50b, p95b, recall, _ = timed(
                    lambda i, ix=index, w=where: _keys(ix.search(queries[i], K, w(i), backend="sqlite-vec")),
                    min(n, SLOW_QUESTIONS),
                    1,
                    truth,
                )
            except Exception as exc:  # sqlite-vec missing here: say so, keep the rest
                print(f"  sqlite-vec skipped: {exc}", file=sys.stderr)
                continue
            table.append((name, label, "sqlite-vec exact scan", p50b, p95b, recall))
        return table
    tuned = {c: Tuned(ix) for c, ix in indexes.items()}
    truths: dict[str, list[set[str]]] = {}
    arms: list[tuple[str, Callable[[Tuned, Any, np.ndarray], list[str]], int]] = [
        ("exact scan (baseline)", lambda t, w, q: t.exact(w, q, gin=True), n),
        ("exact scan, no GIN", lambda t, w, q: t.exact(w, q, gin=False), min(n, SLOW_QUESTIONS)),
    ]

    def measure(
        arm: str,
        search: Callable[[Tuned, Any, np.ndarray], list[str]],
        questions: int,
        books_only: bool = False,
    ) -> None:
        for label, collection, where in plan:
            if books_only and collection != "books":
                continue
            t = tuned[collection]
            p50, p95, recall, first = timed(
                lambda i, t=t, w=where: search(t, w(i), queries[i]),
                questions,
                repeat if questions == n else 1,  # an arm reading every row: one timed pass
                truths.get(label),
            )
            truths.setdefault(label, first)
            table.append((name, label, arm, p50, p95, 1.0 if recall is None else recall))

    for arm, search, questions in arms:
        measure(arm, search, questions)
    seconds = tuned["books"].graph(None)
    print(f"  [postgres] whole HNSW graph over {team.rows:,} rows built in {seconds:.0f} s", file=sys.stderr)
    measure("HNSW walk, whole graph", lambda t, w, q: t.walk(w, q, EF_SEARCH, None), n)
    wanted = {
        tier_of(tuned["books"].clauses(where(i)))
        for label, c, where in plan
        if c == "books"
        for i in range(n)
    }
    for tier in sorted(t for t in wanted if t is not None):
        seconds = tuned["books"].graph(tier)
        print(f"  [postgres] prefix tier depth <= {tier} built in {seconds:.0f} s", file=sys.stderr)

    def in_tier(t: Tuned, w: Any, q: np.ndarray) -> list[str]:
        tier = tier_of(t.clauses(w))
        return t.walk(w, q, EF_SEARCH * (2 if tier else 1), tier)

    measure("HNSW walk, prefix tier", in_tier, n, books_only=True)
    started = time.perf_counter()
    for _, collection, where in plan:
        for i in range(min(n, 5)):
            tuned[collection].btree(where(i))
    print(f"  [postgres] b-trees built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    measure("exact scan, on-demand b-tree", lambda t, w, q: t.exact(w, q, gin=False), n)
    measure("planner (b-tree exact or walk)", lambda t, w, q: t.planned(w, q), n)
    return table


def _keys(hits: list[Any]) -> list[str]:
    return [h.key for h in hits]


def use_backend(url: str | None) -> None:
    from lore.core.store.open import forget_stores

    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-vectors-team-")
    os.environ.pop("LORE_DATABASE_URL", None)
    if url:
        os.environ["LORE_DATABASE_URL"] = url
    forget_stores()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the team, 30 questions, one pass")
    parser.add_argument("--repeat", type=int, default=2, help="timed passes over the questions")
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated backends to run")
    args = parser.parse_args()
    os.environ["LORE_EMBED"] = "hash"
    from vector_corpus import real_corpus

    team = Team(books=15, projects=5, repos=2) if args.quick else Team()
    repeat = 1 if args.quick else args.repeat
    corpus = real_corpus(335_000)  # one cached corpus; --quick takes its first rows
    order = np.lexsort((corpus.passage_seq, corpus.chapter_seq, corpus.book_id))[: team.rows]
    rows = team_rows(team, corpus.vectors[order])
    queries = corpus.queries[:30] if args.quick else corpus.queries
    print(
        f"team of 50{' (a tenth: --quick)' if args.quick else ''}: {team.books} books x {team.passages:,} passages,"
        f" {team.projects} projects x {team.rules} rules, {team.repos} repositories x {team.docs:,}"
        f" commits and threads: {team.rows:,} vectors of dimension {queries.shape[1]}; top-{K},"
        f" recall@{RECALL_AT} against the exact scan, {len(queries)} questions"
        f" ({SLOW_QUESTIONS} on the arms reading every row), {repeat} timed pass(es)\n"
    )
    table: list[tuple] = []
    server = None
    try:
        for name in args.backends.split(","):
            url = None
            if name == "postgres":
                from support.postgres import TestServer

                server = TestServer()
                url = server.fresh_database()
            use_backend(url)
            table += run_backend(name, team, rows, queries, repeat)
    finally:
        if server is not None:
            server.stop()
    base = {(b, s): p95 for b, s, arm, _, p95, _ in table if "baseline" in arm}
    print("| backend | search | arm | p50 ms | p95 ms | p95 / baseline | recall@10 |")
    print("|---|---|---|---:|---:|---:|---:|")
    for backend, search, arm, p50, p95, recall in table:
        ratio = p95 / base[(backend, search)] if (backend, search) in base else float("nan")
        print(f"| {backend} | {search} | {arm} | {p50:,.2f} | {p95:,.2f} | {ratio:.2f}x | {recall:.3f} |")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    from report import recorded

    with recorded(
        baseline="the plain exact scan of each backend (PostgreSQL: pgvector with the GIN containment; SQLite: numpy in memory), in the same run"
    ):
        main()
