"""Passage vectors in the core vector index, with the reader's cap as a pre-top-k filter.

One collection holds every book's passages; each vector carries `book_id`, `chapter_seq` and
`passage_seq`, and a search passes one filter clause per book so the index never scores a
passage past its book's cap. The embedder is the configured one (`lore.core.embed`), the
deterministic offline hash embedder when none is configured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lore.books.store import END, Cap, PassageText
from lore.core.embed import Embedder, get_embedder
from lore.core.llm import model_subject
from lore.core.store import Store
from lore.core.vectors import Hit, VectorIndex, VectorSpace, collections

COLLECTION = "book_passages"
BATCH = 256

_embedders: dict[str, Embedder] = {}


def embedder() -> Embedder:
    """The configured embedder, made once per process."""
    from lore.core.embed.factory import configured_embedder_name

    name = configured_embedder_name() or "hash"
    if name not in _embedders:
        _embedders[name] = get_embedder(name)
    return _embedders[name]


def passage_index(store: Store, space: Embedder | None = None) -> VectorIndex:
    return VectorIndex(COLLECTION, space or embedder(), store)


def index_passages(
    store: Store, book_id: int, rows: Sequence[PassageText], tick: Callable[[str, int, int], None]
) -> int:
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


def remove_passages(store: Store, book_id: int) -> None:
    """Drop a book's vectors from every embedder's index (inside the caller's transaction)."""
    for entry in collections(store):
        if entry["collection"] == COLLECTION:
            space = VectorSpace(entry["embedder"], entry["dim"])
            VectorIndex(COLLECTION, space, store).delete(where={"book_id": book_id})


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


def vector_search(store: Store, caps: Sequence[Cap], query: str, k: int) -> list[Hit]:
    """The k passages nearest the query among those under the caps (none when nothing is)."""
    clauses = cap_filter(caps)
    if not clauses:
        return []
    return passage_index(store).search(query, k=k, where=clauses)
