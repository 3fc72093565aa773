"""The generic graph walk: hub suppression, filters and ordering, checked against a plain BFS."""

from __future__ import annotations

import random
import sqlite3
from collections import deque
from pathlib import Path

import pytest

from lore.core.graph import BridgeCap, EdgeFilter, GraphTables
from lore.core.store.base import Migration
from lore.core.store.graph_store import GraphStore, graph_tables_postgres_sql, graph_tables_sql
from lore.core.store.open import open_store, open_store_for

T = GraphTables(nodes="g_nodes", edges="g_edges", degrees="g_degrees")
MIGRATION = Migration("test/0001_graph", graph_tables_sql(T), postgres=graph_tables_postgres_sql(T))
pytestmark = pytest.mark.usefixtures("backend")


def _conn(tmp_path: Path) -> sqlite3.Connection:
    store = open_store_for([MIGRATION])
    store.migrate([MIGRATION])
    return store.connect()


def _graph(tmp_path: Path) -> GraphStore:
    return GraphStore(open_store_for([MIGRATION]), T)


def _add_nodes(conn, rows):  # rows: (id, kind, key, at)
    conn.executemany(
        "INSERT INTO g_nodes (id, kind, key, label, at) VALUES (?, ?, ?, ?, ?)",
        [(i, k, key, key, at) for i, k, key, at in rows],
    )


def _add_edges(conn, rows):  # rows: (src, dst, rel, at[, position])
    conn.executemany(
        "INSERT INTO g_edges (src, dst, rel, at, position) VALUES (?, ?, ?, ?, ?)",
        [(*r, None) if len(r) == 4 else r for r in rows],
    )


def _bfs(edges, degree, per_rel, start, depth, max_degree=None, rels=None, cap=None, kinds=None):
    """Reference: shortest distances where hubs (and capped relations) never expand."""
    adj: dict[int, list[tuple[int, str]]] = {}
    for s, d, rel, _at in edges:
        if rels is not None and rel not in rels:
            continue
        adj.setdefault(s, []).append((d, rel))
        adj.setdefault(d, []).append((s, rel))
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if dist[node] >= depth:
            continue
        if dist[node] > 0 and max_degree is not None and degree.get(node, 0) > max_degree:
            continue
        for nxt, rel in adj.get(node, []):
            if cap and dist[node] > 0 and rel == cap[0] and per_rel.get((node, rel), 0) > cap[1]:
                continue
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    dist.pop(start)
    return {n: dd for n, dd in dist.items() if kinds is None or kinds(n)}


def _random_graph(conn, graph, seed: int):
    rng = random.Random(seed)
    nodes = [(i, rng.choice(["a", "b", "c"]), f"n{i}", float(rng.randint(0, 1000))) for i in range(1, 121)]
    _add_nodes(conn, nodes)
    edges = set()
    for _ in range(260):
        s, d = rng.sample(range(1, 121), 2)
        edges.add((s, d, rng.choice(["R1", "R2", "R3"]), float(rng.randint(0, 1000))))
    hub = 7  # a node connected to many others, like a sweeping commit
    for other in rng.sample(range(1, 121), 50):
        if other != hub:
            edges.add((hub, other, "R1", 5.0))
    edges = sorted({(s, d, r): (s, d, r, at) for s, d, r, at in edges}.values())
    _add_edges(conn, edges)
    graph.refresh_degrees()
    degree = {r[0]: r[1] for r in conn.execute("SELECT id, degree FROM g_nodes")}
    per_rel = {(r[0], r[1]): r[2] for r in conn.execute("SELECT node_id, rel, n FROM g_degrees")}
    return nodes, edges, degree, per_rel


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("max_degree", [None, 10, 5])
def test_walk_matches_reference_bfs(tmp_path: Path, seed: int, max_degree: int | None) -> None:
    conn = _conn(tmp_path)
    graph = _graph(tmp_path)
    _nodes, edges, degree, per_rel = _random_graph(conn, graph, seed)
    for start in (1, 7, 50):
        hits = graph.walk(start, depth=3, max_degree=max_degree)
        got = {h.id: h.depth for h in hits}
        assert got == _bfs(edges, degree, per_rel, start, 3, max_degree)


