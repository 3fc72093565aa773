"""Questions over the layer-1 graph: stats, churn, hotspots, coupling, a file's story, walks.

Each function takes a resolved `Repo` and returns plain dicts (the CLI renders them, `--json`
prints them as they are). Renames are followed: a file's history crosses `git mv`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import Any

from lore.core.dates import FORMATS, quoted, to_epoch
from lore.core.dates import iso_utc as iso
from lore.core.errors import InvalidInput, NotFound
from lore.core.globs import compile_glob, normalize_pattern
from lore.core.graph import BridgeCap
from lore.history import lineage
from lore.history import store as sql
from lore.history.ingest.gitlog import stored_path
from lore.history.lineage import FileKey
from lore.history.repos import Repo
from lore.history.store import HistoryStore
from lore.history.store.base import REACHABLE_ONLY
from lore.history.store.records import ChangeEvent, GraphCommit, Node

NODE_KINDS = ("commit", "file", "pr", "issue", "person")
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


def _db() -> HistoryStore:
    return sql.open_history()


def parse_time(text: str | None, *, now: float | None = None) -> float | None:
    """`2024-03-01`, an ISO timestamp, epoch seconds, or `90d` / `12w` / `6m` / `2y` ago."""
    if text is None or text == "":
        return None
    text = text.strip()
    match = re.fullmatch(r"(\d+)\s*([dwmy])", text)
    if match:
        days = int(match.group(1)) * {"d": 1, "w": 7, "m": 30, "y": 365}[match.group(2)]
        base = now if now is not None else datetime.now(UTC).timestamp()
        return base - days * 86400
    try:
        return to_epoch(text)
    except InvalidInput:
        raise InvalidInput(f"not a date: {quoted(text)} (use {FORMATS}, or an age such as 90d)") from None


# ---------------------------------------------------------------- stats


def stats(repo: Repo) -> dict[str, Any]:
    """Counts over the reachable commits, and how complete the ingest is: `complete` is False
    while an ingest is under way or was killed, `shallow` when the clone cut its history."""
    db = _db()
    data = db.stats(repo.id)
    state = db.get_sync(repo.id, "git")
    data["first_commit_at"] = iso(data["first_commit_at"])
    data["last_commit_at"] = iso(data["last_commit_at"])
    data["complete"] = True if state is None else bool(state.get("complete", True))
    data["shallow"] = bool(state and state.get("shallow")) or data["boundary_commits"] > 0
    return {"repo": repo.name, "path": repo.path, "github": repo.github, **data}


# ---------------------------------------------------------------- which file each change is


def history_end(repo: Repo) -> float | None:
    """The time of the repository's last reachable commit: what ages such as `90d` count back
    from, everywhere (churn, hotspots, coupling, file, walk), so an old clone gives the same
    answer on any day and `hotspots --days 90` means the same window as `churn --since 90d`."""
    return _db().latest_commit_time(repo.id)


def since_time(repo: Repo, text: str | None) -> float | None:
    """`parse_time` with ages counted from the last commit (see `history_end`)."""
    if text is None or text == "":
        return None
    return parse_time(text, now=history_end(repo))


def _head(db: HistoryStore, repo: Repo) -> str | None:
    state = db.get_sync(repo.id, "git") or {}
    head = state.get("head")
    if head:
        return str(head)
    tips = state.get("tips") or []
    return str(tips[0]) if len(tips) == 1 else None


@dataclass(frozen=True)
class Filters:
    """What churn, hotspots, coupling and a file's story may leave out."""

    no_bots: bool = False
    paths: tuple[str, ...] = ()  # globs over the file's current name
    author: str | None = None  # a part of the author's name or email

    def keeps_author(self, ev: ChangeEvent) -> bool:
        if self.no_bots and ev.is_bot:
            return False
        if self.author:
            wanted = self.author.lower().lstrip("@")
            return wanted in ev.author_name.lower() or wanted in ev.author_email.lower()
        return True

    def keeps_path(self, path: str) -> bool:
        return not self.paths or any(compile_glob(normalize_pattern(p)).match(path) for p in self.paths)


@dataclass
class _FileRow:
    key: FileKey
    path: str
    status: str  # git letter of the newest change
    events: list[ChangeEvent]


def _files(repo: Repo) -> list[_FileRow]:
    """Every file of the history with its changes, each change given to the file it belongs to
    by walking the commit graph (`lineage.assign_files`)."""
    db = _db()
    graph = db.commit_graph(repo.id)
    events = db.change_events(repo.id)
    starts = lineage.tips(graph, _head(db, repo))
    owner = lineage.assign_files(graph, starts, events)
    by_pair = {(ev.commit_id, ev.file_id): ev for ev in events}
    rows: dict[FileKey, _FileRow] = {}
    for pair, key in owner.items():  # newest first
        ev = by_pair[pair]
        row = rows.get(key)
        if row is None:
            rows[key] = row = _FileRow(key, key[1], ev.status, [])
        row.events.append(ev)
    return list(rows.values())


