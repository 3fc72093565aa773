"""Checking that a quoted span really is in a source text, and where.

Models (and people) re-type quotations: curly quotes become straight, an em dash becomes a
hyphen pair, invisible word joiners (U+2060) and soft hyphens disappear, line breaks become
spaces, capitals change. Both sides are normalised the same way and the match is mapped back
to exact offsets in the original text, so a verified quote can always be cited from the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_INVISIBLE = frozenset("\u2060\u200b\u200c\u200d\ufeff\u00ad")
_QUOTES = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "`": "'",
    "\u00b4": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2033": '"',
    "\u00ab": '"',
    "\u00bb": '"',
}
_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b")
_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class QuoteSpan:
    start: int
    end: int


def normalize(text: str) -> tuple[str, list[int]]:
    """The comparable form of a text, and for each of its characters the original offset."""
    out: list[str] = []
    where: list[int] = []
    pending_space = -1
    for i, ch in enumerate(text):
        if ch in _INVISIBLE:
            continue
        if _SPACE.match(ch):
            if out and pending_space < 0:
                pending_space = i
            continue
        if pending_space >= 0:
            out.append(" ")
            where.append(pending_space)
            pending_space = -1
        for piece in _map(ch):
            out.append(piece)
            where.append(i)
    return "".join(out), where


def _map(ch: str) -> str:
    if ch in _QUOTES:
        return _QUOTES[ch]
    if ch in _DASHES:
        return "-"
    if ch == "\u2026":
        return "..."
    return ch.casefold()


def _squash_dashes(text: str, where: list[int]) -> tuple[str, list[int]]:
    """Runs of hyphens count as one dash, with or without spaces around ("--", " - ", "—")."""
    out: list[str] = []
    pos: list[int] = []
    i = 0
    while i < len(text):
        if text[i] == "-" or (text[i] == " " and i + 1 < len(text) and text[i + 1] == "-"):
            j = i
            while j < len(text) and text[j] in "- ":
                j += 1
            if "-" in text[i:j]:
                while j > i and text[j - 1] == " " and (j == len(text) or text[j] != "-"):
                    j -= 1  # keep the space that separates the next word
                out.append("-")
                pos.append(where[text.index("-", i)])
                if j < len(text) and text[j] == " ":
                    j += 1
                i = j
                continue
        out.append(text[i])
        pos.append(where[i])
        i += 1
    return "".join(out), pos


def comparable(text: str) -> tuple[str, list[int]]:
    norm, where = normalize(text)
    return _squash_dashes(norm, where)


def find_quote(quote: str, text: str) -> QuoteSpan | None:
    """Where `quote` occurs in `text` (exact offsets into `text`), or None."""
    needle, _ = comparable(quote)
    needle = needle.strip(" ")
    if not needle:
        return None
    hay, where = comparable(text)
    at = hay.find(needle)
    if at < 0:
        return None
    end_char = where[at + len(needle) - 1]
    end = end_char + 1
    while end < len(text) and text[end] in _INVISIBLE:
        end += 1
    return QuoteSpan(where[at], end)


def verify_quote(quote: str, text: str) -> bool:
    """True when the quote is in the text, up to spacing, quote marks, dashes and case."""
    return find_quote(quote, text) is not None
