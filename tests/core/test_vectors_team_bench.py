"""bench/vectors_team.py searches what it says it searches: each filter keeps the rows its docstring
states, counted by the real vector index on a real store."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

from lore.core.vectors import VectorIndex, VectorSpace

BENCH = Path(__file__).resolve().parents[2] / "bench" / "vectors_team.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_vectors_team", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_each_search_keeps_the_rows_the_team_shape_gives_it() -> None:
    bench = _bench()
    team = bench.Team(books=8, projects=3, repos=2)  # the full team's units, fewer of them
    assert bench.Team().rows == 150 * 1_500 + 50 * 200 + 20 * 5_000 == 335_000
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(team.rows, 8)).astype(np.float32)
    rows = bench.team_rows(team, vectors)
    assert {k: len(v) for k, v in rows.items()} == {"books": 12_000, "rules": 600, "history": 10_000}
    space = VectorSpace("team-test", 8)
    indexes = {name: VectorIndex(name, space) for name in rows}
    for name, items in rows.items():
        indexes[name].add(items)
    kept = {
        label: [indexes[collection].count(where(i)) for i in range(3)]
        for label, collection, where in bench.searches(team)
    }
    assert kept == {
        "one book, capped": [600] * 3,  # chapter 12 of 30, 50 passages each
        "a series, capped": [3 * 1_500 + 600] * 3,  # three read, one to chapter 12
        "one book, whole": [1_500] * 3,
        "a project's rules": [200] * 3,
        "a repository's history": [5_000] * 3,
        "a repository as of a date": [2_501] * 3,  # moments 0 to 2,500
    }
    books = [indexes["books"].search(vectors[0], k=50, where=bench.searches(team)[0][2](i)) for i in range(3)]
    assert [{h.meta["book_id"] for h in hits} for hits in books] == [{1}, {2}, {3}]  # a book per question
