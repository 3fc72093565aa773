"""The reader's cap is a filter at every entry point: nothing past it comes out of the store.

The mystery book names Clara Vane first in chapter 3 and reveals the poisoner in chapter 5.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from lore.books import entities, library, search
from lore.books import store as sql
from lore.books.passage_vectors import vector_search
from lore.books.store.cap import Cap
from lore.core.errors import NotFound
from lore.core.store.base import Store
from support.books import make_epub, mystery_book

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def test_a_book_not_started_shows_nothing(mystery: library.Book) -> None:
    _, found = entities.characters(mystery.id)
    assert found == []
    assert entities.autocomplete(mystery.id, "Pen") == []
    assert entities.graph(mystery.id)["nodes"] == []
    with pytest.raises(NotFound):
        entities.profile(mystery.id, "Penrose")
    result = search.search_book(mystery.id, "Penrose")
    assert result.hits == [] and result.verdict == search.NOT_REACHED


def test_a_name_first_mentioned_after_the_cap_does_not_exist(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2)
    _, found = entities.characters(mystery.id, limit=500)
    names = {e.name for e in found} | {a for e in found for a in e.aliases}
    assert "Arthur Penrose" in names and not any("Clara" in n or "Vane" in n for n in names)
    assert entities.autocomplete(mystery.id, "Cla") == []
    assert entities.autocomplete(mystery.id, "Vane") == []
    with pytest.raises(NotFound) as err:
        entities.profile(mystery.id, "Clara Vane")
    assert "chapter" not in str(err.value)  # the refusal does not say where she appears
    graph = entities.graph(mystery.id, limit=500)
    assert not any("Clara" in n["name"] for n in graph["nodes"])
    assert all(e["first_chapter"] <= 2 for e in graph["edges"])

    library.set_progress(mystery.id, 3)
    clara = entities.profile(mystery.id, "Clara Vane")
    assert (clara["first_chapter"], clara["mentions"]) == (3, 2)
    assert entities.autocomplete(mystery.id, "Cla") == ["Clara Vane"]


def test_the_cap_within_a_chapter_is_a_passage(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 3, passage=1)
    assert entities.autocomplete(mystery.id, "Clara") == []
    library.set_progress(mystery.id, 3)
    assert entities.autocomplete(mystery.id, "Clara") == ["Clara Vane"]


def test_autocomplete_ignores_case_on_either_backend(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 3)
    assert entities.autocomplete(mystery.id, "cla") == ["Clara Vane"]  # the name's first word
    assert entities.autocomplete(mystery.id, "VANE") == ["Clara Vane"]  # any later word
    assert entities.autocomplete(mystery.id, "ane") == []  # a word's start, not its middle


def test_profile_counts_and_company_are_capped(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2)
    early = entities.profile(mystery.id, "Penrose")
    library.set_progress(mystery.id, 5)
    late = entities.profile(mystery.id, "Penrose")
    assert early["mentions"] < late["mentions"]
    assert all(a["chapter"] <= 2 for a in early["appearances"])
    assert "Clara Vane" not in {r["name"] for r in early["related"]}
    assert "Clara Vane" in {r["name"] for r in late["related"]}


def test_full_text_and_vector_search_filter_inside_the_query(mystery: library.Book) -> None:
    db = sql.books_store()
    cap = [Cap(mystery.id, 2)]
    assert db.term_hits(cap, ["clara"]) == []
    assert db.term_hits([Cap(mystery.id, 5)], ["clara"])
    visible = db.count_visible_passages(cap)
    hits = vector_search(db.store, cap, "Clara Vane poisoned the colonel", k=10_000)
    # the filter runs in the scan, before the top-k: every visible passage, nothing else
    assert len(hits) == visible
    rows = db.passages_by_id(cap, [int(h.key) for h in hits])
    assert {r.chapter_seq for r in rows} == {1, 2}
    assert vector_search(db.store, [Cap(mystery.id, 0)], "Penrose", k=10) == []


def test_show_hides_the_titles_of_chapters_not_reached(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2)
    _, outline = library.chapters(mystery.id)
    assert [c["title"] for c in outline] == ["Chapter 1", "Chapter 2", None, None, None]
    assert [c["reached"] for c in outline] == [True, True, False, False, False]


def test_each_book_of_a_series_keeps_its_own_cap(tmp_path: Path) -> None:
    first = library.add_book(make_epub(tmp_path / "one.epub", series=("Vane", 1)))
    spec = mystery_book()
    spec.title = "The Vane Inheritance II"
    second = library.add_book(make_epub(tmp_path / "two.epub", spec, series=("Vane", 2)))
    library.set_progress(first.id, 5)
    library.set_progress(second.id, 2)
    result = search.search_series("Vane", "Clara Vane poisoned the colonel with arsenic", k=20)
    assert result.verdict == search.FOUND
    assert {h.book_id for h in result.hits} == {first.id}
    assert all(h.chapter <= 2 for h in result.hits if h.book_id == second.id)
    chapters = search.search_series("Vane", "opening of chapter", k=50)
    assert max(h.chapter for h in chapters.hits if h.book_id == second.id) == 2
    assert max(h.chapter for h in chapters.hits if h.book_id == first.id) == 5


@contextmanager
def _traced(store: Store) -> Iterator[list[str]]:
    """Every statement this thread's connection sends: SQLite's trace callback, or on PostgreSQL
    libpq's own protocol trace (the Parse and Query messages that carry statement texts)."""
    statements: list[str] = []
    conn = store.connect()
    if store.dialect == "sqlite":
        conn.set_trace_callback(statements.append)
        try:
            yield statements
        finally:
            conn.set_trace_callback(None)
        return
    from psycopg import pq

    with tempfile.TemporaryFile("w+") as log:
        conn.raw.pgconn.trace(log.fileno())
        conn.raw.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            yield statements
        finally:
            conn.raw.pgconn.untrace()
            log.seek(0)
            for line in log:
                fields = line.rstrip("\n").split("\t")
                if len(fields) > 3 and fields[0] == "F" and fields[2] in ("Parse", "Query"):
                    statements.append(fields[3].split('"', 3)[-1] if fields[2] == "Parse" else fields[3])


