"""Benchmark: embedding throughput per available embedder, and vector search latency.

Embedders: passages per second for the deterministic hash embedder (the baseline), the
packaged MiniLM model when `lore[local-embed]` is installed (first run, then the same
passages again from the cache), in the same run.

Search: p50/p95 per query at 10k and 100k vectors (384 dimensions), unfiltered and with a
reader's chapter cap (`chapter_seq <= 10`, a tenth of the rows), for each index path: the
in-memory NumPy scan (warm), the same scan reloading the matrix from SQLite for every query
(what the in-memory cache saves), and sqlite-vec's SQL scan where it can load. The ratio is
against the sqlite-vec scan (or the cold NumPy scan when sqlite-vec is unavailable). The two
slow paths time `--slow-queries` queries (40 by default) rather than all of them; the table
says how many each row timed, and a p95 from fewer than 20 would only be the maximum, so it
is not given.

    .venv/bin/python bench/embed.py [--sizes 10000 100000] [--queries 100] [--slow-queries 40]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

DIM = 384
CAP = {"chapter_seq": ("<=", 10)}
MIN_FOR_P95 = 20  # fewer samples and the 95th percentile is just the slowest one
WORDS = (
    "the detective walked along the foggy street toward baker house where a letter waited "
    "under the lamp inspector lestrade frowned at the footprints in the mud while watson "
    "took notes about the carriage the stranger the missing jewel and the ship bound for "
    "india every clue pointed somewhere new but the pipe smoke and the violin kept their "
    "secrets until morning light fell across the table covered in papers maps and ash"
).split()


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def passages(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 140))) for _ in range(n)]


def rate(embed: Callable[[list[str]], object], texts: list[str]) -> float:
    started = time.perf_counter()
    embed(texts)
    return len(texts) / (time.perf_counter() - started)


def bench_embedders(count: int) -> list[tuple[str, float]]:
    from lore.core.embed import HashEmbedder
    from lore.core.embed.local import MiniLMEmbedder, local_model_installed

    rows = []
    texts = passages(count)
    hash_embedder = HashEmbedder()
    hash_embedder.embed(texts[:50])  # warm the per-word cache a little, as a real run would
    rows.append(("hash-ngram-v1 (baseline)", rate(hash_embedder.embed, passages(count, seed=2))))
    if local_model_installed():
        minilm = MiniLMEmbedder()
        minilm.embed(["warm up the model"])  # loading the weights is not embedding
        small = texts[: max(50, count // 4)]
        rows.append(("minilm-l6-v2 (first run)", rate(lambda t: minilm.embed(t, progress=False), small)))
        rows.append(("minilm-l6-v2 (cached re-run)", rate(minilm.embed, small)))
    else:
        rows.append(("minilm-l6-v2: not installed (pip install 'lore[local-embed]')", float("nan")))
    return rows


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
    from lore.core import vectors
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
                vectors._loaded.clear()  # what every query would cost without the cache
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
    parser.add_argument("--passages", type=int, default=2000)
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-embed-")

    embed_rows = bench_embedders(args.passages)
    base = embed_rows[0][1]
    print("\nEmbedding throughput (synthetic passages of 60-140 words)")
    print(
        table(
            ("embedder", "passages/s", "vs hash"),
            [
                (name, "-" if np.isnan(r) else f"{r:,.0f}", "-" if np.isnan(r) else f"{r / base:.2f}x")
                for name, r in embed_rows
            ],
        )
    )
    search_rows = bench_search(args.sizes, args.queries, args.slow_queries)
    print(
        f"\nVector search, k=10, {DIM} dims (ratio: speed-up over the baseline scan;"
        f" queries: how many were timed; no p95 from fewer than {MIN_FOR_P95})"
    )
    print(table(("vectors", "filter", "path", "p50 ms", "p95 ms", "ratio", "queries"), search_rows))


if __name__ == "__main__":
    main()
