"""What every risky-wording pattern is written as: which view of the text it reads (words,
commands, or the raw text), the cheap prefilter that lets it run, and the shells and fetchers that
more than one family names."""

from __future__ import annotations

import re

# -- patterns -------------------------------------------------------------------------------------
_GAP = r"[\s,.:;!?'\-/]"


# (view, pattern, flags, needs): `needs` is a cheap regex a text must contain for the pattern to
# match at all, so a long alternation is only run on the few texts that could hold it
_Entry = tuple[str, str, int, "str | None"]


def _w(pattern: str, needs: str | None = None) -> _Entry:
    """A word pattern: a space stands for a run of spaces or punctuation between words (" ?" for
    an optional one)."""
    return ("words", pattern, re.S, needs)


def _c(pattern: str, flags: int = 0, needs: str | None = None) -> _Entry:
    """A command pattern, read literally on the lower-cased text (and on it with letters joined)."""
    return ("commands", pattern, flags, needs)


def _r(pattern: str, needs: str | None = None) -> _Entry:
    """A pattern on the text as written (case kept): encoded data."""
    return ("raw", pattern, 0, needs)


_SHELLS = r"(?:sudo (?:-\S+ )*)?(?:ba|z|da|k|fi|tc|c)?sh\b|python[0-9.]*\b|perl\b|ruby\b|node\b|php\b|iex\b|invoke-expression\b|pwsh\b|powershell\b|source\b"
_FETCHERS = (
    r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch|aria2c|lwp-download|http(?:ie)?)\b"
)
