"""A file followed back through its renames along the commit graph: its own changes, and the
stretch of time each of its names held it.

Reading and ordering every commit and rename is the costly part, and `why` walks a file's
lineage on every call, so the walkable graph is kept per store file and repository and read
again only when the commits changed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from lore.history import lineage
from lore.history.queries.base import head_of, open_db
from lore.history.queries.nodes import resolve_file
from lore.history.repos import Repo
from lore.history.store import HistoryStore
from lore.history.store.records import ChangeEvent, GraphCommit, Node

# the open ends of a stretch of time
EARLIEST, LATEST = -1e18, 1e18


@dataclass(frozen=True)
class _Walkable:
    """The reachable commit graph with what every lineage walk over it needs, made once."""

    version: tuple[int, int, int, str | None]
    graph: dict[str, GraphCommit]
    starts: list[str]
    order: list[str]  # newest first, each commit after its children
    position: dict[int, int]  # commit node id -> place in `order`
    renames: dict[int, set[int]]  # path node -> the path nodes a rename or copy joins it to


# (store file, repository) -> the walkable graph: reading and ordering every commit and rename is
# the costly part of a lineage, and `why` walks a file's lineage on every call
_graphs: dict[tuple[str, int], _Walkable] = {}


def _walkable(db: HistoryStore, repo: Repo) -> _Walkable:
    """The reachable commit graph, its tips, walk order and renames, read again only when the
    commits changed (a rename is a change of a commit, so it cannot change on its own)."""
    key = (str(db.store.path), repo.id)
    held = _graphs.get(key)
    if db.quiet_since_last_look(f"walkable:{repo.id}") and held is not None:
        return held
    head = head_of(db, repo)
    version = (*db.commit_graph_version(repo.id), head)
    if held is None or held.version != version:
        graph = db.commit_graph(repo.id)
        starts = lineage.tips(graph, head)
        order = lineage.newest_first(graph, starts)
        renames: dict[int, set[int]] = defaultdict(set)
        for new, old in db.rename_pairs(repo.id):
            renames[new].add(old)
            renames[old].add(new)
        held = _graphs[key] = _Walkable(
            version, graph, starts, order, lineage.positions(graph, order), dict(renames)
        )
    return held


def _rename_component(links: dict[int, set[int]], file_id: int) -> list[int]:
    """The path nodes connected to `file_id` by renames, either way (the names a file may have had)."""
    seen, stack = {file_id}, [file_id]
    while stack:
        for other in links.get(stack.pop(), ()):
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return sorted(seen)


def lineage_of(db: HistoryStore, repo: Repo, node: Node) -> lineage.Lineage:
    """The file a path node names, followed through its renames: its changes, names and fate."""
    held = _walkable(db, repo)
    events = db.change_events(repo.id, _rename_component(held.renames, node.id))
    return lineage.file_changes(held.graph, held.starts, events, node.key, held.order, held.position)


def name_segments(db: HistoryStore, repo: Repo, found: lineage.Lineage) -> list[tuple[int, float, float]]:
    """(path node, from, until) per name of the file, newest first: the stretch each name held
    it, for the PRs whose file lists name a path (they have no commit to walk)."""
    by_name: dict[str, list[ChangeEvent]] = defaultdict(list)
    for ev in found.changes:
        by_name[ev.path].append(ev)
    nodes = db.find_nodes(repo.id, ["file"], found.names)  # every name's node in one read
    segments = []
    until = LATEST
    for name in found.names:
        evs = by_name.get(name, [])
        node = nodes.get(("file", name))
        if node is None or not evs:
            continue
        born = [e.at for e in evs if e.status in "ARC"]
        since = min(born) if born else EARLIEST
        segments.append((node.id, since, until))
        until = since
    if not segments:  # known only from PRs' file lists: no commit to bound it
        node = nodes.get(("file", found.names[0])) if found.names else None
        if node is not None:
            segments.append((node.id, EARLIEST, LATEST))
    return segments


def file_lineage(repo: Repo, file_id: int) -> list[tuple[int, float, float]]:
    """The file that holds a path now, followed back through its renames along the commit
    graph: one (path node, from, until) per path it had, newest first."""
    db = open_db()
    key = db.node_key(file_id)
    if key is None:
        return []
    node = Node(file_id, "file", key, key, None, 0)
    return name_segments(db, repo, lineage_of(db, repo, node))


def changes_of(repo: Repo, path: str) -> tuple[Node, list[ChangeEvent]]:
    """The file a path names and its changes across its renames, newest first (as `file`)."""
    node = resolve_file(repo, path)
    return node, lineage_of(open_db(), repo, node).changes
