"""Which changes belong to which file, decided by walking the commit graph, not the clock.

A path's history is not "everything after its latest addition": on parallel branches a path
can be added twice (two branches both create `CHANGES.rst`) or deleted on one branch while the
other keeps editing it, and a timestamp order then cuts away most of the file's past. Here the
answer follows git's own model. Walking back from the tip, child before parent, each commit
carries the names the file has there:

- a change to one of those names belongs to the file;
- an addition ends that name on this line (before it the path held nothing, or another file
  that was renamed away); an addition that brings back a file deleted on this line does not
  (git's `log` lists both stretches as one path's history);
- a rename `old -> new` swaps the name for the parents: before it, the file was called `old`;
- a deletion belongs to the file and the name goes on (the file existed before it);
- a name renamed away (`name -> other`) while we track `name` is not the file's change, and the
  name goes on too: before the rename the path held the file we track.

A merge's own diff is not read, so at a merge the names are translated for each parent by a
forward pass (`lineage_forward`, parents before children) that knows which file every path
of the walked set holds at every commit: when one side renamed `old -> new` and the other kept
editing `old`, the merge holds the file at `new`, and the walk hands the editing side `old`,
the name the same file has there. So both sides' changes are the file's, as git's merge made
them.

Two functions share that rule. `file_changes` walks for one path (what `history file` shows);
`assign_files` walks once for every path and gives each change the file it belongs to (what
churn, hotspots and coupling count), so both agree.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from lore.history.lineage_forward import Forward
from lore.history.store.records import ChangeEvent, GraphCommit

# A file identity: ("tip", path) is the file a path names at the tip (or held last);
# ("old", path, commit) is an earlier, different file that held `path` before `commit` added it.
FileKey = tuple


@dataclass(frozen=True)
class Lineage:
    """The changes of one file, newest first, and the names it had, newest first."""

    changes: list[ChangeEvent]
    names: list[str]
    fate: str  # present | deleted | renamed
    renamed_to: str | None = None


def tips(graph: dict[str, GraphCommit], head: str | None) -> list[str]:
    """Where the walk starts: the ingested HEAD when it is stored, else every stored commit that
    no stored commit has as a parent (a windowed or API-read history)."""
    if head and head in graph:
        return [head]
    children = {p for c in graph.values() for p in c.parents}
    return sorted((sha for sha in graph if sha not in children), key=lambda s: -graph[s].at)


def _order(graph: dict[str, GraphCommit], starts: Sequence[str]) -> tuple[set[str], dict[str, int]]:
    """The commits reachable from `starts`, and how many reachable children each has."""
    seen: set[str] = set()
    stack = [s for s in starts if s in graph]
    while stack:
        sha = stack.pop()
        if sha in seen:
            continue
        seen.add(sha)
        stack.extend(p for p in graph[sha].parents if p in graph and p not in seen)
    children: dict[str, int] = defaultdict(int)
    for sha in seen:
        for p in graph[sha].parents:
            if p in seen:
                children[p] += 1
    return seen, children


def _newest_first(graph: dict[str, GraphCommit], starts: Sequence[str]) -> Iterable[str]:
    """Reachable commits, each after all its children (ties: newest first, so output is stable)."""
    seen, children = _order(graph, starts)
    ready = [(-graph[s].at, s) for s in dict.fromkeys(starts) if s in seen and children[s] == 0]
    heapq.heapify(ready)
    while ready:
        _, sha = heapq.heappop(ready)
        yield sha
        for p in graph[sha].parents:
            if p in seen:
                children[p] -= 1
                if children[p] == 0:
                    heapq.heappush(ready, (-graph[p].at, p))


def _by_commit(events: Iterable[ChangeEvent], graph: dict[str, GraphCommit]) -> dict[str, list[ChangeEvent]]:
    sha_of = {c.node_id: c.sha for c in graph.values()}
    out: dict[str, list[ChangeEvent]] = defaultdict(list)
    for ev in events:
        sha = sha_of.get(ev.commit_id)
        if sha is not None:
            out[sha].append(ev)
    return out


def newest_first(graph: dict[str, GraphCommit], starts: Sequence[str]) -> list[str]:
    """Every reachable commit, each after all its children: the order `file_changes` walks, made
    once per graph by a caller that walks many files."""
    return list(_newest_first(graph, starts))


def positions(graph: dict[str, GraphCommit], order: Sequence[str]) -> dict[int, int]:
    """Commit node id -> its place in `order` (a `newest_first` walk), for `file_changes`."""
    return {graph[sha].node_id: i for i, sha in enumerate(order)}


def _simple(events: Sequence[ChangeEvent], path: str) -> bool:
    """Only plain edits to `path` after at most one addition: every reachable change is the
    file's, which is what the walk would find (the rule `assign_files` uses for such paths)."""
    adds = 0
    for ev in events:
        if ev.path != path or ev.status not in "AMT":
            return False
        adds += ev.status == "A"
    return adds <= 1


def _component(events: Sequence[ChangeEvent]) -> set[str]:
    paths = {ev.path for ev in events}
    paths.update(ev.old_path for ev in events if ev.old_path)
    return paths


