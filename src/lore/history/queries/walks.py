"""Walks over the history graph: the nodes within a few hops of a start, ordered by relevance,
hub commits not expanded into their files.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lore.core.dates import iso_utc as iso
from lore.core.errors import InvalidInput
from lore.core.graph import BridgeCap
from lore.history.queries.base import open_db, since_time
from lore.history.queries.nodes import NODE_KINDS, describe_nodes, node_summary, resolve_node
from lore.history.repos import Repo
from lore.history.store.base import REACHABLE_ONLY

RELATIONS = (
    "MODIFIED",
    "AUTHORED",
    "CLOSES",
    "MENTIONS",
    "PARENT",
    "RENAMED_FROM",
    "COMMENTED_ON",
    "PART_OF",
)


def walk_from(
    repo: Repo,
    node: str,
    *,
    depth: int = 3,
    max_degree: int | None = 20,
    relations: list[str] | None = None,
    kinds: list[str] | None = None,
    since: str | None = None,
    until: str | None = None,
    max_changeset: int | None = None,
    limit: int | None = 50,
    order: str = "relevance",
) -> dict[str, Any]:
    """Nodes within `depth` hops of `node`, ordered by relevance to the start; hubs not expanded.

    Relevance: distance first, then the weight of the connection (how many edges tie a node to
    the nodes one hop nearer the start), then recency. A hub commit is not expanded into its
    files, but its PR and its author are still reached (those edges explain the commit, they do
    not bridge to unrelated files). A walk from a file does not follow PARENT edges unless asked
    (a commit's parent says nothing about the file). `order="size"` lists a file's commits by the
    size of their change to that file first.
    """
    if depth < 1 or depth > 6:
        raise InvalidInput("depth must be between 1 and 6")
    if order not in ("relevance", "size"):
        raise InvalidInput("order is relevance or size")
    rels = _choices(relations, RELATIONS, "relation")
    wanted = _choices(kinds, NODE_KINDS, "kind")
    start = resolve_node(repo, node)
    if rels is None and start.kind == "file":
        rels = [r for r in RELATIONS if r != "PARENT"]
    db = open_db()
    hits = db.graph.walk(
        start.id,
        depth=depth,
        max_degree=max_degree,
        relations=rels,
        since=since_time(repo, since),
        until=since_time(repo, until),
        limit=None,
        bridge_cap=BridgeCap("MODIFIED", max_changeset, kind="commit") if max_changeset else None,
        edge_filter=REACHABLE_ONLY,
    )
    found: dict[int, tuple[int, float | None, int, str, str, str]] = {
        h.id: (h.depth, h.at, h.degree, h.kind, h.key, h.label) for h in hits if h.id != start.id
    }
    if max_degree is not None:  # a hub commit still leads to its PR and its author
        hubs = [i for i, f in found.items() if f[3] == "commit" and f[2] > max_degree and f[0] < depth]
        extra = [
            (c, other)
            for c, other, rel in db.commit_people_and_prs(hubs)
            if other not in found and other != start.id and (rels is None or rel in rels)
        ]
        more = db.nodes([o for _c, o in extra])
        for c, other in extra:
            n = more[other]
            found.setdefault(other, (found[c][0] + 1, n.at, n.degree, n.kind, n.key, n.label))
    weight: Counter[int] = Counter()
    level = {i: f[0] for i, f in found.items()}
    level[start.id] = 0
    for a, b, _rel in db.edges_among(list(level)):
        if level[a] + 1 == level[b]:
            weight[b] += 1
        elif level[b] + 1 == level[a]:
            weight[a] += 1
    size: dict[int, int] = {}
    if order == "size" and start.kind == "file":
        for ev in db.change_events(repo.id, [start.id]):
            size[ev.commit_id] = size.get(ev.commit_id, 0) + ev.added + ev.removed
    ranked = sorted(
        found.items(),
        key=lambda kv: (kv[1][0], -size.get(kv[0], -1), -weight[kv[0]], -(kv[1][1] or 0), kv[0]),
    )
    rows = [
        {
            "id": i,
            "kind": f[3],
            "key": f[4],
            "label": f[5],
            "at": iso(f[1]),
            "degree": f[2],
            "depth": f[0],
            "weight": weight[i],
            "hub": max_degree is not None and f[2] > max_degree,
            **({"size": size[i]} if i in size else {}),
        }
        for i, f in ranked
        if wanted is None or f[3] in wanted
    ]
    if limit is not None:
        rows = rows[:limit]
    return {
        "start": node_summary(start),
        "depth": depth,
        "max_degree": max_degree,
        "order": order,
        "results": describe_nodes(db, rows),
    }


def _choices(values: list[str] | None, allowed: tuple[str, ...], what: str) -> list[str] | None:
    if not values:
        return None
    out = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            norm = part.upper() if what == "relation" else part.lower()
            if norm not in allowed:
                raise InvalidInput(f"unknown {what} {part!r} (one of {', '.join(allowed)})")
            out.append(norm)
    return out or None
