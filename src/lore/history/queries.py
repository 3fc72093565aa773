"""Questions over the layer-1 graph: stats, churn, hotspots, coupling, a file's story, walks.

Each function takes a resolved `Repo` and returns plain dicts (the CLI renders them, `--json`
prints them as they are). Renames are followed: a file's history crosses `git mv`.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import Any

from lore.core.dates import FORMATS, quoted, to_epoch
from lore.core.dates import iso_utc as iso
from lore.core.errors import InvalidInput, NotFound
from lore.core.graph import BridgeCap
from lore.history import store as sql
from lore.history.repos import Repo
from lore.history.store import HistoryStore, Node

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
    data = _db().stats(repo.id)
    data["first_commit_at"] = iso(data["first_commit_at"])
    data["last_commit_at"] = iso(data["last_commit_at"])
    return {"repo": repo.name, "path": repo.path, "github": repo.github, **data}


# ---------------------------------------------------------------- renames


class _Identities:
    """Maps (file id, time of a change) to the file's latest id, following renames forward."""

    def __init__(self, renames: list[tuple[int, int, float]]):
        self.forward: dict[int, list[tuple[float, int]]] = defaultdict(list)
        for new, old, at in renames:
            self.forward[old].append((at if at is not None else 0.0, new))
        for moves in self.forward.values():
            moves.sort()

    def resolve(self, file_id: int, at: float) -> int:
        seen = set()
        while file_id in self.forward and file_id not in seen:
            seen.add(file_id)
            moves = self.forward[file_id]
            i = bisect.bisect_left(moves, (at, -1))
            if i == len(moves):
                break
            at, file_id = moves[i]
        return file_id


def _changes(repo: Repo, since: float | None = None):
    db = _db()
    ids = _Identities(db.renames(repo.id))
    rows = db.changes(repo.id, since)
    names: dict[int, str] = {}
    for _cid, fid, path, *_ in rows:
        names[fid] = path
    resolved = []
    for cid, fid, path, added, removed, at, author in rows:
        final = ids.resolve(fid, at)
        resolved.append((cid, final, added, removed, at, author))
        names.setdefault(final, path)
    return resolved, names, db


def _name_of(db: HistoryStore, names: dict[int, str], fid: int) -> str:
    if fid not in names:
        names[fid] = db.node_key(fid) or str(fid)
    return names[fid]


# ---------------------------------------------------------------- churn and hotspots


def churn(repo: Repo, n: int = 15, since: str | None = None) -> list[dict[str, Any]]:
    """Files by lines added + removed (renames folded into the latest name)."""
    rows, names, db = _changes(repo, parse_time(since))
    agg: dict[int, dict[str, Any]] = {}
    for cid, fid, added, removed, at, author in rows:
        a = agg.setdefault(fid, {"commits": set(), "added": 0, "removed": 0, "authors": set(), "last": at})
        a["commits"].add(cid)
        a["added"] += added
        a["removed"] += removed
        a["authors"].add(author)
        a["last"] = max(a["last"], at)
    out = [
        {
            "path": _name_of(db, names, fid),
            "commits": len(a["commits"]),
            "added": a["added"],
            "removed": a["removed"],
            "churn": a["added"] + a["removed"],
            "authors": len(a["authors"] - {None}),
            "last_changed": iso(a["last"]),
        }
        for fid, a in agg.items()
    ]
    out.sort(key=lambda r: (-r["churn"], -r["commits"], r["path"]))
    return out[:n]


def hotspots(repo: Repo, days: int = 90, n: int = 15) -> dict[str, Any]:
    """Files changed most often in the last `days` of the history (ending at its last commit)."""
    end = _db().latest_commit_time(repo.id)
    if end is None:
        return {"window_start": None, "window_end": None, "days": days, "files": []}
    start = end - days * 86400
    rows, names, db = _changes(repo, start)
    agg: dict[int, dict[str, Any]] = {}
    for cid, fid, added, removed, _at, author in rows:
        a = agg.setdefault(fid, {"commits": set(), "churn": 0, "authors": set()})
        a["commits"].add(cid)
        a["churn"] += added + removed
        a["authors"].add(author)
    files = [
        {
            "path": _name_of(db, names, fid),
            "changes": len(a["commits"]),
            "churn": a["churn"],
            "authors": len(a["authors"] - {None}),
        }
        for fid, a in agg.items()
    ]
    files.sort(key=lambda r: (-r["changes"], -r["churn"], r["path"]))
    return {"window_start": iso(start), "window_end": iso(end), "days": days, "files": files[:n]}


