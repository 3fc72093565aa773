"""The library's catalogue: what a book is to a reader (its record and their position in it),
opening the books store with every book's names current, finding books by id, title or
series, removing and re-embedding them, and the reader's cap for each.

Importing a book is `imports`, its names `names`, moving the reader's position `positions`.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.books import store as sql
from lore.books.library.names import store_names
from lore.books.store import BooksStore
from lore.books.store.cap import END, Cap
from lore.books.store.records import BookRow
from lore.core.errors import InvalidInput, NotFound
from lore.core.store.base import Store

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class Position:
    chapter: int  # 0 = not started
    passage: int | None = None

    def describe(self, chapters: int) -> str:
        if self.chapter <= 0:
            return "not started"
        if self.chapter >= chapters and self.passage is None:
            return "finished"
        where = f"chapter {self.chapter} of {chapters}"
        return f"{where}, passage {self.passage}" if self.passage is not None else where


@dataclass
class Book:
    id: int
    title: str
    authors: list[str]
    series: str | None
    series_index: float | None
    format: str
    source_path: str
    words: int
    chapters: int
    passages: int
    position: Position
    notes: str = ""
    added_at: float = 0.0
    already_present: bool = False
    warnings: list[str] = field(default_factory=list)  # this import's cut or empty chapters
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["position"] = {**asdict(self.position), "label": self.position.describe(self.chapters)}
        return data


_names_checked: weakref.WeakSet[Store] = weakref.WeakSet()  # Store objects already caught up
Stores = Store | BooksStore | None  # what library functions accept: a Store, or the books store


def open_books(store: Stores = None) -> BooksStore:
    """The store with the books tables in place and every book's names current.

    A migration may drop derived name rows and queue the books (it cannot run the name finder
    itself, see migration 0004); they are found here, once per opened store, with
    today's code.
    """
    db = store if isinstance(store, BooksStore) else sql.books_store(store)
    if db.store not in _names_checked:
        for book_id in db.names_pending():
            with db.transaction() as tx:
                if book_id in tx.names_pending():  # another process may have done it
                    store_names(tx, book_id)
                    tx.names_found(book_id)
        _names_checked.add(db.store)
    return db


def _store(store: Stores) -> BooksStore:
    return open_books(store)


def _book(row: BookRow) -> Book:
    return Book(
        id=row.id,
        title=row.title,
        authors=json.loads(row.authors),
        series=row.series,
        series_index=row.series_index,
        format=row.format,
        source_path=row.source_path,
        words=row.word_count,
        chapters=row.chapter_count,
        passages=row.passage_count,
        position=Position(row.pos_chapter or 0, row.pos_passage),
        notes=row.notes,
        added_at=row.added_at,
    )


def list_books(store: Stores = None) -> list[Book]:
    return [_book(r) for r in _store(store).list_books()]


def get_book(book_id: int, store: Stores = None) -> Book:
    row = _store(store).get_book(book_id)
    if row is None:
        raise NotFound(f"no book #{book_id} in the library")
    return _book(row)


def find_book(ref: str | int, store: Stores = None) -> Book:
    """A book by id, or by a part of its title that only one book has."""
    text = str(ref).strip().lstrip("#")
    if not text:
        raise InvalidInput("name a book: its id or a part of its title")
    if text.isdigit():
        row = _store(store).get_book(int(text))
        if row is not None:
            return _book(row)
    books = list_books(store)
    wanted = _norm(text)
    exact = [b for b in books if _norm(b.title) == wanted]
    matches = exact or [b for b in books if wanted in _norm(b.title)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFound(f"no book matches {text!r} (see `lore books list`)")
    names = ", ".join(f"#{b.id} {b.title}" for b in matches[:5])
    raise InvalidInput(f"{text!r} matches several books: {names}; use the id")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower().replace("’", "'")).strip()


def remove_book(ref: str | int, store: Stores = None) -> Book:
    from lore.books.passage_vectors import remove_passages

    db = _store(store)
    book = find_book(ref, db)
    with db.transaction() as tx:
        tx.delete_book(book.id)
        remove_passages(db.store, book.id)
    return book


def reindex(ref: str | int, store: Stores = None) -> tuple[Book, int]:
    """Embed a book's passages again with the embedder configured now, dropping any other
    model's vectors of it in the same transaction."""
    from lore.books.passage_vectors import reembed_book

    db = _store(store)
    book = find_book(ref, db)
    return book, reembed_book(db.store, book.id)


def reindex_stale(store: Stores = None, *, progress: Progress | None = None) -> tuple[list[Book], int]:
    """Embed, once, every book that has no vectors from the embedder configured now (after a
    model switch), with a progress bar on stderr; the books embedded and the passage count."""
    from lore.books.passage_vectors import ensure_current, stale_books

    db = _store(store)
    ids = [b.id for b in list_books(db)]
    todo = stale_books(db.store, ids)
    count = ensure_current(db.store, ids, tick=progress)
    return [get_book(i, db) for i in todo], count


def chapters(ref: str | int, store: Stores = None) -> tuple[Book, list[dict[str, Any]]]:
    """A book's chapters; the titles and sizes of chapters past the reader's position are
    withheld (a title can spoil, and a size says how much of a story is left)."""
    db = _store(store)
    book = find_book(ref, db)
    cap = cap_for(book)
    out = []
    for row in db.chapter_outline(book.id):
        reached = row.chapter_seq <= cap.chapter
        out.append(
            {
                "chapter": row.chapter_seq,
                "title": row.title if reached else None,
                "words": row.word_count if reached else None,
                "passages": row.passage_count if reached else None,
                "reached": reached,
            }
        )
    return book, out


def cap_for(book: Book) -> Cap:
    """The reader's cap for one book: no recorded position means nothing is visible."""
    return Cap(book.id, book.position.chapter, book.position.passage)


def caps_for(books: list[Book], spoilers: bool = False) -> list[Cap]:
    """One cap per book (a series keeps each book's own position); `spoilers` lifts them."""
    if spoilers:
        return [Cap(b.id, END) for b in books]
    return [cap_for(b) for b in books]


def series_books(name: str, store: Stores = None) -> list[Book]:
    """The books of a series, in story order, named in full or by a unique beginning.

    Names match without regard to case; a whole name wins over the longer names it begins
    ("Holmes" is the series Holmes even beside "Holmes Stories"). A beginning shared by several
    series is refused, naming them."""
    db = _store(store)
    series = resolve_series(name, db)
    return [get_book(i, db) for i in db.books_in_series(series)]


def resolve_series(name: str, store: Stores = None) -> str:
    """The one series `name` names: in full, else as the beginning of exactly one name."""
    wanted = " ".join(name.split()).casefold()
    names: dict[str, str] = {}  # casefolded -> as first spelled
    for book in list_books(store):
        if book.series:
            names.setdefault(book.series.casefold(), book.series)
    if wanted in names:
        return names[wanted]
    matches = sorted(v for k, v in names.items() if wanted and k.startswith(wanted))
    if not matches:
        known = f" (the series are: {'; '.join(sorted(names.values()))})" if names else ""
        raise NotFound(f"no series named {name!r} in the library{known}")
    if len(matches) > 1:
        raise InvalidInput(
            f"{name!r} begins {len(matches)} series: {'; '.join(matches)}; give more of the name"
        )
    return matches[0]