def files_with_changes(repo: Repo) -> list[tuple[dict[str, Any], list[ChangeEvent]]]:
    """Every file of the history (`path`, `deleted`, `replaced`) with its own changes, newest
    first: what churn counts, for other questions per file (owners, code age)."""
    return [(_file_entry(f), f.events) for f in _files(repo)]


def changes_of(repo: Repo, path: str) -> tuple[Node, list[ChangeEvent]]:
    """The file a path names and its changes across its renames, newest first (as `file`)."""
    node = resolve_file(repo, path)
    return node, _lineage(_db(), repo, node).changes


def _file_entry(row: _FileRow) -> dict[str, Any]:
    return {"path": row.path, "deleted": row.status == "D", "replaced": row.key[0] == "old"}


# ---------------------------------------------------------------- churn and hotspots


def _within(at: float, start: float | None, end: float | None) -> bool:
    return (start is None or at >= start) and (end is None or at <= end)


def churn(
    repo: Repo,
    n: int = 15,
    since: str | None = None,
    filters: Filters | None = None,
    until: str | None = None,
) -> list[dict[str, Any]]:
    """Files by lines added + removed, each file's changes followed through its renames along the
    commit graph (the same changes `file_history` shows for it). `until` counts only commits up
    to that moment (the history as it stood then; the web view's as-of date)."""
    filters = filters or Filters()
    start, end = since_time(repo, since), since_time(repo, until)
    files = _files(repo)
    out = []
    for f in files:
        if not filters.keeps_path(f.path):
            continue
        kept = [e for e in f.events if filters.keeps_author(e) and _within(e.at, start, end)]
        if not kept:
            continue
        added = sum(e.added for e in kept)
        removed = sum(e.removed for e in kept)
        out.append(
            {
                **_file_entry(f),
                "commits": len({e.commit_id for e in kept}),
                "added": added,
                "removed": removed,
                "churn": added + removed,
                "authors": len({e.author_id for e in kept} - {None}),
                "last_changed": iso(max(e.at for e in kept)),
            }
        )
    out.sort(key=lambda r: (-r["churn"], -r["commits"], r["path"]))
    return out[:n]


def hotspots(
    repo: Repo, days: int = 90, n: int = 15, filters: Filters | None = None, until: str | None = None
) -> dict[str, Any]:
    """Files changed most often in the last `days` of the history, ending at its last commit, or
    at `until` when that is earlier (the window as it stood then)."""
    filters = filters or Filters()
    end = history_end(repo)
    if end is None:
        return {"window_start": None, "window_end": None, "days": days, "files": []}
    cut = since_time(repo, until)
    if cut is not None:
        end = min(end, cut)
    start = end - days * 86400
    files = _files(repo)
    out = []
    for f in files:
        if not filters.keeps_path(f.path):
            continue
        kept = [e for e in f.events if _within(e.at, start, end) and filters.keeps_author(e)]
        if not kept:
            continue
        out.append(
            {
                **_file_entry(f),
                "changes": len({e.commit_id for e in kept}),
                "churn": sum(e.added + e.removed for e in kept),
                "authors": len({e.author_id for e in kept} - {None}),
            }
        )
    out.sort(key=lambda r: (-r["changes"], -r["churn"], r["path"]))
    return {"window_start": iso(start), "window_end": iso(end), "days": days, "files": out[:n]}


