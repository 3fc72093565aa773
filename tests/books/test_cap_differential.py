"""The differential no-leak test: what a reader sees at a cap is what a library without the rest
of the book would show.

For several books and random (chapter, passage) caps, every listing and score is computed twice
under the same cap: over the full store, and over a copy of it from which every passage,
full-text row, mention, name link and model row past the cap has been deleted. Any difference
means something past the cap shaped the answer (a count, a kind, an id, a name, a score). The
one designed exception is search's verdict, which says (without where) that an answer lies
ahead; its hits and scores are compared.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from lore.books import entities, library, search
from lore.core.store import Store

PAST = "(chapter_seq > ? OR (chapter_seq = ? AND passage_seq > ?))"
QUESTIONS = ["Who is the murderer?", "a letter in the rain", "Holmes and the inspector", "the lodge"]


def _truncated_copy(source: Store, target: Path, book_id: int, chapter: int, passage: int) -> Store:
    """A copy of the store holding only this book's text up to (chapter, passage)."""
    with sqlite3.connect(source.path) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    with sqlite3.connect(target) as conn:
        where = f"book_id = ? AND {PAST}"
        args = (book_id, chapter, chapter, passage)
        conn.execute(
            "INSERT INTO book_passages_fts (book_passages_fts, rowid, text)"
            f" SELECT 'delete', id, text FROM book_passages WHERE {where}",
            args,
        )
        for table in (
            "book_mentions",
            "book_name_links",
            "book_model_names",
            "book_model_facts",
            "book_model_relations",
            "book_passages",
        ):
            conn.execute(f"DELETE FROM {table} WHERE {where}", args)
        conn.execute(
            "DELETE FROM book_entities WHERE book_id = ? AND id NOT IN (SELECT entity_id FROM book_mentions)",
            (book_id,),
        )
    return Store(target)


def _view(book_id: int, store: Store) -> dict[str, Any]:
    """Everything a reader can list or score for one book at the position recorded in `store`."""
    _, found = entities.characters(book_id, limit=500, store=store)
    listed = [e.as_dict() for e in found]
    profiles = [entities.profile(book_id, e["name"], store=store) for e in listed[:4]]
    prefixes = sorted({e["name"][:2] for e in listed[:12]})
    return {
        "characters": listed,
        "profiles": profiles,
        "names": {p: entities.autocomplete(book_id, p, store=store) for p in prefixes},
        "graph": entities.graph(book_id, limit=500, store=store),
        "search": [_hits(search.search_book(book_id, q, k=8, store=store)) for q in QUESTIONS],
    }


def _hits(result: search.SearchResult) -> list[dict[str, Any]] | str:
    """Hits and scores. A verdict that the answer lies ahead (by design computed without the cap,
    and said without where) shows no hits at all; the truncated copy cannot know it, so that
    case is compared as "nothing shown" only."""
    if result.verdict == search.NOT_REACHED:
        assert result.hits == []
        return "nothing shown"
    return list(result.as_dict()["hits"])


def _random_caps(book: library.Book, store: Store, count: int, seed: int) -> list[tuple[int, int]]:
    _, outline = library.chapters(book.id, store=store)  # sizes of every chapter: the position is at end
    rng = random.Random(seed)
    caps = []
    for _ in range(count):
        chapter = rng.randint(1, book.chapters)
        caps.append((chapter, rng.randint(1, outline[chapter - 1]["passages"])))
    return caps


def _check(book: library.Book, store: Store, tmp_path: Path, count: int, seed: int) -> None:
    library.set_progress(book.id, "end", store=store)
    for i, (chapter, passage) in enumerate(_random_caps(book, store, count, seed)):
        library.set_progress(book.id, chapter, passage, store=store)
        full = _view(book.id, store)
        alone = _truncated_copy(store, tmp_path / f"cap{i}.db", book.id, chapter, passage)
        seen = _view(book.id, alone)
        for key in range(len(seen["search"])):
            if full["search"][key] == "nothing shown":
                seen["search"][key] = "nothing shown"  # a verdict the full library alone can give
        assert seen == full, f"{book.title} at chapter {chapter}, passage {passage}"


def test_a_small_book_at_random_passage_caps(mystery: library.Book, tmp_path: Path) -> None:
    store = library.open_books().store
    _check(mystery, store, tmp_path, count=8, seed=13)


@pytest.mark.parametrize("name", ["a-study-in-scarlet.epub", "the-sign-of-the-four.epub"])
def test_shared_books_at_random_passage_caps(shared, tmp_path: Path, name: str) -> None:
    folder, lib = shared
    book = lib.book(folder, name)
    _check(book, lib.store, tmp_path, count=4, seed=len(name))