def test_filters_match_reference(tmp_path: Path) -> None:
    conn = _conn(tmp_path)
    graph = _graph(tmp_path)
    nodes, edges, degree, per_rel = _random_graph(conn, graph, 4)
    kind = {i: k for i, k, _key, _at in nodes}
    got = {h.id: h.depth for h in graph.walk(3, depth=3, max_degree=None, relations={"R1", "R2"})}
    assert got == _bfs(edges, degree, per_rel, 3, 3, None, rels={"R1", "R2"})
    got = {h.id: h.depth for h in graph.walk(3, depth=3, max_degree=None, kinds={"a"})}
    assert got == _bfs(edges, degree, per_rel, 3, 3, None, kinds=lambda n: kind[n] == "a")
    got = {h.id: h.depth for h in graph.walk(3, depth=3, max_degree=None, bridge_cap=BridgeCap("R1", 4))}
    assert got == _bfs(edges, degree, per_rel, 3, 3, None, cap=("R1", 4))
    late = [edge for edge in edges if edge[3] >= 500]
    got = {h.id: h.depth for h in graph.walk(3, depth=3, max_degree=None, since=500)}
    assert got == _bfs(late, degree, per_rel, 3, 3, None)


def _star(conn, graph):
    """file 1 - commit 2 (sweeping, touches 3..32) ; file 1 - commit 40 - file 41."""
    _add_nodes(conn, [(1, "file", "start.py", 10.0), (2, "commit", "sweep", 50.0)])
    _add_nodes(conn, [(i, "file", f"f{i}.py", 1.0) for i in range(3, 33)])
    _add_nodes(conn, [(40, "commit", "small", 20.0), (41, "file", "neighbour.py", 20.0)])
    _add_edges(conn, [(2, 1, "MODIFIED", 50.0), (40, 1, "MODIFIED", 20.0), (40, 41, "MODIFIED", 20.0)])
    _add_edges(conn, [(2, i, "MODIFIED", 50.0) for i in range(3, 33)])
    graph.refresh_degrees()


def test_hub_is_returned_but_not_expanded(tmp_path: Path) -> None:
    conn = _conn(tmp_path)
    graph = _graph(tmp_path)
    _star(conn, graph)
    suppressed = {h.key: h.depth for h in graph.walk(1, depth=2, max_degree=20)}
    assert suppressed == {"sweep": 1, "small": 1, "neighbour.py": 2}
    unsuppressed = {h.key for h in graph.walk(1, depth=2, max_degree=None)}
    assert {"sweep", "small", "neighbour.py", "f3.py", "f32.py"} <= unsuppressed
    # the start node expands even when it is itself a hub
    from_hub = graph.walk(2, depth=1, max_degree=20)
    assert len(from_hub) == 31
    capped = {
        h.key
        for h in graph.walk(
            1,
            depth=2,
            max_degree=None,
            bridge_cap=BridgeCap("MODIFIED", 10, kind="commit"),
        )
    }
    assert capped == {"sweep", "small", "neighbour.py"}