def coupling(
    repo: Repo,
    *,
    min_revs: int = 5,
    min_shared: int = 5,
    min_degree: float = 30.0,
    max_changeset: int = 30,
    n: int = 20,
    since: str | None = None,
    filters: Filters | None = None,
    file: str | None = None,
) -> dict[str, Any]:
    """Logical coupling as code-maat computes it.

    For each pair of files changed in the same commits: `shared` commits, and `degree` =
    shared / mean(revisions of each) as a percentage. Commits touching more than
    `max_changeset` files are left out (a sweeping commit couples everything to everything),
    as are files with fewer than `min_revs` revisions. `file` keeps only the pairs of one file
    (code-maat's per-entity view); `filters` drop bots' commits and files outside the globs.
    """
    filters = filters or Filters()
    start = since_time(repo, since)
    files = _files(repo)
    names: dict[int, dict[str, Any]] = {}
    by_commit: dict[int, set[int]] = defaultdict(set)
    for i, f in enumerate(files):
        names[i] = _file_entry(f)
        if not filters.keeps_path(f.path):
            continue
        for e in f.events:
            if (start is None or e.at >= start) and filters.keeps_author(e):
                by_commit[e.commit_id].add(i)
    focus: int | None = None
    if file is not None:
        node = resolve_file(repo, file)
        focus = next((i for i, f in enumerate(files) if f.key == ("tip", node.key)), -1)
    revs: Counter[int] = Counter()
    shared: Counter[tuple[int, int]] = Counter()
    skipped = 0
    for members in by_commit.values():
        if len(members) > max_changeset:
            skipped += 1
            continue
        revs.update(members)
        for a, b in combinations(sorted(members), 2):
            shared[(a, b)] += 1
    pairs = []
    for (a, b), count in shared.items():
        if focus is not None and focus not in (a, b):
            continue
        if count < min_shared or revs[a] < min_revs or revs[b] < min_revs:
            continue
        degree = 100.0 * count / ((revs[a] + revs[b]) / 2)
        if degree < min_degree:
            continue
        if focus is not None and b == focus:
            a, b = b, a
        pairs.append(
            {
                "entity": names[a]["path"],
                "coupled": names[b]["path"],
                "coupled_deleted": names[b]["deleted"],
                "degree": round(degree),
                "shared": count,
                "average_revs": round((revs[a] + revs[b]) / 2, 1),
            }
        )
    pairs.sort(key=lambda p: (-p["degree"], -p["shared"], p["entity"], p["coupled"]))
    return {
        "file": None if focus is None else names[focus]["path"] if focus >= 0 else file,
        "commits_considered": len(by_commit) - skipped,
        "commits_skipped_as_large": skipped,
        "thresholds": {
            "min_revs": min_revs,
            "min_shared": min_shared,
            "min_degree": min_degree,
            "max_changeset": max_changeset,
        },
        "pairs": pairs[:n],
    }


# ---------------------------------------------------------------- nodes


def resolve_node(repo: Repo, text: str) -> Node:
    """A node from forgiving input: `file:src/a.py`, `a.py`, `#12`, `pr:12`, `issue:7`,
    `commit:abc1234`, a sha prefix, `person:alice@x.org`, `@alice`."""
    db = _db()
    raw = text.strip()
    if not raw:
        raise InvalidInput("name a node: a file path, a sha, #12, pr:12, issue:7 or @login")
    kind, _, rest = raw.partition(":")
    if kind.lower() in NODE_KINDS and rest:
        kind, value = kind.lower(), rest.strip()
    else:
        kind, value = "", raw
    match = re.fullmatch(r"(?:pr|issue)?\s*#?(\d+)", value, re.I)
    if (
        kind in ("", "pr", "issue")
        and match
        and (kind or value.startswith("#") or value.lower().startswith(("pr", "issue")))
    ):
        number = match.group(1)
        for k in [kind] if kind else ["pr", "issue"]:
            row = db.find_node(repo.id, k, number)
            if row:
                return row
        raise NotFound(f"no PR or issue #{number} in {repo.name}")
    if kind in ("", "commit") and re.fullmatch(r"[0-9a-fA-F]{4,40}", value):
        rows = db.find_commit_by_prefix(repo.id, value.lower())
        if len(rows) == 1:
            return rows[0]
        if len(rows) > 1:
            raise InvalidInput(f"commit prefix {value} is ambiguous in {repo.name}")
        if kind == "commit":
            raise NotFound(f"no commit {value} in {repo.name}")
    if kind in ("", "person") and (value.startswith("@") or "@" in value or kind == "person"):
        person = resolve_person(repo, value)
        if person is not None:
            return person
        if kind == "person":
            raise NotFound(f"no person matching {value!r} in {repo.name}")
    if kind == "file":
        return resolve_file(repo, value)
    if kind == "":
        try:
            return resolve_file(repo, value)
        except NotFound:  # not a file: an author's name, `Ada Lovelace`
            person = resolve_person(repo, value)
            if person is None:
                raise NotFound(f"no file or person {value!r} in the history of {repo.name}") from None
            return person
    raise NotFound(f"nothing matches {text!r} in {repo.name}")


