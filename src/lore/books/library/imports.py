"""Importing a book: read the file, cut its chapters into passages, and write the book, its
chapters, passages, full-text index, names and passage vectors in one transaction.

One transaction, so a file that fails half-way (or a crash) leaves the library exactly as it
was; the same file twice returns the book already there.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from lore.books.library.catalogue import Book, Progress, Stores, get_book, open_books
from lore.books.library.names import store_names
from lore.books.passages import passages
from lore.books.read.parsed import ParsedBook, count_words
from lore.books.read.readers import read_book
from lore.books.store import BooksStore
from lore.core.errors import InvalidInput, NotFound


def add_book(
    path: str | Path,
    *,
    series: str | None = None,
    series_index: float | None = None,
    title: str | None = None,
    author: str | None = None,
    progress: Progress | None = None,
    store: Stores = None,
) -> Book:
    """Import a file; the same file twice returns the book already there."""
    from lore.books.passage_vectors import index_passages  # numpy and the embedder: only when used

    path = Path(path).expanduser()
    tick = progress or (lambda stage, done, total: None)
    db = open_books(store)
    if path.is_dir():
        raise InvalidInput(f"{path} is a folder: name one book file (EPUB, PDF or plain text)")
    if not path.is_file():
        raise NotFound(f"no such file: {path}")
    with path.open("rb") as handle:  # streamed: the file may be far larger than its text
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    existing = db.find_by_hash(digest)
    if existing is not None:
        book = get_book(existing.id, store=db)
        book.already_present = True
        return book
    tick("reading", 0, 1)
    parsed = read_book(path)
    tick("reading", 1, 1)
    if title:
        parsed.title = title
    if author:
        parsed.authors = [author]
    if series is not None:
        parsed.series = series.strip() or None
    if series_index is not None:
        parsed.series_index = series_index
    if parsed.series_index is not None and parsed.series is None:
        raise InvalidInput("--series-index needs a series (--series NAME)")
    spans = []
    for i, chapter in enumerate(parsed.chapters):
        spans.append(passages(chapter.text))
        tick("passages", i + 1, len(parsed.chapters))
    with db.transaction() as tx:
        book_id = _write(tx, parsed, spans, path, digest)
        tick("names", 0, 1)
        store_names(tx, book_id, [c.text for c in parsed.chapters])
        tick("names", 1, 1)
        index_passages(db.store, book_id, tx.passages_for_embedding(book_id), tick)
    tick("done", 1, 1)
    book = get_book(book_id, store=db)
    book.warnings = list(parsed.warnings)
    return book


def _write(tx: BooksStore, parsed: ParsedBook, spans: list[Any], path: Path, digest: str) -> int:
    words = [count_words(c.text) for c in parsed.chapters]
    book_id = tx.insert_book(
        title=parsed.title,
        authors=parsed.authors,
        series=parsed.series,
        series_index=parsed.series_index,
        fmt=parsed.format,
        source_path=str(path.resolve()),
        sha256=digest,
        word_count=sum(words),
        notes="; ".join([*parsed.notes, *parsed.warnings]),
    )
    rows = []
    for seq, (chapter, chapter_spans, n_words) in enumerate(
        zip(parsed.chapters, spans, words, strict=True), start=1
    ):
        tx.insert_chapter(book_id, seq, chapter.title, chapter.text, n_words, len(chapter_spans))
        rows += [
            (seq, k, s.start, s.end, chapter.text[s.start : s.end])
            for k, s in enumerate(chapter_spans, start=1)
        ]
    tx.insert_passages(book_id, rows)
    return book_id
