"""Read a history graph back for comparisons in tests: keyed by (kind, key), never by node id,
so two repositories (or two stores) holding the same history compare equal."""

from __future__ import annotations

from lore.history import store as sql


def graph_snapshot(repo_id: int) -> dict[str, object]:
    """The repository's graph keyed by (kind, key), so two repositories can be compared."""
    conn = sql.open_history().store.connect()
    nodes = {
        (kind, key): (label, at, degree)
        for kind, key, label, at, degree in conn.execute(
            "SELECT kind, key, label, at, degree FROM history_nodes WHERE repo_id = ?", (repo_id,)
        )
    }
    edges = set(
        conn.execute(
            "SELECT a.kind, a.key, e.rel, b.kind, b.key, e.at FROM history_edges e"
            " JOIN history_nodes a ON a.id = e.src JOIN history_nodes b ON b.id = e.dst"
            " WHERE a.repo_id = ?",
            (repo_id,),
        ).fetchall()
    )
    per_rel = set(
        conn.execute(
            "SELECT n.kind, n.key, d.rel, d.n FROM history_degrees d"
            " JOIN history_nodes n ON n.id = d.node_id WHERE n.repo_id = ?",
            (repo_id,),
        ).fetchall()
    )
    return {"nodes": nodes, "edges": {tuple(e) for e in edges}, "degrees": {tuple(r) for r in per_rel}}


def stale_degrees() -> int:
    """Nodes whose stored degree differs from a fresh count of their edges."""
    return (
        sql.open_history()
        .store.connect()
        .execute(
            "SELECT COUNT(*) FROM history_nodes n WHERE n.degree != (SELECT COUNT(*) FROM"
            " history_edges e WHERE e.src = n.id) + (SELECT COUNT(*) FROM history_edges e"
            " WHERE e.dst = n.id)"
        )
        .fetchone()[0]
    )
