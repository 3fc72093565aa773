"""Counts over the history: a repository's stats, files by churn, and the hotspots of a window.

Each function takes a resolved `Repo` and returns plain dicts (the CLI renders them, `--json`
prints them as they are).
"""

from __future__ import annotations

from typing import Any

from lore.core.dates import iso_utc as iso
from lore.history.queries.base import Filters, history_end, open_db, since_time, within
from lore.history.queries.files import file_entry, file_rows
from lore.history.repos import Repo


def stats(repo: Repo) -> dict[str, Any]:
    """Counts over the reachable commits, and how complete the ingest is: `complete` is False
    while an ingest is under way or was killed, `shallow` when the clone cut its history."""
    db = open_db()
    data = db.stats(repo.id)
    state = db.get_sync(repo.id, "git")
    data["first_commit_at"] = iso(data["first_commit_at"])
    data["last_commit_at"] = iso(data["last_commit_at"])
    data["complete"] = True if state is None else bool(state.get("complete", True))
    data["shallow"] = bool(state and state.get("shallow")) or data["boundary_commits"] > 0
    return {"repo": repo.name, "path": repo.path, "github": repo.github, **data}


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
    files = file_rows(repo)
    out = []
    for f in files:
        if not filters.keeps_path(f.path):
            continue
        kept = [e for e in f.events if filters.keeps_author(e) and within(e.at, start, end)]
        if not kept:
            continue
        added = sum(e.added for e in kept)
        removed = sum(e.removed for e in kept)
        out.append(
            {
                **file_entry(f),
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
    files = file_rows(repo)
    out = []
    for f in files:
        if not filters.keeps_path(f.path):
            continue
        kept = [e for e in f.events if within(e.at, start, end) and filters.keeps_author(e)]
        if not kept:
            continue
        out.append(
            {
                **file_entry(f),
                "changes": len({e.commit_id for e in kept}),
                "churn": sum(e.added + e.removed for e in kept),
                "authors": len({e.author_id for e in kept} - {None}),
            }
        )
    out.sort(key=lambda r: (-r["changes"], -r["churn"], r["path"]))
    return {"window_start": iso(start), "window_end": iso(end), "days": days, "files": out[:n]}
