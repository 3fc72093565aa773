"""The library service: importing books, finding them, and the reader's position in each.

An import is one transaction: the book, its chapters, passages, full-text index, names and
passage vectors are written together or not at all, so a file that fails half-way (or a
crash) leaves the library exactly as it was.

The parts: `catalogue` (a book's record, finding, removing, caps), `imports` (a file into the
library), `names` (a book's names written), `positions` (the reader's place in a book). Callers
use the names below, as `from lore.books import library` then `library.add_book(...)`.
"""

from lore.books.library.catalogue import (
    Book,
    Position,
    Progress,
    Stores,
    cap_for,
    caps_for,
    chapters,
    find_book,
    get_book,
    list_books,
    open_books,
    reindex,
    reindex_stale,
    remove_book,
    resolve_series,
    series_books,
)
from lore.books.library.imports import add_book
from lore.books.library.names import store_names
from lore.books.library.positions import set_progress, set_progress_at, set_progress_percent

__all__ = [
    "Book",
    "Position",
    "Progress",
    "Stores",
    "add_book",
    "cap_for",
    "caps_for",
    "chapters",
    "find_book",
    "get_book",
    "list_books",
    "open_books",
    "reindex",
    "reindex_stale",
    "remove_book",
    "resolve_series",
    "series_books",
    "set_progress",
    "set_progress_at",
    "set_progress_percent",
    "store_names",
]
