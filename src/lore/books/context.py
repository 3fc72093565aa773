"""A passage with the passages around it, as a citation is read in context.

A citation names one passage; a reader checking it wants the sentences before and after. The
neighbours come from the same capped read as everything else, so a context window never runs
past the reader's position, and a passage beyond it is "not found" with the same words as one
that does not exist (saying "not yet" would tell where it is).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore.books.library import Stores, caps_for, find_book, open_books
from lore.core.errors import InvalidInput, NotFound

MAX_AROUND = 5


@dataclass
class ContextPassage:
    passage_id: int
    passage: int  # its number within the chapter
    text: str
    cited: bool  # the passage asked for, as opposed to a neighbour


@dataclass
class PassageContext:
    book_id: int
    book_title: str
    chapter: int
    chapter_title: str
    passages: list[ContextPassage] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "book": {"id": self.book_id, "title": self.book_title},
            "chapter": self.chapter,
            "chapter_title": self.chapter_title,
            "passages": [p.__dict__ for p in self.passages],
        }


def passage_in_context(
    ref: str | int, passage_id: int, *, around: int = 2, spoilers: bool = False, store: Stores = None
) -> PassageContext:
    """Passage `passage_id` of a book and up to `around` visible neighbours on each side, in
    its chapter. `spoilers` lifts the cap for this read only (a citation of a spoiler answer)."""
    if not 0 <= around <= MAX_AROUND:
        raise InvalidInput(f"around must be from 0 to {MAX_AROUND} passages")
    db = open_books(store)
    book = find_book(ref, db)
    rows = db.passages_around(caps_for([book], spoilers=spoilers), passage_id, around)
    if not any(r.id == passage_id for r in rows):
        raise NotFound(f"no passage #{passage_id} in the part of {book.title} you have read")
    chapter = rows[0].chapter_seq
    titles = {c.chapter_seq: c.title for c in db.chapter_outline(book.id)}
    return PassageContext(
        book.id,
        book.title,
        chapter,
        titles.get(chapter, ""),
        [ContextPassage(r.id, r.passage_seq, r.text, r.id == passage_id) for r in rows],
    )
