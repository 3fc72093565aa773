"""Which file each change is: every file of the history with its own changes, each change given
to the file it belongs to by walking the commit graph, so a file's changes cross its renames.
What churn, hotspots and coupling count, and owners and code age read per file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lore.history import lineage
from lore.history.lineage import FileKey
from lore.history.queries.base import head_of, open_db
from lore.history.repos import Repo
from lore.history.store.records import ChangeEvent


@dataclass
class FileRow:
    """One file of the history and its own changes, newest first."""

    key: FileKey
    path: str
    status: str  # git letter of the newest change
    events: list[ChangeEvent]


def file_rows(repo: Repo) -> list[FileRow]:
    """Every file of the history with its changes, each change given to the file it belongs to
    by walking the commit graph (`lineage.assign_files`)."""
    db = open_db()
    graph = db.commit_graph(repo.id)
    events = db.change_events(repo.id)
    starts = lineage.tips(graph, head_of(db, repo))
    owner = lineage.assign_files(graph, starts, events)
    by_pair = {(ev.commit_id, ev.file_id): ev for ev in events}
    rows: dict[FileKey, FileRow] = {}
    for pair, key in owner.items():  # newest first
        ev = by_pair[pair]
        row = rows.get(key)
        if row is None:
            rows[key] = row = FileRow(key, key[1], ev.status, [])
        row.events.append(ev)
    return list(rows.values())


def files_with_changes(repo: Repo) -> list[tuple[dict[str, Any], list[ChangeEvent]]]:
    """Every file of the history (`path`, `deleted`, `replaced`) with its own changes, newest
    first: what churn counts, for other questions per file (owners, code age)."""
    return [(file_entry(f), f.events) for f in file_rows(repo)]


def file_entry(row: FileRow) -> dict[str, Any]:
    """How a file is named in every answer: its path, and whether it was deleted or replaced."""
    return {"path": row.path, "deleted": row.status == "D", "replaced": row.key[0] == "old"}
