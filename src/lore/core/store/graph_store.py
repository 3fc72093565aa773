"""The SQL of the generic graph: table DDL, edge writes that keep degrees, the bounded walk.

A domain names its three tables in a `GraphTables` and gets a `GraphStore` over them; the
records (`Hit`) and the walk's options (`BridgeCap`, `EdgeFilter`) are in `lore.core.graph`.
Methods run on the calling thread's connection, so inside the domain store's `transaction()`
they join that transaction: edges and their degrees commit together or not at all.

Edges are stored once with a direction but walked both ways. The walk suppresses hubs: a node
whose degree is above `max_degree` is still returned when reached, but is never expanded.
Results are ordered in the final SELECT (depth, then recency, then kind and key), never by
whatever order the CTE happened to produce.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lore.core.graph import BridgeCap, EdgeFilter, GraphTables, Hit
from lore.core.store.binding import bind_named
from lore.core.store.sqlite import Store


def graph_tables_sql(tables: GraphTables) -> str:
    """DDL for a fresh set of graph tables (copy it into a named migration; never regenerate)."""
    n, e, d = tables.nodes, tables.edges, tables.degrees
    return f"""
CREATE TABLE {n} (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    at REAL,
    degree INTEGER NOT NULL DEFAULT 0,
    UNIQUE (kind, key)
);
CREATE TABLE {e} (
    src INTEGER NOT NULL,
    dst INTEGER NOT NULL,
    rel TEXT NOT NULL,
    at REAL,
    position INTEGER,
    PRIMARY KEY (src, dst, rel)
) WITHOUT ROWID;
CREATE INDEX {e}_dst ON {e} (dst, src);
CREATE TABLE {d} (
    node_id INTEGER NOT NULL,
    rel TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (node_id, rel)
) WITHOUT ROWID;
"""


class GraphStore:
    """One domain's graph tables in one Store."""

    def __init__(self, store: Store, tables: GraphTables):
        self.store = store
        self.tables = tables

    def refresh_degrees(self, node_ids: Iterable[int] | None = None) -> None:
        """Recount edges per node (all nodes, or only those given) into the degree table and column.

        A repair (or a domain writing edges some other way); `add_edges` keeps degrees as it goes.
        """
        conn = self.store.connect()
        n, e, d = self.tables.nodes, self.tables.edges, self.tables.degrees
        if node_ids is None:
            conn.execute(f"DELETE FROM {d}")
            conn.execute(
                f"INSERT INTO {d} (node_id, rel, n) SELECT node, rel, COUNT(*) FROM ("
                f" SELECT src AS node, rel FROM {e} UNION ALL SELECT dst, rel FROM {e}"
                f") GROUP BY node, rel"
            )
            conn.execute(
                f"UPDATE {n} SET degree = COALESCE((SELECT SUM(x.n) FROM {d} x WHERE x.node_id = {n}.id), 0)"
            )
            return
        ids = sorted(set(node_ids))
        if not ids:
            return
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS graph_touched (id INTEGER PRIMARY KEY)")
        conn.execute("DELETE FROM graph_touched")
        conn.executemany("INSERT INTO graph_touched (id) VALUES (?)", [(i,) for i in ids])
        conn.execute(f"DELETE FROM {d} WHERE node_id IN (SELECT id FROM graph_touched)")
        conn.execute(
            f"INSERT INTO {d} (node_id, rel, n) SELECT node, rel, COUNT(*) FROM ("
            f" SELECT e.src AS node, e.rel FROM {e} e JOIN graph_touched t ON t.id = e.src"
            f" UNION ALL"
            f" SELECT e.dst, e.rel FROM {e} e JOIN graph_touched t ON t.id = e.dst"
            f") GROUP BY node, rel"
        )
        conn.execute(
            f"UPDATE {n} SET degree = COALESCE("
            f"(SELECT SUM(x.n) FROM {d} x WHERE x.node_id = {n}.id), 0)"
            f" WHERE id IN (SELECT id FROM graph_touched)"
        )
        conn.execute("DELETE FROM graph_touched")

    def add_edges(self, rows: Iterable[tuple]) -> int:
        """Insert edges (src, dst, rel, at) and count each new one into both ends' degrees.

        Run it inside the domain store's transaction: the edges and the degrees then commit
        together or not at all, so a degree never disagrees with the stored edges, whatever
        stops a writer. An edge already stored (or repeated in `rows`) keeps its first time and
        counts once. The cost is that of the rows given, however many edges the touched nodes
        already have. Returns how many edges were new.
        """
        conn = self.store.connect()
        n, e, d = self.tables.nodes, self.tables.edges, self.tables.degrees
        conn.execute(
            "CREATE TEMP TABLE IF NOT EXISTS graph_new_edges (src INTEGER NOT NULL,"
            " dst INTEGER NOT NULL, rel TEXT NOT NULL, at REAL, PRIMARY KEY (src, dst, rel))"
            " WITHOUT ROWID"
        )
        conn.execute("DELETE FROM graph_new_edges")
        conn.executemany(
            "INSERT OR IGNORE INTO graph_new_edges (src, dst, rel, at) VALUES (?, ?, ?, ?)", rows
        )
        conn.execute(
            f"DELETE FROM graph_new_edges WHERE EXISTS (SELECT 1 FROM {e} x WHERE x.src ="
            f" graph_new_edges.src AND x.dst = graph_new_edges.dst AND x.rel = graph_new_edges.rel)"
        )
        added = conn.execute(
            f"INSERT INTO {e} (src, dst, rel, at) SELECT src, dst, rel, at FROM graph_new_edges"
        ).rowcount
        if added:
            ends = (
                "SELECT src AS node, rel FROM graph_new_edges UNION ALL SELECT dst, rel FROM graph_new_edges"
            )
            conn.execute(
                f"INSERT INTO {d} (node_id, rel, n) SELECT node, rel, COUNT(*) FROM ({ends})"
                f" WHERE true GROUP BY node, rel ON CONFLICT (node_id, rel) DO UPDATE SET n = n + excluded.n"
            )
            conn.execute(
                f"UPDATE {n} SET degree = degree + g.c FROM (SELECT node, COUNT(*) AS c FROM ({ends})"
                f" GROUP BY node) AS g WHERE {n}.id = g.node"
            )
        conn.execute("DELETE FROM graph_new_edges")
        return added

    def walk(
        self,
        start: int | Sequence[int],
        *,
        depth: int = 3,
        max_degree: int | None = 20,
        relations: Iterable[str] | None = None,
        since: float | None = None,
        until: float | None = None,
        bridge_cap: BridgeCap | None = None,
        max_position: int | None = None,
        edge_filter: EdgeFilter | None = None,
        kinds: Iterable[str] | None = None,
        limit: int | None = None,
        include_start: bool = False,
    ) -> list[Hit]:
        """Every node within `depth` hops of `start`, nearest first, then most recent first.

        - `max_degree`: nodes above it are returned but not expanded (start nodes always expand);
          None turns suppression off.
        - `relations`: only these edge types are followed.
        - `since`/`until`: only edges whose time falls in the window are followed.
        - `bridge_cap`: see `BridgeCap`.
        - `max_position` / `edge_filter`: hooks for domains with ordered content (a reader's
          chapter cap) or other edge rules, applied inside the query.
        - `kinds`: which node kinds to return (the walk still passes through the others).
        """
        if depth < 0:
            raise ValueError("depth must be >= 0")
        starts = [start] if isinstance(start, int) else list(start)
        if not starts:
            return []
        n, e, d = self.tables.nodes, self.tables.edges, self.tables.degrees
        params: dict[str, Any] = {"w_depth": depth}
        for i, node_id in enumerate(starts):
            params[f"w_s{i}"] = int(node_id)
        start_values = ", ".join(f"(:w_s{i})" for i in range(len(starts)))

        expand = ["w.depth < :w_depth"]
        if max_degree is not None:
            params["w_max_degree"] = max_degree
            expand.append("(w.depth = 0 OR n.degree <= :w_max_degree)")
        edge_ok: list[str] = []
        if relations is not None:
            rels = sorted(set(relations))
            if not rels:
                return []
            edge_ok.append(f"e.rel IN ({bind_named(params, 'w_rel', rels)})")
        if since is not None:
            params["w_since"] = since
            edge_ok.append("(e.at IS NULL OR e.at >= :w_since)")
        if until is not None:
            params["w_until"] = until
            edge_ok.append("(e.at IS NULL OR e.at <= :w_until)")
        if max_position is not None:
            params["w_max_position"] = max_position
            edge_ok.append("(e.position IS NULL OR e.position <= :w_max_position)")
        if edge_filter is not None:
            clash = [k for k in edge_filter.params if k.startswith("w_")]
            if clash:
                raise ValueError(f"edge filter parameters must not start with 'w_': {clash}")
            params.update(edge_filter.params)
            edge_ok.append(f"({edge_filter.sql})")
        if bridge_cap is not None:
            params.update(w_cap_rel=bridge_cap.rel, w_cap_limit=bridge_cap.limit)
            kind_test = ""
            if bridge_cap.kind is not None:
                params["w_cap_kind"] = bridge_cap.kind
                kind_test = " AND n.kind = :w_cap_kind"
            edge_ok.append(
                f"NOT (w.depth > 0 AND e.rel = :w_cap_rel{kind_test} AND EXISTS ("
                f"SELECT 1 FROM {d} c WHERE c.node_id = n.id AND c.rel = :w_cap_rel"
                f" AND c.n > :w_cap_limit))"
            )
        where = " AND ".join(expand + edge_ok)

        out_filter = ["1 = 1"] if include_start else ["best.depth > 0"]
        if kinds is not None:
            wanted = sorted(set(kinds))
            if not wanted:
                return []
            out_filter.append(f"n.kind IN ({bind_named(params, 'w_kind', wanted)})")
        limit_sql = ""
        if limit is not None:
            params["w_limit"] = int(limit)
            limit_sql = "LIMIT :w_limit"

        sql = f"""
WITH RECURSIVE walk(node, depth) AS (
    SELECT column1, 0 FROM (VALUES {start_values})
    UNION
    SELECT e.dst, w.depth + 1 FROM walk w
        JOIN {n} n ON n.id = w.node
        JOIN {e} e ON e.src = w.node
        WHERE {where}
    UNION
    SELECT e.src, w.depth + 1 FROM walk w
        JOIN {n} n ON n.id = w.node
        JOIN {e} e ON e.dst = w.node
        WHERE {where}
),
best(node, depth) AS (SELECT node, MIN(depth) FROM walk GROUP BY node)
SELECT n.id, n.kind, n.key, n.label, n.at, n.degree, best.depth
FROM best JOIN {n} n ON n.id = best.node
WHERE {" AND ".join(out_filter)}
ORDER BY best.depth ASC, n.at IS NULL, n.at DESC, n.kind, n.key, n.id
{limit_sql}
"""
        return [Hit(*row) for row in self.store.connect().execute(sql, params)]
