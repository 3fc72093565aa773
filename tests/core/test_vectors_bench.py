"""bench/embed.py times enough queries on every path for its p95 to mean something."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "embed.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_embed", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_search_path_is_timed_often_enough_for_a_p95() -> None:
    bench = _bench()
    defaults = bench.parse_args([])
    assert defaults.slow_queries >= bench.MIN_FOR_P95 >= 20
    assert defaults.queries >= bench.MIN_FOR_P95
    rows = bench.bench_search([300], 30, defaults.slow_queries)
    paths = {row[2] for row in rows}
    assert {"numpy (in memory)", "numpy (reload each query)"} <= paths
    for *_, p95, _ratio, timed in rows:
        assert int(timed) >= bench.MIN_FOR_P95 and p95 != "-"


def test_a_p95_from_too_few_queries_is_not_given() -> None:
    bench = _bench()
    rows = bench.bench_search([300], 30, 5)
    slow = [row for row in rows if row[2] != "numpy (in memory)"]
    assert slow and all(row[4] == "-" and row[6] == "5" for row in slow)
    assert bench.p95_text([float(i) for i in range(40)]) == "37.00"