def resolve_person(repo: Repo, value: str) -> Node | None:
    """A person from `@login`, an email, a name or the start of an email, or None.

    A local repository knows people by email and name only (a login comes from GitHub or a
    no-reply address), so `@ada` also finds `ada@example.com` and the author named Ada. An
    exact match (login, email, the part before the `@`, the whole name) wins over a partial
    one; several people matching equally well are named instead of picking one."""
    wanted = value.strip().lower()
    bare = wanted.lstrip("@")
    if not bare:
        return None
    rows = _db().find_people(repo.id, bare)

    def exact(row: Node) -> bool:
        key, name = row.key.lower(), (row.label or "").lower()
        return key in (wanted, "@" + bare) or key.split("@")[0] == bare or name == bare

    best = [r for r in rows if exact(r)] or rows
    if len(best) > 1:
        names = ", ".join(f"{r.label} ({r.key})" for r in best[:4])
        raise InvalidInput(f"{value!r} matches several people ({names}); give their email or @login")
    return best[0] if best else None


def resolve_file(repo: Repo, path: str) -> Node:
    db = _db()
    path = stored_path(path)  # a name that is not UTF-8 is stored with `\\xNN` escapes
    clean = path.strip()
    clean = clean[2:] if clean.startswith("./") else clean
    if repo.path and Path(clean).is_absolute():
        absolute = Path(clean).resolve()
        if absolute.is_relative_to(repo.path):
            clean = absolute.relative_to(repo.path).as_posix()
    row = db.find_node(repo.id, "file", clean)
    if row:
        return row
    rows = db.find_files_by_suffix(repo.id, clean)
    if len(rows) == 1:
        return rows[0]
    if len(rows) > 1:
        options = ", ".join(r.key for r in rows[:4])
        raise InvalidInput(f"'{path}' matches several files ({options}); give more of the path")
    raise NotFound(f"no file '{path}' in the history of {repo.name}")


def find_files(repo: Repo, text: str = "", limit: int = 20) -> list[dict[str, Any]]:
    """Paths of the history holding `text` (every path when empty), the most connected first:
    what a file picker offers while someone types."""
    if not 1 <= limit <= 500:
        raise InvalidInput("limit must be between 1 and 500")
    rows = _db().search_files(repo.id, text, limit)
    return [{"path": r.key, "edges": r.degree, "last_changed": iso(r.at)} for r in rows]


