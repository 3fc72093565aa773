"""The reader's position in a book: set by chapter and passage, by a share of the book's
words, or by a few words just read, without the reply telling anything past one place.
"""

from __future__ import annotations

from lore.books import locate
from lore.books.library.catalogue import Book, Stores, find_book, get_book, open_books
from lore.books.read.parsed import count_words
from lore.books.store import BooksStore
from lore.core.errors import InvalidInput, NotFound


def set_progress(
    ref: str | int, chapter: int | str, passage: int | None = None, store: Stores = None
) -> Book:
    """Record how far the reader is: a chapter number, 0 (not started) or "end"."""
    db = open_books(store)
    book = find_book(ref, db)
    if isinstance(chapter, str):
        word = chapter.strip().lower()
        if word in ("end", "done", "finished", "all"):
            chapter, passage = book.chapters, None
        elif word.lstrip("-").isdigit():
            chapter = int(word)
        else:
            raise InvalidInput(f"chapter must be a number from 0 to {book.chapters}, or 'end'")
    if not 0 <= chapter <= book.chapters:
        raise InvalidInput(f"{book.title} has chapters 1 to {book.chapters} (0 = not started)")
    if passage is not None:
        if chapter == 0:
            raise InvalidInput("--passage needs a chapter of 1 or more")
        outline = {r.chapter_seq: r.passage_count for r in db.chapter_outline(book.id)}
        if not 1 <= passage <= outline[chapter]:
            raise InvalidInput(f"chapter {chapter} has passages 1 to {outline[chapter]}")
    with db.transaction() as tx:
        if chapter == 0:
            tx.clear_position(book.id)
        else:
            tx.set_position(book.id, chapter, passage)
    return get_book(book.id, db)


def _located_passages(db: BooksStore, book_id: int) -> tuple[dict[int, str], list[locate.Passage]]:
    texts = dict(enumerate(db.chapter_texts(book_id), start=1))
    spans = [
        locate.Passage(
            r.chapter_seq, r.passage_seq, r.start, r.end, count_words(texts[r.chapter_seq][r.start : r.end])
        )
        for r in db.passage_spans(book_id)
    ]
    return texts, spans


def set_progress_percent(ref: str | int, percent: float, store: Stores = None) -> Book:
    """Record a position as a share of the book's words: the passage holding that word."""
    db = open_books(store)
    book = find_book(ref, db)
    if not 0 <= percent <= 100:
        raise InvalidInput("--percent must be from 0 to 100")
    if percent >= 100:
        return set_progress(book.id, "end", store=db)
    found = locate.at_percent(_located_passages(db, book.id)[1], percent)
    if found is None:
        return set_progress(book.id, 0, store=db)
    return set_progress(book.id, found[0], found[1], store=db)


def set_progress_at(ref: str | int, words: str, store: Stores = None) -> Book:
    """Record a position by a few words the reader has just read.

    Where the words are is text of the book, so the reply tells nothing about the text past
    the recorded position beyond one place. Words found only past the position set it at the
    first place past it: reading on, that is the earliest place the reader can have reached,
    so it opens nothing they have not read (quote more words to go further). Words found at or
    before the position alone (a reader who went back) set it there when they are in one
    place, and are otherwise refused naming those places, all of which the reader has read.
    Words both read and further on are refused: going back and reading on cannot be told
    apart, and the refusal says only that they are further on too, never how often or where."""
    db = open_books(store)
    book = find_book(ref, db)
    if len(words.split()) == 0:
        raise InvalidInput("--at needs a few words from the book")
    texts, spans = _located_passages(db, book.id)
    found = locate.find_words(texts, spans, words)
    if not found:
        raise NotFound(
            f"{words!r} is not in {book.title} (case, quote marks, dashes and spacing are ignored)"
        )
    places = locate.split_at(found, book.position.chapter, book.position.passage)
    if places.read and places.next is not None:
        raise InvalidInput(
            f"{words!r} is in text you have read ({_places(places.read)}) and further on: "
            "add a few more words, or give the chapter"
        )
    if places.next is not None:
        chapter, passage = places.next
    elif len(places.read) == 1:
        chapter, passage = places.read[0]
    else:
        raise InvalidInput(
            f"{words!r} is in {len(places.read)} places you have read ({_places(places.read)}): "
            "add a few more words, or give the chapter"
        )
    return set_progress(book.id, chapter, passage, store=db)


def _places(places: list[tuple[int, int]], shown: int = 4) -> str:
    """Places the reader has read, as "chapter 2, passage 4; ...", the first few of them."""
    text = "; ".join(f"chapter {c}, passage {p}" for c, p in places[:shown])
    return text + (f"; and {len(places) - shown} more" if len(places) > shown else "")
