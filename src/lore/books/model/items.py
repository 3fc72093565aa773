"""What extraction hands on: a chunk of passages the model reads, and an item whose quote was
found in its passage (where it stands, its exact quote, and how far the model had read).

Kept apart so extraction (`extract`) and resolution (`resolve`) share these records without
importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lore.books.store.records import ChapterPassage

IDENTIFIED_AS = "IDENTIFIED_AS"


@dataclass
class Chunk:
    chapter: int
    title: str
    passages: list[Any]  # rows: id, chapter_seq, passage_seq, start, text


@dataclass
class Verified:
    """One item whose quote was found in its passage: where it stands and its exact quote."""

    kind: str  # "entity", "relation" or "identity"
    item: Any
    passage: ChapterPassage
    quote: str
    quote_start: int  # chapter offsets
    quote_end: int
    horizon: tuple[int, int] = (0, 0)  # (chapter, passage) of the last passage the model read

    @property
    def position(self) -> tuple[int, int]:
        return (self.passage.chapter_seq, self.passage.passage_seq)

    def names(self) -> list[str]:
        """Every name the item uses: its entity and aliases, or the two ends it links."""
        if self.kind == "entity":
            return [self.item.name, *self.item.aliases]
        if self.kind == "relation":
            return [self.item.source, self.item.target]
        return [self.item.name, self.item.identified_as]