def test_order_is_depth_then_recency_not_node_id(tmp_path: Path) -> None:
    """The seed's bug: without an outer ORDER BY, deep nodes with small ids came first."""
    conn = _conn(tmp_path)
    graph = _graph(tmp_path)
    # deep nodes get the smallest ids and the newest times; near nodes large ids, old times
    _add_nodes(conn, [(1, "commit", "bump-1", 900.0), (2, "commit", "bump-2", 901.0)])
    _add_nodes(conn, [(3, "file", "deps.txt", 800.0)])
    _add_nodes(conn, [(100, "file", "oauth2.py", 5.0)])
    _add_nodes(conn, [(200, "commit", "scopes revamped", 30.0), (201, "commit", "auth code", 40.0)])
    _add_edges(conn, [(200, 100, "MODIFIED", 30.0), (201, 100, "MODIFIED", 40.0)])
    _add_edges(conn, [(201, 3, "MODIFIED", 40.0), (1, 3, "MODIFIED", 900.0), (2, 3, "MODIFIED", 901.0)])
    graph.refresh_degrees()
    hits = graph.walk(100, depth=3, max_degree=None)
    assert [h.key for h in hits] == ["auth code", "scopes revamped", "deps.txt", "bump-2", "bump-1"]
    assert [h.depth for h in hits] == [1, 1, 2, 3, 3]
    top = graph.walk(100, depth=3, max_degree=None, limit=2)
    assert [h.key for h in top] == ["auth code", "scopes revamped"]


def test_position_cap_and_edge_filter(tmp_path: Path) -> None:
    conn = _conn(tmp_path)
    graph = _graph(tmp_path)
    _add_nodes(
        conn,
        [
            (1, "entity", "hero", None),
            (2, "entity", "friend", None),
            (3, "entity", "villain", None),
        ],
    )
    _add_edges(conn, [(1, 2, "MEETS", None, 1), (1, 3, "MEETS", None, 9)])
    graph.refresh_degrees()
    assert {h.key for h in graph.walk(1, max_position=5)} == {"friend"}
    flt = EdgeFilter("e.position >= :min_pos", {"min_pos": 5})
    assert {h.key for h in graph.walk(1, edge_filter=flt)} == {"villain"}
    with pytest.raises(ValueError):
        graph.walk(1, edge_filter=EdgeFilter("1", {"w_depth": 1}))


def test_refresh_degrees_for_some_nodes(tmp_path: Path) -> None:
    conn = _conn(tmp_path)
    graph = _graph(tmp_path)
    _star(conn, graph)
    _add_edges(conn, [(40, 3, "MODIFIED", 21.0)])
    graph.refresh_degrees([40, 3])
    deg = {r[0]: r[1] for r in conn.execute("SELECT id, degree FROM g_nodes WHERE id IN (3, 40)")}
    assert deg == {3: 2, 40: 3}


def test_table_names_are_checked() -> None:
    with pytest.raises(ValueError):
        GraphTables(nodes="x; DROP TABLE y", edges="e", degrees="d")


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_walks_are_the_same_on_both_backends(tmp_path: Path) -> None:
    """One seeded graph in a SQLite file and in PostgreSQL: every walk returns the same hits in the
    same order, whatever the options."""
    local = open_store(tmp_path / "graph.db")
    local.migrate([MIGRATION])
    stores = [GraphStore(local, T), _graph(tmp_path)]
    assert stores[1].store.dialect == "postgres"
    conns = [local.connect(), _conn(tmp_path)]
    for conn, graph in zip(conns, stores, strict=True):
        _random_graph(conn, graph, 5)
    options: list[dict] = [
        {"depth": 3, "max_degree": None},
        {"depth": 3, "max_degree": 5},
        {"depth": 2, "relations": {"R1", "R3"}, "kinds": {"a", "b"}},
        {"depth": 3, "since": 300.0, "until": 800.0, "bridge_cap": BridgeCap("R2", 3, kind="b")},
        {"depth": 4, "max_degree": 8, "limit": 15, "include_start": True},
        {"depth": 2, "edge_filter": EdgeFilter("e.rel <> :skip", {"skip": "R2"})},
    ]
    empty = 0
    for start in (1, 7, [3, 60], 119):
        for opts in options:
            local_hits, pg_hits = (graph.walk(start, **opts) for graph in stores)
            assert pg_hits == local_hits, (start, opts)
            empty += not local_hits
    assert empty <= 2  # the comparisons are of real walks, not of empty lists
