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
forward pass (`_Forward`, parents before children) that knows which file every path of the
walked set holds at every commit: when one side renamed `old -> new` and the other kept
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

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


# ---------------------------------------------------------------- what each path holds, forward


@dataclass(frozen=True, slots=True)
class _Held:
    """What one path holds at a commit: a file (`fid`), alive or gone (deleted, or renamed away
    to `moved_to`), set by the commit at forward place `stamp`; `replaces` are the files the
    path held before this one was added over them (a later merge with a side still holding one
    of those keeps this one)."""

    fid: int
    alive: bool
    stamp: int
    moved_to: str | None = None
    replaces: frozenset[int] = frozenset()


class _Files:
    """File identities; two files added at one path on parallel branches become one at the
    merge that joins them (union-find), as git merges them into one file."""

    def __init__(self) -> None:
        self._up: list[int] = []

    def new(self) -> int:
        self._up.append(len(self._up))
        return len(self._up) - 1

    def find(self, fid: int) -> int:
        up = self._up
        while up[fid] != fid:
            up[fid] = up[up[fid]]
            fid = up[fid]
        return fid

    def join(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._up[max(ra, rb)] = min(ra, rb)


_NOTHING: dict[str, _Held] = {}


class _Forward:
    """Which file each path of a set holds after every commit, parents before children.

    Only a merge needs it: its diff is not read, so what the merge holds is decided from its
    parents. Per path: a file on one side only is kept; one file on both sides keeps the newer
    state (a deletion after the other side's last change deletes it, a change after it keeps
    it), except that a rename on one side wins over the other side's old name when the new
    name holds the file after the merge (git carries the edits to the new name); two different
    files alive at one path are one file from the merge on (add/add), unless one was added
    over the other. Maps are shared between commits until a commit changes them.
    """

    def __init__(
        self,
        graph: dict[str, GraphCommit],
        order: Sequence[str],
        by_commit: Mapping[str, Sequence[ChangeEvent]],
        tracked: Callable[[str], bool],
    ) -> None:
        self.files = _Files()
        self.state: dict[str, dict[str, _Held]] = {}
        for stamp, sha in enumerate(reversed(order)):
            parents = [self.state.get(p, _NOTHING) for p in graph[sha].parents if p in graph]
            held = self._merge(parents) if len(parents) > 1 else parents[0] if parents else _NOTHING
            evs = [ev for ev in by_commit.get(sha, ()) if tracked(ev.path)]
            if evs:
                held = self._apply(held, evs, stamp)
            if held:
                self.state[sha] = held

    def at(self, sha: str) -> dict[str, _Held]:
        return self.state.get(sha, _NOTHING)

    def continues(self, graph: dict[str, GraphCommit], sha: str, path: str) -> bool:
        """Whether the addition of `path` at `sha` brings back the file its parent deleted there
        (git's `log` lists both stretches as one path; so does Lore) rather than starting one."""
        parents = [p for p in graph[sha].parents if p in graph]
        if not parents:
            return False
        here, there = self.at(sha).get(path), self.at(parents[0]).get(path)
        return here is not None and there is not None and self.same(here, there)

    def same(self, a: _Held, b: _Held) -> bool:
        return self.files.find(a.fid) == self.files.find(b.fid)

    def _apply(self, before: dict[str, _Held], evs: Sequence[ChangeEvent], stamp: int) -> dict[str, _Held]:
        after = dict(before)
        new = self.files.new
        # renames and deletions first, from the state before the commit: a path renamed away
        # and added again in one commit holds the new file
        for ev in sorted(evs, key=lambda e: e.status not in "RD"):
            cur = before.get(ev.path)
            if ev.status == "R" and ev.old_path:
                src = before.get(ev.old_path)
                fid = src.fid if src is not None else new()
                over = cur.replaces | {cur.fid} if cur is not None and cur.fid != fid else frozenset()
                after[ev.old_path] = _Held(fid, False, stamp, ev.path, src.replaces if src else frozenset())
                after[ev.path] = _Held(fid, True, stamp, None, over)
            elif ev.status == "D":
                after[ev.path] = (
                    _Held(cur.fid, False, stamp, None, cur.replaces)
                    if cur is not None
                    else _Held(new(), False, stamp)
                )
            elif ev.status == "A" and cur is not None and not cur.alive and cur.moved_to is None:
                after[ev.path] = _Held(cur.fid, True, stamp, None, cur.replaces)  # back after a deletion
            elif ev.status in "AC":  # over a file renamed away (or none): a file of its own; so is a copy
                over = cur.replaces | {cur.fid} if cur is not None else frozenset()
                after[ev.path] = _Held(new(), True, stamp, None, over)
            else:  # an edit: the path holds its file (a merge that kept a deleted file shows here)
                after[ev.path] = (
                    _Held(cur.fid, True, stamp, None, cur.replaces)
                    if cur is not None
                    else _Held(new(), True, stamp)
                )
        return after

    def _merge(self, parents: list[dict[str, _Held]]) -> dict[str, _Held]:
        first = parents[0]
        if all(p is first for p in parents[1:]):
            return first
        out = dict(first)
        renamed: list[tuple[str, _Held]] = []  # (path, the live file a rename tombstone beat)
        for other in parents[1:]:
            if other is first:
                continue
            for path, theirs in other.items():
                mine = out.get(path)
                if mine is None or mine is theirs:
                    out[path] = theirs
                    continue
                pick = self._pick(mine, theirs)
                if pick.moved_to is not None and (mine.alive or theirs.alive):
                    renamed.append((path, mine if mine.alive else theirs))
                out[path] = pick
        for path, live in renamed:
            gone = out[path]
            there = out.get(gone.moved_to) if gone.moved_to is not None else None
            if there is None or not there.alive or not self.same(there, gone):
                out[path] = live  # the new name does not hold the file: the old name kept it
        return out

    def _pick(self, a: _Held, b: _Held) -> _Held:
        find = self.files.find
        newer = a if a.stamp >= b.stamp else b
        if self.same(a, b):
            if a.alive != b.alive:
                gone = b if a.alive else a
                if gone.moved_to is not None:
                    return gone  # checked by _merge against the new name
            return newer
        if any(find(f) == find(b.fid) for f in a.replaces):
            return a
        if any(find(f) == find(a.fid) for f in b.replaces):
            return b
        if a.alive and b.alive:  # added on both sides: one file from here on
            self.files.join(a.fid, b.fid)
            return _Held(newer.fid, True, newer.stamp, None, a.replaces | b.replaces)
        if a.alive != b.alive:
            return a if a.alive else b  # the other side's tombstone is of another file
        return newer

    def names_in(self, merge: dict[str, _Held], parent: dict[str, _Held], names: Iterable[str]) -> set[str]:
        """The names the files `names` name at a merge have in one of its parents: the same name
        where the parent holds the same file there (alive, or deleted on that side) or the merge
        holds no live file under it, else every name under which the parent holds the file
        alive (the side that did not rename)."""
        out: set[str] = set()
        by_file: dict[int, list[str]] | None = None
        for name in names:
            here = merge.get(name)
            there = parent.get(name)
            if here is None or not here.alive or (there is not None and self.same(here, there)):
                out.add(name)
                continue
            if by_file is None:
                by_file = self._alive_by_file(parent)
            out.update(by_file.get(self.files.find(here.fid), ()))
        return out

    def _alive_by_file(self, held: dict[str, _Held]) -> dict[int, list[str]]:
        by_file: dict[int, list[str]] = defaultdict(list)
        for path, h in held.items():
            if h.alive:
                by_file[self.files.find(h.fid)].append(path)
        return by_file

    def renamed_in(self, merge: dict[str, _Held], parent: dict[str, _Held]) -> dict[str, str]:
        """Parent name -> merge name, for every file the merge holds alive under a name the
        parent does not hold it under (renamed on the other side): what `assign_files` hands
        that parent."""
        out: dict[str, str] = {}
        by_file: dict[int, list[str]] | None = None
        for name, here in merge.items():
            if not here.alive:
                continue
            there = parent.get(name)
            if there is not None and self.same(here, there):
                continue
            if by_file is None:
                by_file = self._alive_by_file(parent)
            for old in by_file.get(self.files.find(here.fid), ()):
                kept = merge.get(old)
                if kept is None or not kept.alive or not self.same(kept, here):
                    out.setdefault(old, name)  # (a name the merge still holds it under stays)
        return out


# ---------------------------------------------------------------- the walks


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
    forward = _Forward(graph, order, by_commit, paths.__contains__)
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
    merge each parent gets the names its side has for the files the merge holds (`_Forward`).
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
    forward = _Forward(graph, order, by_commit, complex_paths.__contains__)
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
