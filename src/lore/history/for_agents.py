"""The decisions behind the files an agent is about to change, for the rules domain's get_rules.

The one history module `lore.rules` may import: it takes a repository folder
and paths and returns plain records, so the caller needs nothing else from this package. A
folder Lore never ingested, or a history with no decisions, gives an empty list at the cost of
one small read: get_rules must stay fast for everyone who never ran `lore history`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lore.core.dates import iso_utc


@dataclass(frozen=True)
class DecisionNote:
    """A decision in force for one of the files, with its verbatim source."""

    id: int
    statement: str
    quote: str
    source: str  # the comment's URL, or the commit's short sha
    since: str  # the day it was decided, YYYY-MM-DD

    @property
    def key(self) -> str:
        return f"decision:{self.id}"

    def line(self) -> str:
        quote = " ".join(self.quote.split())
        return f'- {self.statement} ("{quote}", {self.source}, {self.since})'


def decisions_for_files(root: Path, paths: list[str], limit: int) -> list[DecisionNote]:
    """Decisions in force now that touch any of `paths` (relative to `root`), newest first: only
    those grounded in their quote and spoken by someone who can bind the project.

    The history package loads here, on the first get_rules with paths, not at `lore mcp` start."""
    from lore.core.store.base import StoreOutdated
    from lore.history import store as sql

    try:
        history = sql.open_history()
    except StoreOutdated as exc:
        if exc.absent:  # a read-only store never given history tables holds no decisions
            return []
        raise
    repo = history.repo_by_path(str(root))
    if repo is None or not paths or limit <= 0:
        return []
    from lore.history.decisions.service import decisions, touches

    found = [d for d in decisions(repo, served_only=True) if any(touches(d, p) for p in paths)]
    found.sort(key=lambda d: (-d.valid_from, d.id))
    return [
        DecisionNote(
            id=d.id,
            statement=" ".join(d.statement.split()),
            quote=d.quote,
            source=d.source_url or (d.commit_sha or "")[:10] or "history",
            since=(iso_utc(d.valid_from) or "")[:10],
        )
        for d in found[:limit]
    ]
