"""Benchmark: the candidate embedders on Lore's three uses, then vector search latency.

The candidate table (measured by `bench/embedders.py`, one row per embedder that runs here
offline from a package; remote ones are not measured): install size, import and load time,
passages/s, books top-3 (vectors alone and through `lore.books.search`), rules must-recall of a
pure-embedding top-k over `bench/data/rules_tasks/`, and the paraphrase catch rate when
`tests/data/gate_paraphrases.jsonl` exists (the column says when it does not). Quality is given
as `dev / held-out`. docs/models.md has the table of a run and the choice it led to.

Search: p50/p95 per query at 10k and 100k vectors (384 dimensions), unfiltered and with a
reader's chapter cap (`chapter_seq <= 10`, a tenth of the rows), for each index path: the
in-memory NumPy scan (warm), the same scan reloading the matrix from SQLite for every query
(what the in-memory cache saves), and sqlite-vec's SQL scan where it can load. The ratio is
against the sqlite-vec scan (or the cold NumPy scan when sqlite-vec is unavailable). The two
slow paths time `--slow-queries` queries (40 by default) rather than all of them; the table
says how many each row timed, and a p95 from fewer than 20 would only be the maximum, so it
is not given.

Rules speed (`--rules-speed`, also `--only-rules-speed`): for each local semantic model rules
can use (`rules.embed`: wordllama, minilm-onnx), `get_rules` as `lore.rules.service` serves it
in `hybrid` mode over 1,000 real rules of ../shared/data/rules: the first call of a process that
has never embedded them (every rule embedded), the first call of a fresh process once they are
in the store's embedding cache (a cacheable model reads them back), and the p50 of warm calls.

    .venv/bin/python bench/embed.py [--repeat 3] [--rules-k 10] [--skip-search]
        [--book-questions FILE] [--paraphrases FILE] [--sizes 10000 100000] [--queries 100]
        [--rules-speed] [--only-rules-speed] [--speed-rules 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

import numpy as np

DIM = 384
CAP = {"chapter_seq": ("<=", 10)}
MIN_FOR_P95 = 20  # fewer samples and the 95th percentile is just the slowest one


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def time_queries(search: Callable[[np.ndarray], object], queries: np.ndarray) -> list[float]:
    out = []
    for q in queries:
        started = time.perf_counter()
        search(q)
        out.append((time.perf_counter() - started) * 1000)
    return out


def p95_text(times: list[float]) -> str:
    return f"{pct(times, 0.95):.2f}" if len(times) >= MIN_FOR_P95 else "-"


def bench_search(sizes: list[int], n_queries: int, n_slow: int) -> list[tuple[str, ...]]:
    from lore.core import vector_matrix
    from lore.core.vectors import VectorIndex, VectorSpace, sqlite_vec_status

    vec_ok, vec_how = sqlite_vec_status()
    rng = np.random.default_rng(0)
    rows: list[tuple[str, ...]] = []
    for size in sizes:
        index = VectorIndex(f"bench-{size}", VectorSpace("bench-random", DIM))
        matrix = rng.normal(size=(size, DIM)).astype(np.float32)
        started = time.perf_counter()
        for start in range(0, size, 5000):
            index.add(
                (f"p{i}", matrix[i], {"chapter_seq": i % 100 + 1, "book": f"b{i % 3}"})
                for i in range(start, min(size, start + 5000))
            )
        build = time.perf_counter() - started
        started = time.perf_counter()
        index.search(matrix[0], k=10)
        load = time.perf_counter() - started
        print(
            f"{size:,} vectors: stored in {build:.1f}s, first load into memory {load * 1000:.0f} ms",
            file=sys.stderr,
        )
        queries = rng.normal(size=(n_queries, DIM)).astype(np.float32)
        few = queries[: min(n_queries, n_slow)]
        for label, where in (("unfiltered", None), ("chapter_seq <= 10", CAP)):
            results: dict[str, list[float]] = {}
            results["numpy (in memory)"] = time_queries(
                lambda q, w=where, ix=index: ix.search(q, k=10, where=w), queries
            )

            def cold(q: np.ndarray, w: object = where, ix: VectorIndex = index) -> object:
                vector_matrix._loaded.clear()  # what every query would cost without the cache
                return ix.search(q, k=10, where=w)

            results["numpy (reload each query)"] = time_queries(cold, few)
            if vec_ok:
                results["sqlite-vec (SQL scan)"] = time_queries(
                    lambda q, w=where, ix=index: ix.search(q, k=10, where=w, backend="sqlite-vec"), few
                )
            base_name = "sqlite-vec (SQL scan)" if vec_ok else "numpy (reload each query)"
            base = statistics.median(results[base_name])
            for name, times in results.items():
                p50 = statistics.median(times)
                rows.append(
                    (
                        f"{size:,}",
                        label,
                        name,
                        f"{p50:.2f}",
                        p95_text(times),
                        f"{base / p50:.1f}x",
                        str(len(times)),
                    )
                )
        index.clear()
    if not vec_ok:
        print(f"sqlite-vec path skipped: {vec_how}", file=sys.stderr)
    return rows


RULES_SPEED_MODELS = ("wordllama", "minilm-onnx")
_FIRST_CALL = """
import json, sys, time
from lore.rules import service
project = service.find_project(sys.argv[1])
t0 = time.perf_counter()
service.rules_for_change(project, ["src/api/orders.py"], task=sys.argv[2], mode="hybrid")
print(json.dumps({"ms": (time.perf_counter() - t0) * 1000}))
"""


def rules_speed(count: int, repeat: int) -> list[tuple[str, ...]]:
    """get_rules in hybrid mode over `count` real rules, per local semantic model: cold first
    call, first call of a fresh process with the vectors cached, warm p50/p95."""
    import subprocess

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import rules_select
    from lore.rules import service
    from lore.rules.serve.meaning import semantic_embedder
    from lore.rules.store.rules import rules_store

    texts = rules_select.rule_texts(count)
    rows = []
    work = Path(tempfile.mkdtemp(prefix="lore-bench-rules-speed-"))
    for model in RULES_SPEED_MODELS:  # one home, one project per model
        os.environ["LORE_RULES_EMBED"] = model

        try:
            semantic_embedder(model)
        except Exception as exc:  # not installed here: say so in the row
            rows.append((model, f"{count:,}", "-", "-", "-", "-", f"skipped: {exc}"))
            continue
        project, _ = service.register_project(rules_select.make_repo(work / model))
        store = rules_store()
        for title, text in texts:
            store.insert_rule(project.id, {"text": text, "title": title, "status": "active", "tagged": True})
        tasks = rules_select.TASKS
        t0 = time.perf_counter()
        service.rules_for_change(project, ["src/api/orders.py"], task=tasks[0], mode="hybrid")
        cold_ms = (time.perf_counter() - t0) * 1000
        warm = []
        for _ in range(repeat):
            for task in tasks:
                t0 = time.perf_counter()
                service.rules_for_change(project, ["src/api/orders.py"], task=task, mode="hybrid")
                warm.append((time.perf_counter() - t0) * 1000)
        done = subprocess.run(
            [sys.executable, "-c", _FIRST_CALL, project.name, tasks[1]],
            capture_output=True,
            text=True,
            check=True,
            env=os.environ,
        )
        fresh_ms = json.loads(done.stdout.strip().splitlines()[-1])["ms"]
        rows.append(
            (
                model,
                f"{count:,}",
                f"{cold_ms:,.0f}",
                f"{fresh_ms:,.0f}",
                f"{statistics.median(warm):.2f}",
                p95_text(warm),
                str(len(warm)),
            )
        )
    os.environ.pop("LORE_RULES_EMBED", None)
    return rows


def table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))  # noqa: E731
    return "\n".join([line(headers), line(tuple("-" * w for w in widths)), *map(line, rows)])


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--slow-queries",
        type=int,
        default=40,
        help="queries timed on the two slow paths (reload each query, sqlite-vec)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="fresh interpreters timed per candidate")
    parser.add_argument("--rules-k", type=int, default=10, help="rules taken per task by the vectors alone")
    parser.add_argument(
        "--real-rules", type=int, default=4000, help="real rules the paraphrase threshold is set on"
    )
    parser.add_argument("--book-questions", type=Path, help="another questions file (JSON lines)")
    parser.add_argument("--paraphrases", type=Path, help="another paraphrase file (JSON lines)")
    parser.add_argument("--model2vec", metavar="DIR", help="also measure a model2vec model saved in DIR")
    parser.add_argument("--skip-candidates", action="store_true", help="only the search latency")
    parser.add_argument("--skip-search", action="store_true", help="only the candidate table")
    parser.add_argument("--rules-speed", action="store_true", help="also time get_rules per rules model")
    parser.add_argument("--only-rules-speed", action="store_true", help="only time get_rules per model")
    parser.add_argument("--speed-rules", type=int, default=1000, help="rules in the get_rules timing")
    return parser.parse_args(argv)


def _pair(values: tuple[float, float]) -> str:
    return " / ".join("-" if np.isnan(v) else f"{v:.2f}" for v in values)


def candidate_table(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import embedders as em

    if args.book_questions:
        em.BOOK_QUESTIONS = args.book_questions
    if args.paraphrases:
        em.PARAPHRASES = args.paraphrases
    questions, source = em.book_questions()
    para = em.paraphrases()
    lib = em.Library.load(sorted({q.book for q in questions}))
    benign = em.real_rules(args.real_rules) if para else []
    candidates = list(em.CANDIDATES)
    if args.model2vec:
        folder = str(Path(args.model2vec).resolve())
        name = "model2vec " + Path(folder).name
        candidates.append(
            em.Candidate(name, "embedders", "DistilledStatic", "model2vec", "model2vec", folder)
        )
    rows, skipped = [], list(em.UNAVAILABLE)
    for cand in candidates:
        if cand.needs and find_spec(cand.needs) is None:
            skipped.append((cand.label, f"not installed here ({cand.needs})"))
            continue
        rows.append(em.measure(cand, lib, questions, para, benign, repeat=args.repeat, rules_k=args.rules_k))

    held = sum(q.held_out for q in questions)
    load = os.getloadavg()
    print(
        f"# books: {len(questions)} questions a passage answers ({len(questions) - held} dev, {held} held-out)"
        f" over {len(lib.ids)} books, from {source}"
    )
    print(f"# rules: bench/data/rules_tasks, the {args.rules_k} rules nearest each task by the vectors alone")
    if para:
        print(
            f"# paraphrases: {len(para)} from {em.PARAPHRASES.name}; threshold: at most"
            f" {em.FALSE_HOLDS:.1%} of {len(benign)} real rules held"
        )
    else:
        print(f"# paraphrase catch: skipped, {em.PARAPHRASES} does not exist yet")
    print(f"# passages/s: the {rows[0]['passages']} passages of {em.THROUGHPUT_BOOK}, no cache")
    print(
        f"# {os.cpu_count()} cores, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; quality as dev / held-out\n"
    )
    base = rows[0]["rate"]
    print(
        "| embedder | dim | install size | import ms | load ms | passages/s (x hash) | books top-3 vectors"
        f" | books top-3 search | rules must-recall@{args.rules_k} | paraphrase catch |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        catch = "skipped (no set)" if r["para"] is None else f"{_pair(r['para'][:2])} (at {r['para'][2]:.2f})"
        print(
            f"| {r['label']} | {r['dim']} | {r['size']} | {r['import_ms']:.0f} | {r['load_ms']:.0f} |"
            f" {r['rate']:,.0f} ({r['rate'] / base:.2f}x) | {_pair(r['books_vectors'])} |"
            f" {_pair(r['books_search'])} | {_pair(r['rules'])} | {catch} |"
        )
    for label, why in skipped:
        print(f"\n- not measured: {label}: {why}")


def main() -> None:
    args = parse_args()
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-embed-")
    if args.rules_speed or args.only_rules_speed:
        rows = rules_speed(args.speed_rules, repeat=3)
        load = os.getloadavg()
        print(
            f"get_rules, hybrid mode, {args.speed_rules:,} real rules, per rules.embed model"
            f" (load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; ms)"
        )
        head = (
            "rules.embed",
            "rules",
            "first call",
            "fresh process, cached",
            "warm p50",
            "warm p95",
            "calls",
        )
        print(table(head, rows) + "\n")
        if args.only_rules_speed:
            return
    if not args.skip_candidates:
        candidate_table(args)
    if args.skip_search:
        return
    search_rows = bench_search(args.sizes, args.queries, args.slow_queries)
    print(
        f"\nVector search, k=10, {DIM} dims (ratio: speed-up over the baseline scan; queries: how many were timed; no p95 from fewer than {MIN_FOR_P95})"
    )
    print(table(("vectors", "filter", "path", "p50 ms", "p95 ms", "ratio", "queries"), search_rows))


if __name__ == "__main__":
    from report import recorded

    with recorded(
        baseline="the hash embedder (quality), and the sqlite-vec SQL scan against the in-memory NumPy search, same run"
    ):
        main()
