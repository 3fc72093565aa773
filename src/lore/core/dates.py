"""Moments in time, read and written one way everywhere.

Users type dates on the command line (`--since 2024-03-01`), GitHub sends ISO 8601 with a `Z`,
and the stores keep epoch seconds. Every one of them becomes a timezone-aware UTC moment here, so
that no caller compares a naive local time with a UTC one, and the error for a bad date reads the
same wherever it is typed.
"""

from __future__ import annotations

import datetime as dt
import re

from lore.core.errors import InvalidInput

_EPOCH = re.compile(r"\d{9,}(\.\d+)?")  # nine digits or more: 8 digits is a basic-format date
FORMATS = "2024-03-01, 2024-03-01T12:00:00Z or epoch seconds"


def parse_instant(text: str | dt.date | dt.datetime | float | int, *, what: str = "a date") -> dt.datetime:
    """A timezone-aware UTC datetime from ISO 8601 (with `Z` or an offset), a date alone
    (midnight UTC), epoch seconds, or a date/datetime object (naive ones are taken as UTC).

    Raises InvalidInput naming `what` (e.g. "--since") for anything else."""
    if isinstance(text, dt.datetime):
        return as_utc(text)
    if isinstance(text, dt.date):
        return dt.datetime(text.year, text.month, text.day, tzinfo=dt.UTC)
    refusal = InvalidInput(f"{what} wants a date like {FORMATS}, not {quoted(text)}")
    try:
        if isinstance(text, int | float) and not isinstance(text, bool):
            return dt.datetime.fromtimestamp(float(text), dt.UTC)
        raw = str(text).strip()
        if _EPOCH.fullmatch(raw):
            return dt.datetime.fromtimestamp(float(raw), dt.UTC)
        if raw[-1:] in ("z", "Z"):
            raw = raw[:-1] + "+00:00"
        return as_utc(dt.datetime.fromisoformat(raw))
    except (ValueError, OverflowError, OSError):  # not a date, or a year no clock can show
        raise refusal from None


def quoted(text: object, limit: int = 60) -> str:
    """The refused value as the message quotes it: at most `limit` characters of it."""
    raw = str(text)
    return (
        repr(raw) if len(raw) <= limit else repr(raw[:limit]) + f" (and {len(raw) - limit:,} more characters)"
    )


def as_utc(moment: dt.datetime) -> dt.datetime:
    """The same moment in UTC; a naive datetime is taken to be UTC already."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


def to_epoch(text: str | dt.date | dt.datetime | float | int, *, what: str = "a date") -> float:
    """Epoch seconds of anything `parse_instant` reads."""
    return parse_instant(text, what=what).timestamp()


def iso_utc(seconds: float | None) -> str | None:
    """`2024-03-01T12:00:00Z` for epoch seconds (None stays None): the one form Lore writes."""
    if seconds is None:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def local_minute(seconds: float | None, *, empty: str = "-") -> str:
    """`2024-03-01 12:30` in the machine's time zone, for people reading a table; `empty` for
    no time. Stored and machine-read times stay UTC (`iso_utc`)."""
    if not seconds:
        return empty
    return dt.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M")
