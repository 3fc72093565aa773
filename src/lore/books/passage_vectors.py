"""Passage vectors in the core vector index, with the reader's cap as a pre-top-k filter.

One collection holds every book's passages; each vector carries `book_id`, `chapter_seq` and
`passage_seq`, and a search passes one filter clause per book so the index never scores a
passage past its book's cap. The embedder is the configured one (`lore.core.embed`), WordLlama
when none is.

Switching embedders. The index is bound to one model, so a search never compares vectors of two
models; but a book embedded by the old model would then have no vectors at all. `ensure_current`
closes that gap on the next use (a search, `lore books reindex`): each book with no complete set
of vectors from the current model is embedded once, in its own write transaction that also drops
the other models' vectors of that book. A process killed half-way leaves every book either fully
switched or untouched, and the next run carries on with the rest.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from lore.books.store import books_store
from lore.books.store.cap import END, Cap
from lore.books.store.records import PassageText
from lore.core.embed import Embedder, get_embedder
from lore.core.embed.base import ProgressBar, stderr_is_terminal
from lore.core.llm import model_subject
from lore.core.store.base import Store
from lore.core.vectors import Hit, VectorIndex, VectorSpace, collections

COLLECTION = "book_passages"
BATCH = 256
# On PostgreSQL the server searches a shared library's vectors, the cap inside every statement,
# and the process gets k keys back: an exact scan over the rows of the books asked about, found
# by a b-tree on the cap's fields (the same top-k as in memory; docs/store.md#vectors).
_embedders: dict[str, Embedder] = {}
# books already checked against the current model, per (store, model), valid while the model's
# collection generation is unchanged (any write from any process bumps it)
_checked: dict[tuple[str, str], tuple[int, set[int]]] = {}
_checked_lock = threading.Lock()

Tick = Callable[[str, int, int], None]


def embedder() -> Embedder:
    """The configured embedder (WordLlama by default), made once per process."""
    from lore.core.embed.factory import embedder_name

    name = embedder_name()
    if name not in _embedders:
        _embedders[name] = get_embedder(name)
    return _embedders[name]


def passage_index(store: Store, space: Embedder | None = None) -> VectorIndex:
    return VectorIndex(COLLECTION, space or embedder(), store)


def index_passages(store: Store, book_id: int, rows: Sequence[PassageText], tick: Tick) -> int:
    """Embed and store a book's passages (inside the caller's transaction)."""
    index = passage_index(store)
    total = len(rows)
    done = 0
    for start in range(0, total, BATCH):
        batch = rows[start : start + BATCH]
        with model_subject(f"book:{book_id}"):  # embedding calls are counted against the book
            vectors = index.space.embed([r.text for r in batch], progress=False)  # type: ignore[attr-defined]
        index.add(
            (
                str(r.id),
                vec,
                {"book_id": book_id, "chapter_seq": r.chapter_seq, "passage_seq": r.passage_seq},
            )
            for r, vec in zip(batch, vectors, strict=True)
        )
        done += len(batch)
        tick("vectors", done, total)
    return done


def remove_passages(store: Store, book_id: int, *, keep: str | None = None) -> None:
    """Drop a book's vectors from every embedder's index but `keep` (inside the caller's transaction)."""
    for entry in collections(store):
        if entry["collection"] == COLLECTION and entry["embedder"] != keep:
            space = VectorSpace(entry["embedder"], entry["dim"])
            VectorIndex(COLLECTION, space, store).delete(where={"book_id": book_id})


def stale_books(store: Store, book_ids: Iterable[int]) -> list[int]:
    """The books (of those given) whose passages lack vectors from the current embedder."""
    index = passage_index(store)
    books = books_store(store)
    stale = []
    for book_id in dict.fromkeys(book_ids):
        row = books.get_book(book_id)
        if row is not None and index.count(where={"book_id": book_id}) != row.passage_count:
            stale.append(book_id)
    return stale


def ensure_current(
    store: Store, book_ids: Iterable[int], *, progress: bool | None = None, tick: Tick | None = None
) -> int:
    """Embed, once, the books whose vectors were made by another model (or never made), and
    drop the other models' vectors of each such book in the same transaction; the number of
    passages embedded (0 when every book is current, the usual case, which costs one read).

    A progress bar goes to stderr when it is a terminal (`progress` forces it either way);
    `tick(stage, done, total)` is told too. A read-only store is left alone: its books are then
    searched without vectors, never with another model's.
    """
    ids = list(dict.fromkeys(book_ids))
    index = passage_index(store)
    key = (str(store.path), index.model)
    generation = index.rows.generation(COLLECTION, index.model)
    with _checked_lock:
        seen = _checked.get(key)
        if seen is not None and seen[0] == generation and seen[1].issuperset(ids):
            return 0
    todo = stale_books(store, ids)
    if todo and store.read_only:
        return 0
    embedded = _reembed(store, todo, progress, tick) if todo else 0
    generation = index.rows.generation(COLLECTION, index.model)
    with _checked_lock:
        seen = _checked.get(key)
        known = seen[1] if seen is not None and seen[0] == generation else set()
        _checked[key] = (generation, known | set(ids))
    return embedded


def _reembed(store: Store, book_ids: list[int], progress: bool | None, tick: Tick | None) -> int:
    books = books_store(store)
    model = passage_index(store).model
    sizes = {b: row.passage_count for b in book_ids if (row := books.get_book(b)) is not None}
    total = sum(sizes.values())
    show = progress if progress is not None else stderr_is_terminal()
    label = f"embedding {len(sizes)} book(s) with {model}"
    done = 0
    with ProgressBar(show and total > 0, total, label) as bar:
        for book_id in sizes:
            with books.transaction() as tx:
                # another process may have switched this book while we waited for the lock
                if not stale_books(store, [book_id]):
                    bar.advance(sizes[book_id])
                    continue
                rows = tx.passages_for_embedding(book_id)
                count = index_passages(store, book_id, rows, lambda stage, n, of: None)
                remove_passages(store, book_id, keep=model)
            done += count
            bar.advance(sizes[book_id])
            if tick is not None:
                tick("vectors", done, total)
    return done


def reembed_book(store: Store, book_id: int) -> int:
    """Embed one book again with the current embedder and drop other models' vectors of it."""
    books = books_store(store)
    model = passage_index(store).model
    with books.transaction() as tx:
        count = index_passages(store, book_id, tx.passages_for_embedding(book_id), lambda s, n, of: None)
        remove_passages(store, book_id, keep=model)
    return count


def cap_filter(caps: Sequence[Cap]) -> list[dict[str, Any]]:
    """The vector filter for these caps: one clause per book (two when a passage is set)."""
    clauses: list[dict[str, Any]] = []
    for cap in caps:
        if cap.chapter <= 0:
            continue
        if cap.passage is None or cap.chapter >= END:
            clauses.append({"book_id": cap.book_id, "chapter_seq": ("<=", cap.chapter)})
        else:
            clauses.append({"book_id": cap.book_id, "chapter_seq": ("<", cap.chapter)})
            clauses.append(
                {"book_id": cap.book_id, "chapter_seq": cap.chapter, "passage_seq": ("<=", cap.passage)}
            )
    return clauses


def vector_search(
    store: Store, caps: Sequence[Cap], query: str, k: int, *, chapter: int | None = None
) -> list[Hit]:
    """The k passages nearest the query among those under the caps (none when nothing is),
    within one chapter of each book when `chapter` is given (a story the question names).

    Books whose vectors were made by another embedder are embedded with the current one first
    (once: `ensure_current`), so a search after a model switch sees every book, one model only.
    """
    shown = [c.book_id for c in caps if c.chapter > 0]
    if not shown:
        return []
    clauses = cap_filter(caps) if chapter is None else chapter_filter(caps, chapter)
    if not clauses:
        return []
    ensure_current(store, shown)
    index = passage_index(store)
    return index.search(query, k=k, where=clauses, backend=index.rows.filtered_path)


def chapter_filter(caps: Sequence[Cap], chapter: int) -> list[dict[str, Any]]:
    """The vector filter for one chapter of each book, under the caps: nothing of a chapter
    past a book's cap, and in the cap's own chapter only the passages up to it."""
    clauses: list[dict[str, Any]] = []
    for cap in caps:
        if chapter <= 0 or chapter > cap.chapter:
            continue
        if chapter < cap.chapter or cap.passage is None or cap.chapter >= END:
            clauses.append({"book_id": cap.book_id, "chapter_seq": chapter})
        else:
            clauses.append(
                {"book_id": cap.book_id, "chapter_seq": chapter, "passage_seq": ("<=", cap.passage)}
            )
    return clauses
