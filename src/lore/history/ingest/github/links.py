"""The links between threads that are not in one thread's timeline: a `connected` event paired
with its PR cross-reference by time, and the closing keywords of merged PRs (`fixes #12`), a
fallback for links the timeline lacks.
"""

from __future__ import annotations

from typing import Any

from lore.history import store as sql
from lore.history.ingest.github.base import GitHubIngestReport
from lore.history.ingest.identity import closing_refs
from lore.history.repos import Repo

CONNECT_PAIRING = 120.0  # seconds between a `connected` event and the PR cross-reference


def nearest(refs: list[tuple[int, bool, float | None, Any]], t: float | None) -> int | None:
    """The PR cross-reference closest in time to a `connected` event (REST names no PR)."""
    best, best_gap = None, None
    for i, (_n, is_pr, at, _m) in enumerate(refs):
        if not is_pr or at is None or t is None:
            continue
        gap = abs(at - t)
        if gap <= CONNECT_PAIRING and (best_gap is None or gap < best_gap):
            best, best_gap = i, gap
    return best


def keyword_closes(repo: Repo, slug: str, report: GitHubIngestReport) -> None:
    """`fixes #12` in a merged PR's title or body closes issue 12 when the timeline did not say.

    Same filters as the timeline: same repository (the regex only accepts this repo), the
    target is an issue, and the PR existed before the issue was closed.
    """
    store = sql.open_history()
    prs = store.merged_prs(repo.id)
    issues = store.issue_close_times(repo.id)
    rows = []
    for pr in prs:
        for number in closing_refs(f"{pr.title}\n{pr.body}", slug):
            target = issues.get(number)
            if target is None:
                continue
            issue_id, closed_at = target
            if closed_at is not None and pr.created_at is not None and pr.created_at > closed_at:
                continue
            rows.append((pr.node_id, issue_id, "CLOSES", closed_at or pr.merged_at))
    if rows:
        with store.transaction() as db:
            report.keyword_closes = db.graph.add_edges(rows)
