"""All of the books domain's SQL: the tables, their migrations, and reads that apply the
reader's cap.

`BooksStore` is one object over the books tables, composed of the parts below; each part is a
module of one concern, and every read that can return book content applies the cap in SQL
(`cap.py`). Statements are one text for both engines where they mean the same; where they differ
(full-text search, case-folding, byte-wise order) a method picks by `store.dialect`.

- `schema.py`, `migrations.py`: the tables and every migration, SQLite and PostgreSQL side by side
- `records.py`: what reads return; `cap.py`: the reader's cap and its SQL condition
- `library.py`: books, chapters, reading positions
- `passages.py`: passages and word search under the cap
- `names.py`: names found by rule; `reader_names.py`: those met and not yet met at the cap;
  `model_layer.py`: what a model read into a book
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lore.core.home import ensure_home
from lore.core.store import DB_NAME, Store, open_store, open_store_for

from .library import LibraryTables
from .migrations import MIGRATIONS, READER_MIGRATIONS
from .model_layer import ModelTables
from .names import NameTables
from .passages import PassageTables
from .reader_names import ReaderNameTables


class BooksStore(LibraryTables, PassageTables, NameTables, ReaderNameTables, ModelTables):
    """Typed access to the books tables of one Store.

    Methods run on the calling thread's connection, so inside `transaction()` they all join
    one transaction; rows come back as records (`records.py`), never as driver rows.
    """

    @contextmanager
    def transaction(self) -> Iterator[BooksStore]:
        """One write transaction over several calls (a whole import, a model layer)."""
        with self.store.transaction():
            yield self

    def delete_book(self, book_id: int) -> None:
        """A book and everything read from it (search index, names, model layer, position):
        here, where the parts meet."""
        conn = self.store.connect()
        if self.store.dialect == "sqlite":  # an external-content FTS5 table is told what goes
            conn.execute(
                "INSERT INTO book_passages_fts (book_passages_fts, rowid, text)"
                " SELECT 'delete', id, text FROM book_passages WHERE book_id = ?",
                (book_id,),
            )
        conn.execute("DELETE FROM book_mentions WHERE book_id = ?", (book_id,))
        conn.execute("DELETE FROM book_name_links WHERE book_id = ?", (book_id,))
        self.clear_model_layer(book_id)
        if self.positions is not None:
            self.clear_position(book_id)
        conn.execute("DELETE FROM books WHERE id = ?", (book_id,))


def books_store(store: Store | None = None) -> BooksStore:
    """The books store over the shared Store (or the one given), its tables in place."""
    store = store or open_store_for(MIGRATIONS)
    store.migrate(MIGRATIONS)
    if store.dialect == "sqlite":
        return BooksStore(store)
    own = open_store(ensure_home() / DB_NAME)  # a shared library: positions stay the reader's
    own.migrate(READER_MIGRATIONS)
    return BooksStore(store, positions=own)
