"""Where the book's own text first gives a name, so a model's names never run ahead of it.

A model that knows a famous book will call the cabman of chapter 2 by the name the book only
reveals in chapter 7. The quote it cites is checked against its passage, but the names it
attaches are its own words; this module finds the first passage whose text actually contains
each name, so a name (or an alias) is only visible from there.

Matching forgives what does not change the name: a leading article or honorific ("the veiled
woman" is found in "A veiled woman was seen"; "Mr. Penrose" in "Penrose"), spacing, line breaks,
dashes and curly apostrophes. Capitalised words must be capitalised in the text ("Hope" is not
found in "I hope"); lower-case words match in any case.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from lore.books.names.words import TITLES

Position = tuple[int, int, int]  # (passage id, chapter_seq, passage_seq)

ARTICLES = frozenset({"the", "a", "an"})
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_GAP = r"(?:\.?[\s\u2060]+|[\u2060]*[-\u2010\u2011\u2013\u2014][\u2060]*)"
_SEPARATOR = "\n\x00\n"  # between passages: no name spans two of them


def name_words(name: str) -> list[str]:
    """The words that make a name, without a leading article or honorifics."""
    words = _WORD.findall(name)
    while len(words) > 1 and (words[0].lower() in ARTICLES or words[0] in TITLES):
        words.pop(0)
    return words


def _word_pattern(word: str) -> str:
    parts = [re.escape(p) for p in re.split(r"['’]", word)]
    body = "['’]".join(parts)
    if word[0].isupper():
        upper = "['’]".join(re.escape(p.upper()) for p in re.split(r"['’]", word))
        return f"(?:{body}|{upper})"
    return f"(?i:{body})"


def name_pattern(name: str) -> re.Pattern[str] | None:
    words = name_words(name)
    if not words:
        return None
    return re.compile(r"(?<![^\W_])" + _GAP.join(_word_pattern(w) for w in words) + r"(?![^\W_])")


@dataclass(frozen=True)
class PassageRef:
    """A passage as name evidence needs it: where it is, and its text."""

    id: int
    chapter_seq: int
    passage_seq: int
    text: str


class NameFinder:
    """The first passage, in reading order, whose text contains a name."""

    def __init__(self, passages: Sequence[PassageRef]):
        """`passages`: in reading order."""
        self._where: list[Position] = []
        self._starts: list[int] = []
        pieces: list[str] = []
        offset = 0
        for row in passages:
            self._where.append((row.id, row.chapter_seq, row.passage_seq))
            self._starts.append(offset)
            pieces.append(row.text)
            offset += len(row.text) + len(_SEPARATOR)
        self._text = _SEPARATOR.join(pieces)
        self._found: dict[str, Position | None] = {}

    def first(self, name: str) -> Position | None:
        """Where the text first gives this name; None when it never does."""
        key = " ".join(name.split())
        if key not in self._found:
            pattern = name_pattern(key)
            match = pattern.search(self._text) if pattern is not None else None
            self._found[key] = (
                None if match is None else self._where[bisect_right(self._starts, match.start()) - 1]
            )
        return self._found[key]
