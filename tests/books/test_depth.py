"""Each passage vector carries its place in the book (`depth`), and every cap bounds it: a
redundant term that keeps exactly the passages the chapter and passage terms keep, and tells
the store the filter is a prefix of each book (on PostgreSQL, a walk in a prefix tier).
Vectors stored before they carried it are placed once, as after a model switch; a read-only
store holding them is still searched, without the bound."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lore.books import library, passage_vectors
from lore.books.passage_vectors import COLLECTION, book_depths, cap_filter, placed_books, stale_books
from lore.books.store import books_store
from lore.books.store.cap import END, Cap
from lore.core.config import update_settings
from lore.core.llm import totals
from lore.core.store.open import forget_stores, open_store
from lore.core.vectors import DEPTH_FIELD, VectorIndex

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _index() -> VectorIndex:
    return passage_vectors.passage_index(open_store())


def _reading_order(book_id: int) -> list[tuple[str, dict]]:
    """(key, metadata) of the book's vectors, in reading order."""
    index = _index()
    hits = index.search(index.space.embed_query("the"), k=10_000, where={"book_id": book_id})  # type: ignore[attr-defined]
    return sorted(
        ((h.key, h.meta) for h in hits), key=lambda kv: (kv[1]["chapter_seq"], kv[1]["passage_seq"])
    )


def _unplace(book_id: int) -> None:
    """Store the book's vectors again as they were before they carried a depth."""
    index = _index()
    rows = index.rows.load(COLLECTION, index.model)
    index.add(
        (
            key,
            np.frombuffer(blob, dtype="<f4"),
            {k: v for k, v in json.loads(meta).items() if k != DEPTH_FIELD},
        )
        for key, blob, meta in zip(rows.keys, rows.vectors, rows.metas, strict=True)
        if json.loads(meta)["book_id"] == book_id
    )


def _visible(where: list[dict]) -> set[str]:
    """The keys of every vector the filter keeps."""
    index = _index()
    return {h.key for h in index.search(index.space.embed_query("the"), k=10_000, where=where)}  # type: ignore[attr-defined]


def test_every_vector_carries_its_place_and_every_cap_bounds_it_exactly(mystery: library.Book) -> None:
    rows = _reading_order(mystery.id)
    assert len(rows) == mystery.passages
    depths = [meta[DEPTH_FIELD] for _, meta in rows]
    assert all(0 < d <= 1 for d in depths)
    assert depths == sorted(depths) and len(set(depths)) == len(depths)  # one place per passage
    assert depths[-1] == 1.0

    place = book_depths(books_store(), mystery.id)
    outline = {r.chapter_seq: r.passage_count for r in books_store().chapter_outline(mystery.id)}
    caps = [Cap(mystery.id, c, p) for c, n in outline.items() for p in (1, n, None)]
    caps += [Cap(mystery.id, END), Cap(mystery.id, max(outline) + 1, 1)]
    for cap in caps:
        bounded = cap_filter([cap], {mystery.id: place})
        assert all(DEPTH_FIELD in clause for clause in bounded)
        assert _visible(bounded) == _visible(cap_filter([cap])), cap
        last = max((m[DEPTH_FIELD] for k, m in rows if k in _visible(cap_filter([cap]))), default=0)
        assert bounded[0][DEPTH_FIELD] == ("<=", last), cap  # the bound is the cap's last passage


def test_vectors_stored_before_they_carried_a_depth_are_placed_once(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2, 1)
    _unplace(mystery.id)
    store = open_store()
    assert stale_books(store, [mystery.id]) == [mystery.id]
    passage_vectors._checked.clear()

    caps = [library.cap_for(library.get_book(mystery.id))]
    hits = passage_vectors.vector_search(store, caps, "who poisoned the colonel?", 5)
    assert hits and all(h.meta[DEPTH_FIELD] > 0 for h in hits)  # placed before the search ran
    assert stale_books(store, [mystery.id]) == []
    assert set(placed_books(store, [mystery.id])) == {mystery.id}
    assert {h.meta["chapter_seq"] for h in hits} <= {1, 2}


def test_a_read_only_store_with_unplaced_vectors_is_searched_without_the_bound(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2, 1)
    _unplace(mystery.id)
    totals()  # the accounting tables exist, as in any store a search has used
    update_settings({"store": {"read_only": True}})
    forget_stores()
    passage_vectors._checked.clear()
    store = open_store()
    assert store.read_only
    assert placed_books(store, [mystery.id]) == {}
    caps = [library.cap_for(library.get_book(mystery.id, store=store))]
    hits = passage_vectors.vector_search(store, caps, "who poisoned the colonel?", 5)
    shown = _visible(cap_filter(caps))
    assert hits and len(hits) == min(5, len(shown))
    assert all(DEPTH_FIELD not in h.meta for h in hits)  # nothing written
    assert {h.meta["chapter_seq"] for h in hits} <= {1, 2}
