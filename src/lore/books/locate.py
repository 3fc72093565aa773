"""Turning what a reader can tell us ("62% through", "the words I just read") into a passage.

A reading position is a passage: the one the reader is in is visible whole (a passage is at
most about 140 words, so that is the most a position can show beyond the exact word). Both
ways of saying where you are end in one (chapter, passage), the same cap `--passage` records.

Words are located with the quote normaliser (`lore.core.quotes.comparable`): case, curly vs
straight quotes, dash styles, word joiners and line breaks do not matter, and the match must
start and end on word boundaries ("he said" is not found inside "the said").

Where the words are found is itself text of the book: `split_at` divides the places into those
a reader at a position has read and the first one past it, and nothing else past it leaves this
module's callers (no count, no other place).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from lore.core.quotes import comparable


@dataclass(frozen=True)
class Passage:
    chapter: int
    passage: int
    start: int  # offsets into the chapter text
    end: int
    words: int


def at_percent(passages: list[Passage], percent: float) -> tuple[int, int] | None:
    """The passage holding the word `percent`% of the way through (None: not started)."""
    total = sum(p.words for p in passages)
    if percent <= 0 or total == 0:
        return None
    wanted = min(total, max(1, round(total * percent / 100)))
    read = 0
    for p in passages:
        read += p.words
        if read >= wanted:
            return p.chapter, p.passage
    last = passages[-1]
    return last.chapter, last.passage


def find_words(chapters: dict[int, str], passages: list[Passage], words: str) -> list[tuple[int, int]]:
    """Every passage (chapter, passage) where `words` end, in reading order."""
    needle, _ = comparable(words)
    needle = needle.strip(" ")
    if not needle:
        return []
    by_chapter: dict[int, list[Passage]] = {}
    for p in passages:
        by_chapter.setdefault(p.chapter, []).append(p)
    found: list[tuple[int, int]] = []
    for seq in sorted(chapters):
        hay, where = comparable(chapters[seq])
        spans = by_chapter.get(seq, [])
        starts = [p.start for p in spans]
        at = hay.find(needle)
        while at >= 0:
            end = at + len(needle)
            if _bounded(hay, at, end) and spans:
                last_char = where[end - 1]
                k = max(0, bisect_right(starts, last_char) - 1)
                found.append((seq, spans[k].passage))
            at = hay.find(needle, at + 1)
    return found


@dataclass(frozen=True)
class Places:
    """Where some words are, as much as a reader at a position may be told."""

    read: list[tuple[int, int]]  # places at or before the position, in reading order
    next: tuple[int, int] | None  # the first place past it; the others past it are not kept


def split_at(found: list[tuple[int, int]], chapter: int, passage: int | None) -> Places:
    """The places at or before (chapter, passage) and the first after it.

    `passage` None means the whole chapter has been read; chapter 0 means nothing has."""

    def read(place: tuple[int, int]) -> bool:
        seq, at = place
        return seq < chapter or (seq == chapter and (passage is None or at <= passage))

    ahead = [p for p in found if not read(p)]
    return Places([p for p in found if read(p)], min(ahead) if ahead else None)


def _bounded(hay: str, start: int, end: int) -> bool:
    before = hay[start - 1] if start > 0 else " "
    after = hay[end] if end < len(hay) else " "
    return not (before.isalnum() and hay[start].isalnum()) and not (
        after.isalnum() and hay[end - 1].isalnum()
    )
