"""What every stream of a GitHub ingest shares: the page size, the repository name's shape, the
writers of the row kinds it buffers, the report it fills, and GitHub's timestamps read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.core.dates import to_epoch
from lore.history.store import HistoryStore

PER_PAGE = 100
SLUG = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")

# how each kind of buffered row is written when a page is flushed
WRITERS: dict[str, Callable[[HistoryStore, Any], None]] = {
    "items": HistoryStore.upsert_items,
    "comments": HistoryStore.upsert_comments,
    "people": HistoryStore.upsert_people,
    "commits": HistoryStore.insert_commits,
    "changes": HistoryStore.insert_changes,
}


@dataclass
class GitHubIngestReport:
    repo: str
    pages: int = 0
    items: int = 0
    prs: int = 0
    issues: int = 0
    comments: int = 0
    review_comments: int = 0
    closes: int = 0
    mentions: int = 0
    dropped_cross_repo: int = 0
    keyword_closes: int = 0
    commits: int = 0
    window: list[str | None] = field(default_factory=lambda: [None, None])
    requests: int = 0
    cache_hits: int = 0
    not_modified: int = 0
    waits: int = 0
    resumed_from_page: int = 0
    token: str = "none"
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def ts(text: str | None) -> float | None:
    """Epoch seconds of a GitHub timestamp (`2024-03-01T12:00:00Z`); None when GitHub sent none."""
    if not text:
        return None
    return to_epoch(text, what="a GitHub timestamp")
