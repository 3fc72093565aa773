"""The forward pass of a lineage walk: which file each path of a set holds after every commit,
parents before children.

A merge's own diff is not read, so the backward walk of `lore.history.lineage` asks this pass
what the merge holds and which names each parent has for the same files. File identities are
joined at the merge that joins two files added at one path on parallel branches, as git merges
them into one file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from lore.history.store.records import ChangeEvent, GraphCommit


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


class Forward:
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
