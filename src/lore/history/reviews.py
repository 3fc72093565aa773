"""PR review comments for other domains (the rules domain learns conventions from them).

The one function another domain may import from history: it returns plain records, so the
caller needs nothing else from this package.
"""

from __future__ import annotations

from lore.history import store as sql
from lore.history.repos import resolve_repo
from lore.history.store import ReviewComment

__all__ = ["ReviewComment", "review_comments"]


def review_comments(
    repo: str | None = None, *, since: float | None = None, limit: int | None = None
) -> list[ReviewComment]:
    """Review comments of an ingested repository (name, path, or the only one), oldest first."""
    r = resolve_repo(repo)
    return sql.open_history().review_comments(r.id, r.name, since, limit)