def file_changes(
    graph: dict[str, GraphCommit],
    starts: Sequence[str],
    events: Iterable[ChangeEvent],
    path: str,
    order: Sequence[str] | None = None,
    position: Mapping[int, int] | None = None,
) -> Lineage:
    """The changes of the file `path` names at the tip (or the last file that held it).

    `events` must hold every change of every path the file may have had (the caller passes the
    rename-connected paths); the others are ignored. `order` is `newest_first(graph, starts)`
    when the caller has it already, and `position` (`positions(graph, order)`) its commits'
    places in it: with it, a simple path (one name, added at most once, never deleted) is
    answered without the walk.
    """
    events = list(events)
    if position is not None and _simple(events, path):
        mine = sorted(
            (ev for ev in events if ev.commit_id in position), key=lambda ev: position[ev.commit_id]
        )
        return Lineage(mine, [path], "present")
    if order is None:
        order = newest_first(graph, starts)
    by_commit = _by_commit(events, graph)
    paths = _component(events)
    forward = Forward(graph, order, by_commit, paths.__contains__)
    state: dict[str, frozenset[str]] = {s: frozenset({path}) for s in starts if s in graph}
    found: list[ChangeEvent] = []
    names: dict[str, None] = {path: None}
    fate: str | None = None
    renamed_to: str | None = None
    live = len(state)  # commits holding a non-empty state not yet processed: 0 ends the walk
    for sha in order:
        held = state.pop(sha, frozenset())
        if not held:
            if live == 0:
                break
            continue
        live -= 1
        current = set(held)
        for ev in by_commit.get(sha, ()):
            if ev.path in held:
                found.append(ev)
                names.setdefault(ev.path, None)
                if fate is None:
                    fate = "deleted" if ev.status == "D" else "present"
                if ev.status == "A" and not forward.continues(graph, sha, ev.path):
                    current.discard(ev.path)
                elif ev.status in "RC" and ev.old_path:
                    current.discard(ev.path)
                    current.add(ev.old_path)
                    names.setdefault(ev.old_path, None)
            elif ev.status == "R" and ev.old_path in held and fate is None:
                fate, renamed_to = "renamed", ev.path
        if not current:
            continue
        parents = [p for p in graph[sha].parents if p in graph]
        for p in parents:
            if len(parents) > 1:
                out = frozenset(forward.names_in(forward.at(sha), forward.at(p), current))
                if not out:
                    continue
            else:
                out = frozenset(current)
            before = state.get(p)
            if not before:
                live += 1
                state[p] = out
            elif not out <= before:
                state[p] = before | out
    last = next((h for h in (forward.at(s).get(path) for s in starts if s in graph) if h is not None), None)
    if last is not None:  # what the tip holds at the path decides, not the first change met
        fate = "present" if last.alive else "renamed" if last.moved_to else "deleted"
        renamed_to = last.moved_to
    return Lineage(found, list(names), fate or "present", renamed_to)


def assign_files(
    graph: dict[str, GraphCommit], starts: Sequence[str], events: Sequence[ChangeEvent]
) -> dict[tuple[int, int], FileKey]:
    """(commit node, path node) -> the file that change belongs to, for every change reachable.

    Paths touched only by plain edits after one addition ("simple" paths, nearly all of them)
    are their own file and cost nothing; only paths added twice, deleted or renamed are carried
    through the walk, in one map per commit that is shared until a commit changes it. At a
    merge each parent gets the names its side has for the files the merge holds
    (`lineage_forward.Forward`).
    """
    adds: dict[str, int] = defaultdict(int)
    complex_paths: set[str] = set()
    for ev in events:
        if ev.status == "A":
            adds[ev.path] += 1
            if adds[ev.path] > 1:
                complex_paths.add(ev.path)
        elif ev.status == "D":
            complex_paths.add(ev.path)
        elif ev.status in "RC":
            complex_paths.add(ev.path)
            if ev.old_path:
                complex_paths.add(ev.old_path)
    by_commit = _by_commit(events, graph)
    order = newest_first(graph, starts)
    forward = Forward(graph, order, by_commit, complex_paths.__contains__)
    alive = {path for s in starts for path, h in forward.at(s).items() if h.alive}
    out: dict[tuple[int, int], FileKey] = {}
    empty: dict[str, FileKey] = {}
    state: dict[str, dict[str, FileKey]] = {}
    for sha in order:
        names = state.pop(sha, empty)
        changed: dict[str, FileKey] | None = None
        for ev in by_commit.get(sha, ()):
            if ev.path not in complex_paths:
                out[(ev.commit_id, ev.file_id)] = ("tip", ev.path)
                continue
            key = names.get(ev.path, ("tip", ev.path))
            out[(ev.commit_id, ev.file_id)] = key
            if ev.status == "A" and forward.continues(graph, sha, ev.path):
                continue
            if ev.status == "A" or (ev.status in "RC" and ev.old_path):
                if changed is None:
                    changed = dict(names)
                changed[ev.path] = ("old", ev.path, sha)
                if ev.status in "RC" and ev.old_path:
                    changed[ev.old_path] = key
        passed = names if changed is None else changed
        parents = [p for p in graph[sha].parents if p in graph]
        for p in parents:
            mine = passed
            if len(parents) > 1:
                moved = forward.renamed_in(forward.at(sha), forward.at(p))
                if moved:
                    mine = dict(passed)
                    for old, new in moved.items():
                        mine[old] = passed.get(new, ("tip", new))
            before = state.get(p)
            state[p] = mine if before is None or before is mine else _join(before, mine, alive)
    return out


def _join(newer: dict[str, FileKey], other: dict[str, FileKey], alive: set[str]) -> dict[str, FileKey]:
    """Two lines' names meeting at a commit. Where they give a name to different files (one
    side renamed the file away, the other kept it), the file alive at the tip under the name
    gets it; else the line met first (newest)."""

    def live(key: FileKey) -> bool:
        return key[0] == "tip" and key[1] in alive

    merged = dict(other)
    merged.update(newer)
    for name in newer.keys() ^ other.keys() | {
        n for n in newer.keys() & other.keys() if newer[n] != other[n]
    }:
        a, b = newer.get(name, ("tip", name)), other.get(name, ("tip", name))
        merged[name] = b if live(b) and not live(a) else a
    return merged
