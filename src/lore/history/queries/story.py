"""A file's story and one commit whole: every commit, PR and issue behind a file, nearest first,
across its renames; and a commit's message, PR and files.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lore.core.dates import iso_utc as iso
from lore.history.queries.base import Filters, open_db, since_time
from lore.history.queries.nodes import describe_nodes, resolve_file, resolve_node
from lore.history.queries.renames import EARLIEST, LATEST, lineage_of, name_segments
from lore.history.repos import Repo
from lore.history.store.records import ChangeEvent

_HOW = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied", "T": "modified"}


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
    db = open_db()
    found = lineage_of(db, repo, node)
    start, end = since_time(repo, since), since_time(repo, until)
    own: dict[int, ChangeEvent] = {}
    for ev in found.changes:
        if (start is not None and ev.authored_at < start) or (end is not None and ev.authored_at > end):
            continue
        if filters.keeps_author(ev):
            own.setdefault(ev.commit_id, ev)
    segments = name_segments(db, repo, found)
    if start is not None or end is not None:
        lo, hi = start if start is not None else EARLIEST, end if end is not None else LATEST
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
    entries = describe_nodes(db, entries)
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
                "since": iso(a) if a > EARLIEST else None,
                "renamed_away_at": iso(b) if b < LATEST else None,
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
    db = open_db()
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
