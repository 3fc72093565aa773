"""What a reader hands back: a book's metadata and its content chapters in reading order."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_WORD = re.compile(r"\w+(?:['’]\w+)*")


def count_words(text: str) -> int:
    return len(_WORD.findall(text))


@dataclass
class ParsedChapter:
    title: str
    text: str

    @property
    def words(self) -> int:
        return count_words(self.text)


@dataclass
class ParsedBook:
    title: str
    authors: list[str]
    format: str
    chapters: list[ParsedChapter]
    series: str | None = None
    series_index: float | None = None
    notes: list[str] = field(default_factory=list)  # how the chapters were found, for `show`
    warnings: list[str] = field(default_factory=list)  # chapters cut or left out, pages unread
