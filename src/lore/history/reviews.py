"""PR review comments for other domains (the rules domain learns conventions from them).

The one function another domain may import from history: it returns plain records, so the
caller needs nothing else from this package.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.history import store as sql
from lore.history.repos import resolve_repo


@dataclass(frozen=True)
class ReviewComment:
    id: int
    repo: str
    pr_number: int
    pr_title: str
    author: str | None
    author_association: str | None  # OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE...
    is_bot: bool
    body: str
    path: str | None
    line: int | None
    diff_hunk: str | None
    in_reply_to: int | None
    created_at: float | None
    url: str | None


def review_comments(
    repo: str | None = None, *, since: float | None = None, limit: int | None = None
) -> list[ReviewComment]:
    """Review comments of an ingested repository (name, path, or the only one), oldest first."""
    r = resolve_repo(repo)
    rows = sql.review_comments(sql.open_history().connect(), r.id, since, limit)
    return [
        ReviewComment(
            id=row["id"],
            repo=r.name,
            pr_number=row["pr_number"],
            pr_title=row["pr_title"],
            author=row["author"],
            author_association=row["author_association"],
            is_bot=bool(row["is_bot"]),
            body=row["body"],
            path=row["path"],
            line=row["line"],
            diff_hunk=row["diff_hunk"],
            in_reply_to=row["in_reply_to"],
            created_at=row["created_at"],
            url=row["url"],
        )
        for row in rows
    ]
