"""The library service: importing books, finding them, and the reader's position in each.

An import is one transaction: the book, its chapters, passages, full-text index, names and
passage vectors are written together or not at all, so a file that fails half-way (or a
crash) leaves the library exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import re
import weakref
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lore.books import locate
from lore.books import store as sql
from lore.books.names.groups import name_index
from lore.books.names.titles import form_kind
from lore.books.passages import passages
from lore.books.read.parsed import ParsedBook, count_words
from lore.books.read.readers import read_book
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


# -- import -------------------------------------------------------------------------------------


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
    db = _store(store)
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


def store_names(tx: BooksStore, book_id: int, texts: list[str] | None = None) -> None:
    """Find a book's names and write them: one entity row per name form, every mention in its
    passage, and the timeline of which full name each short form joins (`name_groups`)."""
    texts = tx.chapter_texts(book_id) if texts is None else texts
    ends: dict[int, list[int]] = {}
    ids: dict[tuple[int, int], int] = {}
    for r in tx.passage_spans(book_id):
        ends.setdefault(r.chapter_seq, []).append(r.end)
        ids[(r.chapter_seq, r.passage_seq)] = r.id
    mentions, links = name_index(texts)
    placed = [(m, m.chapter + 1, _passage_of(ends.get(m.chapter + 1, []), m.start)) for m in mentions]
    forms: dict[str, int] = {}
    for rank, name in enumerate(dict.fromkeys(m.form for m, _, k in placed if k is not None), start=1):
        forms[name] = tx.insert_entity(book_id, name, form_kind(name), rank)  # rank: first mention
    mention_rows = []
    for m, seq, k in placed:
        if k is not None:
            mention_rows.append(
                (
                    forms[m.form],
                    book_id,
                    ids[(seq, k)],
                    seq,
                    k,
                    m.start,
                    m.end,
                    m.surface,
                    m.form,
                    int(bool(m.titles)),
                    m.cue,
                )
            )
    tx.insert_mentions(mention_rows)
    link_rows = []
    for link in links:
        if link.form not in forms or link.target not in forms:
            continue
        seq = link.chapter + 1
        k = _passage_of(ends.get(seq, []), link.start) or len(ends.get(seq, [])) or 1
        link_rows.append((book_id, forms[link.form], forms[link.target], seq, k))
    tx.insert_name_links(link_rows)


def _passage_of(ends: list[int], offset: int) -> int | None:
    """1-based passage holding a chapter offset (passages are contiguous and ordered)."""
    k = bisect_right(ends, offset)
    return k + 1 if k < len(ends) else None


# -- finding books ------------------------------------------------------------------------------


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


# -- reading position ---------------------------------------------------------------------------


def set_progress(
    ref: str | int, chapter: int | str, passage: int | None = None, store: Stores = None
) -> Book:
    """Record how far the reader is: a chapter number, 0 (not started) or "end"."""
    db = _store(store)
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
    db = _store(store)
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
    db = _store(store)
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
