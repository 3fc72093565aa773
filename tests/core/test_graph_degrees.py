"""`add_edges` keeps degrees with the edges: equal to a full recount after any sequence of
batches (repeats included), and gone with the edges when the transaction rolls back."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from lore.core.graph import GraphTables
from lore.core.store.base import Migration
from lore.core.store.graph_store import GraphStore, graph_tables_postgres_sql, graph_tables_sql
from lore.core.store.open import open_store_for

T = GraphTables(nodes="g_nodes", edges="g_edges", degrees="g_degrees")
MIGRATION = Migration("test/0001_graph", graph_tables_sql(T), postgres=graph_tables_postgres_sql(T))
pytestmark = pytest.mark.usefixtures("backend")


def _store(tmp_path: Path):
    store = open_store_for([MIGRATION])
    store.migrate([MIGRATION])
    with store.transaction() as conn:
        conn.executemany(
            "INSERT INTO g_nodes (id, kind, key) VALUES (?, 'n', ?)", [(i, str(i)) for i in range(1, 31)]
        )
    return store


def _degrees(conn: sqlite3.Connection) -> tuple[dict, set]:
    nodes = dict(conn.execute("SELECT id, degree FROM g_nodes").fetchall())
    per_rel = {tuple(r) for r in conn.execute("SELECT node_id, rel, n FROM g_degrees WHERE n > 0")}
    return nodes, per_rel


def test_batches_with_repeats_count_like_a_full_recount(tmp_path: Path) -> None:
    store = _store(tmp_path)
    rng = random.Random(3)
    total = 0
    for _batch in range(6):
        rows = [
            (rng.randint(1, 30), rng.randint(1, 30), rng.choice("AB"), float(rng.randint(0, 9)))
            for _ in range(40)
        ]
        rows += rows[:5]  # repeated inside the batch
        with store.transaction() as conn:
            total += GraphStore(store, T).add_edges(rows)
    conn = store.connect()
    assert total == conn.execute("SELECT COUNT(*) FROM g_edges").fetchone()[0]
    kept = _degrees(conn)
    with store.transaction():
        GraphStore(store, T).refresh_degrees()
    assert _degrees(conn) == kept
    assert sum(kept[0].values()) == 2 * total
    # an edge already stored keeps its first time and is not counted again
    src, dst, rel, at = conn.execute("SELECT src, dst, rel, at FROM g_edges LIMIT 1").fetchone()
    with store.transaction():
        assert GraphStore(store, T).add_edges([(src, dst, rel, at + 100)]) == 0
    assert _degrees(conn) == kept
    assert (
        conn.execute(
            "SELECT at FROM g_edges WHERE src = ? AND dst = ? AND rel = ?", (src, dst, rel)
        ).fetchone()[0]
        == at
    )


def test_a_rolled_back_batch_leaves_edges_and_degrees_as_they_were(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with store.transaction() as conn:
        GraphStore(store, T).add_edges([(1, 2, "A", 1.0), (2, 3, "A", 2.0)])
    before = _degrees(store.connect())
    with pytest.raises(RuntimeError), store.transaction() as conn:
        GraphStore(store, T).add_edges([(1, 3, "A", 3.0), (1, 4, "B", 4.0)])
        raise RuntimeError("the writer died mid-batch")
    conn = store.connect()
    assert (
        _degrees(conn)
        == before
        == ({**{i: 0 for i in range(1, 31)}, 1: 1, 2: 2, 3: 1}, {(1, "A", 1), (2, "A", 2), (3, "A", 1)})
    )
    assert conn.execute("SELECT COUNT(*) FROM g_edges").fetchone()[0] == 2