def test_every_capped_read_joins_the_cap_in_sql(mystery: library.Book) -> None:
    """A trace of the statements run by each entry point: each read of book content is capped.

    (The vector index's own reads are checked above: its filter runs inside the scan.)"""
    library.set_progress(mystery.id, 2)
    with _traced(sql.books_store().store) as statements:
        search.search_book(mystery.id, "Who poisoned the colonel?")
        entities.characters(mystery.id)
        entities.autocomplete(mystery.id, "Pe")
        entities.profile(mystery.id, "Penrose")
        entities.graph(mystery.id)
    content_tables = ("book_passages", "book_mentions", "book_passages_fts")
    reads = [
        s
        for s in statements
        if s.lstrip().strip('"').upper().startswith(("WITH", "SELECT"))
        and any(t in s for t in content_tables)
        and "book_chapters c" not in s
        and "core_vector" not in s
    ]
    assert reads, "the entry points ran no reads at all"
    uncapped = [s for s in reads if "JOIN cap ON" not in s]
    assert uncapped == []


def test_not_reached_reveals_nothing_about_where(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 4)
    result = search.search_book(mystery.id, "Who poisoned the colonel with arsenic?")
    assert result.verdict == search.NOT_REACHED and result.hits == []
    dumped = json.dumps(result.as_dict())
    assert "arsenic" not in dumped.replace(result.query, "")
    assert "chapter" not in result.message.lower() and "5" not in result.message


def test_a_passage_cap_holds_for_search_and_vectors(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 5, passage=1)
    result = search.search_book(mystery.id, "Who poisoned the colonel?")
    assert result.verdict == search.NOT_REACHED and result.hits == []
    db = sql.books_store()
    hits = vector_search(db.store, [Cap(mystery.id, 5, 1)], "poisoned the colonel", k=10_000)
    rows = db.passages_by_id([Cap(mystery.id, 5, 1)], [int(h.key) for h in hits])
    assert len(rows) == len(hits) == db.count_visible_passages([Cap(mystery.id, 5, 1)])
    assert all(r.chapter_seq < 5 or r.passage_seq == 1 for r in rows)