def coupling(
    repo: Repo,
    *,
    min_revs: int = 5,
    min_shared: int = 5,
    min_degree: float = 30.0,
    max_changeset: int = 30,
    n: int = 20,
    since: str | None = None,
) -> dict[str, Any]:
    """Logical coupling as code-maat computes it.

    For each pair of files changed in the same commits: `shared` commits, and `degree` =
    shared / mean(revisions of each) as a percentage. Commits touching more than
    `max_changeset` files are left out (a sweeping commit couples everything to everything),
    as are files with fewer than `min_revs` revisions.
    """
    rows, names, db = _changes(repo, parse_time(since))
    by_commit: dict[int, set[int]] = defaultdict(set)
    for cid, fid, *_ in rows:
        by_commit[cid].add(fid)
    revs: Counter[int] = Counter()
    shared: Counter[tuple[int, int]] = Counter()
    skipped = 0
    for files in by_commit.values():
        if len(files) > max_changeset:
            skipped += 1
            continue
        revs.update(files)
        for a, b in combinations(sorted(files), 2):
            shared[(a, b)] += 1
    pairs = []
    for (a, b), count in shared.items():
        if count < min_shared or revs[a] < min_revs or revs[b] < min_revs:
            continue
        degree = 100.0 * count / ((revs[a] + revs[b]) / 2)
        if degree < min_degree:
            continue
        pairs.append(
            {
                "entity": _name_of(db, names, a),
                "coupled": _name_of(db, names, b),
                "degree": round(degree),
                "shared": count,
                "average_revs": round((revs[a] + revs[b]) / 2, 1),
            }
        )
    pairs.sort(key=lambda p: (-p["degree"], -p["shared"], p["entity"], p["coupled"]))
    return {
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
        raise InvalidInput(f"{path!r} matches several files ({options}); give more of the path")
    raise NotFound(f"no file {path!r} in the history of {repo.name}")


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
) -> dict[str, Any]:
    """Nodes within `depth` hops of `node`, nearest first, then newest; hubs not expanded."""
    if depth < 1 or depth > 6:
        raise InvalidInput("depth must be between 1 and 6")
    rels = _choices(relations, RELATIONS, "relation")
    wanted = _choices(kinds, NODE_KINDS, "kind")
    start = resolve_node(repo, node)
    db = _db()
    hits = db.graph.walk(
        start.id,
        depth=depth,
        max_degree=max_degree,
        relations=rels,
        kinds=wanted,
        since=parse_time(since),
        until=parse_time(until),
        limit=limit,
        bridge_cap=BridgeCap("MODIFIED", max_changeset, kind="commit") if max_changeset else None,
    )
    rows = [
        {
            "id": h.id,
            "kind": h.kind,
            "key": h.key,
            "label": h.label,
            "at": iso(h.at),
            "degree": h.degree,
            "depth": h.depth,
            "hub": max_degree is not None and h.degree > max_degree,
        }
        for h in hits
    ]
    return {
        "start": node_summary(start),
        "depth": depth,
        "max_degree": max_degree,
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


def file_lineage(repo: Repo, file_id: int) -> list[tuple[int, float, float]]:
    """The file that holds a path now, followed back through its renames: one (path node,
    from, until) per path it had, newest first.

    Only backwards from the current file: its stretch at the path starts where it was added or
    renamed in, so a different file that held the same path earlier (renamed away or deleted,
    then the path reused) contributes nothing. A path nobody holds any more gives the last file
    that held it.
    """
    db = _db()
    segments: list[tuple[int, float, float]] = []
    fid: int | None = file_id
    until = _LATEST
    while fid is not None and fid not in {s[0] for s in segments}:
        events = db.path_events(repo.id, fid)
        cap = until if until < _LATEST else (db.last_change(fid) or _LATEST)
        began = max(
            ((at, event == "R", other) for at, event, other in events if event in "AR" and at <= cap),
            key=lambda b: (b[0], b[1]),  # a rename in beats an add at the same second
            default=None,
        )
        ended = max((at for at, event, _o in events if event in "DX" and at < cap), default=None)
        if ended is not None and (began is None or ended > began[0]):
            segments.append((fid, ended, until))  # began before what was stored: from the gap
            break
        segments.append((fid, began[0] if began else _EARLIEST, until))
        if began is None or not began[1]:
            break
        fid, until = began[2], began[0]
    return segments


def file_history(repo: Repo, path: str, limit: int | None = None) -> dict[str, Any]:
    """Every commit, PR and issue behind a file, nearest first, across renames."""
    node = resolve_file(repo, path)
    db = _db()
    segments = file_lineage(repo, node.id)
    names = db.file_paths([s[0] for s in segments])
    rows = db.file_timeline(segments)
    entries = [
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
    return {
        "file": node.key,
        "paths": [
            {
                "path": names[fid],
                "since": iso(since) if since > _EARLIEST else None,
                "renamed_away_at": iso(until) if until < _LATEST else None,
            }
            for fid, since, until in segments
        ],
        "counts": counts,
        "entries": _describe(db, entries),
    }
