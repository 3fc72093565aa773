"""Nodes of the history graph from what a user types: a file path, a sha prefix, `#12`, `@login`
or a name; the file picker's search; and what a reader wants to see beside a node.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lore.core.dates import iso_utc as iso
from lore.core.errors import InvalidInput, NotFound
from lore.history.ingest.gitlog import stored_path
from lore.history.queries.base import open_db
from lore.history.repos import Repo
from lore.history.store import HistoryStore
from lore.history.store.records import Node

NODE_KINDS = ("commit", "file", "pr", "issue", "person")


def resolve_node(repo: Repo, text: str) -> Node:
    """A node from forgiving input: `file:src/a.py`, `a.py`, `#12`, `pr:12`, `issue:7`,
    `commit:abc1234`, a sha prefix, `person:alice@x.org`, `@alice`."""
    db = open_db()
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
    rows = open_db().find_people(repo.id, bare)

    def exact(row: Node) -> bool:
        key, name = row.key.lower(), (row.label or "").lower()
        return key in (wanted, "@" + bare) or key.split("@")[0] == bare or name == bare

    best = [r for r in rows if exact(r)] or rows
    if len(best) > 1:
        names = ", ".join(f"{r.label} ({r.key})" for r in best[:4])
        raise InvalidInput(f"{value!r} matches several people ({names}); give their email or @login")
    return best[0] if best else None


def resolve_file(repo: Repo, path: str) -> Node:
    db = open_db()
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
    rows = open_db().search_files(repo.id, text, limit)
    return [{"path": r.key, "edges": r.degree, "last_changed": iso(r.at)} for r in rows]


def describe_nodes(db: HistoryStore, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
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