def _describe(db: HistoryStore, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add what a reader wants to see next to a node: sha and author, PR title and state."""
    commits = db.commit_details([h["id"] for h in hits if h["kind"] == "commit"])
    items = db.item_details([h["id"] for h in hits if h["kind"] in ("pr", "issue")])
    for h in hits:
        c = commits.get(h["id"])
        if c is not None:
            h.update(
                sha=c.sha,
                author=c.author_name,
                bot=c.is_bot,
                pr=c.pr_number,
                files=c.files,
                added=c.added,
                removed=c.removed,
            )
        i = items.get(h["id"])
        if i is not None:
            h.update(number=i.number, title=i.title, state=i.state, author=i.author)
            if i.title:
                h["label"] = i.title
        elif h["kind"] in ("pr", "issue"):
            h["number"] = int(h["key"])
    return hits


def node_summary(node: Node) -> dict[str, Any]:
    return {
        "id": node.id,
        "kind": node.kind,
        "key": node.key,
        "label": node.label,
        "at": iso(node.at),
        "degree": node.degree,
    }


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
    db = _db()
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
        "results": _describe(db, rows),
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


_EARLIEST, _LATEST = -1e18, 1e18

_HOW = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied", "T": "modified"}


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
    head = _head(db, repo)
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


def _lineage(db: HistoryStore, repo: Repo, node: Node) -> lineage.Lineage:
    held = _walkable(db, repo)
    events = db.change_events(repo.id, _rename_component(held.renames, node.id))
    return lineage.file_changes(held.graph, held.starts, events, node.key, held.order, held.position)


def _segments(db: HistoryStore, repo: Repo, found: lineage.Lineage) -> list[tuple[int, float, float]]:
    """(path node, from, until) per name of the file, newest first: the stretch each name held
    it, for the PRs whose file lists name a path (they have no commit to walk)."""
    by_name: dict[str, list[ChangeEvent]] = defaultdict(list)
    for ev in found.changes:
        by_name[ev.path].append(ev)
    nodes = db.find_nodes(repo.id, ["file"], found.names)  # every name's node in one read
    segments = []
    until = _LATEST
    for name in found.names:
        evs = by_name.get(name, [])
        node = nodes.get(("file", name))
        if node is None or not evs:
            continue
        born = [e.at for e in evs if e.status in "ARC"]
        since = min(born) if born else _EARLIEST
        segments.append((node.id, since, until))
        until = since
    if not segments:  # known only from PRs' file lists: no commit to bound it
        node = nodes.get(("file", found.names[0])) if found.names else None
        if node is not None:
            segments.append((node.id, _EARLIEST, _LATEST))
    return segments


def file_lineage(repo: Repo, file_id: int) -> list[tuple[int, float, float]]:
    """The file that holds a path now, followed back through its renames along the commit
    graph: one (path node, from, until) per path it had, newest first."""
    db = _db()
    key = db.node_key(file_id)
    if key is None:
        return []
    node = Node(file_id, "file", key, key, None, 0)
    return _segments(db, repo, _lineage(db, repo, node))


def file_history(
    repo: Repo,
    path: str,
    limit: int | None = None,
    *,
    since: str | None = None,
    until: str | None = None,
    filters: Filters | None = None,
) -> dict[str, Any]:
    """Every commit, PR and issue behind a file, nearest first, across renames.

    The commits are the file's own, found by walking the commit graph (`lineage`); each says how
    it changed the file (added, modified, deleted, renamed from an old path), the lines it
    added and removed in this file, and its message body. A path that no longer holds the file
    says where it went (`fate`). `since`/`until`/`filters` narrow the commits shown.
    """
    node = resolve_file(repo, path)
    filters = filters or Filters()
    db = _db()
    found = _lineage(db, repo, node)
    start, end = since_time(repo, since), since_time(repo, until)
    own: dict[int, ChangeEvent] = {}
    for ev in found.changes:
        if (start is not None and ev.authored_at < start) or (end is not None and ev.authored_at > end):
            continue
        if filters.keeps_author(ev):
            own.setdefault(ev.commit_id, ev)
    segments = _segments(db, repo, found)
    if start is not None or end is not None:
        lo, hi = start if start is not None else _EARLIEST, end if end is not None else _LATEST
        segments = [(f, max(a, lo), min(b, hi)) for f, a, b in segments if max(a, lo) <= min(b, hi)]
    names = db.file_paths([s[0] for s in segments])
    rows = db.file_story(sorted(own), segments if not (filters.no_bots or filters.author) else [])
    entries: list[dict[str, Any]] = [
        {
            "id": r.id,
            "kind": r.kind,
            "key": r.key,
            "label": r.label,
            "at": iso(r.at),
            "depth": r.depth,
            "how": r.how,
        }
        for r in rows
    ]
    counts = dict(Counter(e["kind"] for e in entries))
    if limit is not None:
        entries = entries[:limit]
    entries = _describe(db, entries)
    texts = db.commit_texts([e["id"] for e in entries if e["kind"] == "commit"])
    for e in entries:
        mine = own.get(e["id"])
        text = texts.get(e["id"])
        if mine is None or text is None:
            continue
        e.update(
            how=_HOW.get(mine.status, "modified"),
            path=mine.path,
            old_path=mine.old_path,
            added=mine.added,
            removed=mine.removed,
            commit_added=text.added,
            commit_removed=text.removed,
            at=iso(text.authored_at),
            committed_at=iso(text.committed_at),
            body=text.body,
        )
    fate: dict[str, Any] = {"status": found.fate}
    if found.renamed_to:
        fate["to"] = found.renamed_to
    if found.fate == "deleted" and found.changes:
        fate["at"] = iso(found.changes[0].authored_at)
    return {
        "file": node.key,
        "fate": fate,
        "paths": [
            {
                "path": names[fid],
                "since": iso(a) if a > _EARLIEST else None,
                "renamed_away_at": iso(b) if b < _LATEST else None,
            }
            for fid, a, b in segments
            if fid in names
        ],
        "counts": counts,
        "entries": entries,
    }


def show_commit(repo: Repo, ref: str) -> dict[str, Any]:
    """One commit whole: its message (subject and body), author date, PR, and every file it
    changed with how and the lines added and removed there."""
    node = resolve_node(repo, ref if ref.startswith("commit:") else f"commit:{ref}")
    db = _db()
    text = db.commit_texts([node.id])[node.id]
    files = [
        {"path": p, "how": _HOW.get(st, "modified"), "old_path": old, "added": a, "removed": r}
        for p, st, old, a, r in db.commit_files(node.id)
    ]
    linked = db.linked_items(node.id)
    return {
        "sha": text.sha,
        "parents": list(text.parents),
        "author": text.author_name,
        "email": text.author_email,
        "when": iso(text.authored_at),
        "committed_at": iso(text.committed_at),
        "subject": text.subject,
        "body": text.body,
        "bot": text.is_bot,
        "pr": next((int(k) for _n, kind, k, d in linked if kind == "pr" and d == 1), text.pr_number),
        "closes": [int(k) for _n, kind, k, _d in linked if kind == "issue"],
        "reachable": text.reachable,
        "boundary": text.boundary,
        "files": files,
    }
