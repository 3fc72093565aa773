"""What every history query shares: the store it reads, times as a user writes them (dates,
ages counted back from the last commit), the head the history is read from, and the filters
churn, hotspots, coupling and a file's story accept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from lore.core.dates import FORMATS, quoted, to_epoch
from lore.core.errors import InvalidInput
from lore.core.globs import compile_glob, normalize_pattern
from lore.history import store as sql
from lore.history.repos import Repo
from lore.history.store import HistoryStore
from lore.history.store.records import ChangeEvent


def open_db() -> HistoryStore:
    """The history store every query reads."""
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


def history_end(repo: Repo) -> float | None:
    """The time of the repository's last reachable commit: what ages such as `90d` count back
    from, everywhere (churn, hotspots, coupling, file, walk), so an old clone gives the same
    answer on any day and `hotspots --days 90` means the same window as `churn --since 90d`."""
    return open_db().latest_commit_time(repo.id)


def since_time(repo: Repo, text: str | None) -> float | None:
    """`parse_time` with ages counted from the last commit (see `history_end`)."""
    if text is None or text == "":
        return None
    return parse_time(text, now=history_end(repo))


def head_of(db: HistoryStore, repo: Repo) -> str | None:
    """The commit the last ingest read as the head, or the one tip when it read several refs."""
    state = db.get_sync(repo.id, "git") or {}
    head = state.get("head")
    if head:
        return str(head)
    tips = state.get("tips") or []
    return str(tips[0]) if len(tips) == 1 else None


@dataclass(frozen=True)
class Filters:
    """What churn, hotspots, coupling and a file's story may leave out."""

    no_bots: bool = False
    paths: tuple[str, ...] = ()  # globs over the file's current name
    author: str | None = None  # a part of the author's name or email

    def keeps_author(self, ev: ChangeEvent) -> bool:
        if self.no_bots and ev.is_bot:
            return False
        if self.author:
            wanted = self.author.lower().lstrip("@")
            return wanted in ev.author_name.lower() or wanted in ev.author_email.lower()
        return True

    def keeps_path(self, path: str) -> bool:
        return not self.paths or any(compile_glob(normalize_pattern(p)).match(path) for p in self.paths)


def within(at: float, start: float | None, end: float | None) -> bool:
    """Whether a moment lies in the window (either end may be open)."""
    return (start is None or at >= start) and (end is None or at <= end)
