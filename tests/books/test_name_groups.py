"""Name grouping as a timeline: what a reader at chapter c sees is what chapters 1..c alone show."""

from __future__ import annotations

import random

from lore.books import entities, library
from lore.books.names.groups import Grouping, extract_names, name_index
from lore.books.read.readers import read_book

CHAPTERS = [
    "Penrose walked to the lodge where Penrose kept his dogs, and then Hale came by.",
    "The letter was for Mr. Penrose, and Mr. Penrose read it twice before Hale left.",
    "Mr. Arthur Penrose signed it. Later Hale met Prophet Hale, who had come from the west.",
    "Gideon Hale said nothing, and Penrose laughed at Hale and at Prophet.",
]


def _grouping_before(links, chapter: int) -> dict[str, str]:
    current: dict[str, str] = {}
    for link in links:
        if link.chapter < chapter:
            current[link.form] = link.target
    return {form: target for form, target in current.items() if form != target}


def _check_prefixes(chapters: list[str]) -> None:
    mentions, links = name_index(chapters)
    for c in range(1, len(chapters) + 1):
        alone, _ = name_index(chapters[:c])
        assert alone == [m for m in mentions if m.chapter < c]  # finding names never looks ahead
        fresh = Grouping()
        for m in alone:
            fresh.see(m)
        assert _grouping_before(links, c) == fresh.current, f"chapter {c}"


def test_the_grouping_after_each_chapter_is_that_of_the_text_so_far() -> None:
    _check_prefixes(CHAPTERS)
    _, links = name_index(CHAPTERS)
    assert _grouping_before(links, 1) == {}
    assert _grouping_before(links, 2) == {"Penrose": "Mr. Penrose"}
    assert _grouping_before(links, 3) == {
        "Penrose": "Arthur Penrose",
        "Mr. Penrose": "Arthur Penrose",
        "Hale": "Prophet Hale",
    }
    after = _grouping_before(links, 4)
    assert after["Prophet"] == "Prophet Hale" and after["Penrose"] == "Arthur Penrose"
    assert "Hale" not in after  # "Gideon Hale" in chapter 4: two full names fit, it stays itself


def test_the_grouping_depends_on_what_was_seen_not_in_what_order() -> None:
    mentions, _ = name_index(CHAPTERS)
    expected = Grouping()
    for m in mentions:
        expected.see(m)
    for seed in range(5):
        shuffled = list(mentions)
        random.Random(seed).shuffle(shuffled)
        grouping = Grouping()
        for m in shuffled:
            grouping.see(m)
        assert grouping.current == expected.current


def test_a_finished_book_groups_every_form_it_can() -> None:
    found = {e.name: e for e in extract_names(CHAPTERS)}
    assert {m.form for m in found["Arthur Penrose"].mentions} == {"Arthur Penrose", "Mr. Penrose", "Penrose"}
    assert found["Arthur Penrose"].kind == "person"


def test_shared_books_are_grouped_as_read(shared) -> None:
    folder, _ = shared
    book = read_book(folder / "books" / "a-study-in-scarlet.epub")
    _check_prefixes([c.text for c in book.chapters])


def test_a_link_made_later_in_the_book_is_not_shown_before(shared) -> None:
    folder, lib = shared
    scarlet = lib.book(folder, "a-study-in-scarlet.epub")
    library.set_progress(scarlet.id, 10, store=lib.store)
    prophet = entities.profile(scarlet.id, "Prophet", store=lib.store)
    assert (prophet["name"], prophet["aliases"]) == ("Prophet", [])
    _, met = entities.characters(scarlet.id, limit=1000, store=lib.store)
    assert not any({"Mormon", "Prophet"} <= {e.name, *e.aliases} for e in met)
    names = {n["name"] for n in entities.graph(scarlet.id, limit=5000, store=lib.store)["nodes"]}
    assert "Mormon Prophet" not in names and "Mormon Prophet" not in entities.autocomplete(
        scarlet.id, "Mor", store=lib.store
    )
    library.set_progress(scarlet.id, 11, store=lib.store)  # "Mormon Prophet" is in chapter 11
    prophet = entities.profile(scarlet.id, "Prophet", store=lib.store)
    assert prophet["name"] == "Mormon Prophet" and "Prophet" in prophet["aliases"]
    # said as "the Mormon Prophet", a description: its first word ("Mormon", the people) is not
    # a given name, so "Mormon" does not join it
    assert "Mormon" not in prophet["aliases"]

    adventures = lib.book(folder, "adventures-of-sherlock-holmes-pg1661.epub")
    library.set_progress(adventures.id, 5, store=lib.store)
    jack = entities.profile(adventures.id, "Jack", store=lib.store)
    assert (jack["name"], jack["aliases"]) == ("Jack", [])
    library.set_progress(adventures.id, 10, store=lib.store)  # "Union Jack", a flag
    # "Jack" is short for John, and several Johns are named by then: the flag's second word is
    # not a given name's short form that fits one person, so the man stays himself
    assert entities.profile(adventures.id, "Jack", store=lib.store)["name"] == "Jack"


def test_a_kind_is_known_from_where_the_text_shows_it(tmp_path) -> None:
    text = tmp_path / "kinds.txt"
    text.write_text(
        "THE KINDS\n\n"
        + "\n\n".join(
            f"CHAPTER {n}\n\n" + " ".join([body] * 6)
            for n, body in enumerate(
                [
                    "In the morning the rain fell on the roofs while Penrose waited at the gate for the post.",
                    "Then the cart stopped, and Mr. Penrose climbed down to speak with the driver at the gate.",
                ],
                start=1,
            )
        )
    )
    book = library.add_book(text)
    library.set_progress(book.id, 1)
    _, found = entities.characters(book.id, every=True)  # one passage: listed only with every
    assert [(e.name, e.kind) for e in found] == [("Penrose", "name")]
    assert entities.graph(book.id)["nodes"] == []
    library.set_progress(book.id, 2)
    _, found = entities.characters(book.id)
    # no full name yet: the titled form is shown, the bare surname is an alias
    assert [(e.name, e.kind) for e in found] == [("Mr. Penrose", "person")]
    assert entities.profile(book.id, "Penrose")["aliases"] == ["Penrose"]


def test_a_library_imported_before_the_timeline_gets_its_names_found_again(mystery) -> None:
    from lore.books import store as sql
    from lore.core.store.sqlite import SqliteStore

    db = sql.books_store()
    library.set_progress(mystery.id, 2)
    before = entities.characters(mystery.id, limit=500)[1]
    with db.store.transaction() as tx:  # the old shape: whole-book groups, no timeline
        tx.execute("DELETE FROM book_name_links")
        tx.execute("UPDATE book_mentions SET entity_id = (SELECT MIN(id) FROM book_entities)")
        tx.execute("DELETE FROM schema_migrations WHERE name = 'books/0004_names_as_read'")
    reopened = sql.books_store(SqliteStore(db.path))
    after = entities.characters(mystery.id, limit=500, store=reopened)[1]
    assert [(e.name, e.kind, e.mentions) for e in after] == [(e.name, e.kind, e.mentions) for e in before]


def test_a_store_that_ran_the_old_names_migration_gets_the_queue_table(mystery) -> None:
    """Migration 0004 once ran the name finder itself and made no queue table; 0005 adds it."""
    from lore.books import store as sql
    from lore.core.store.sqlite import SqliteStore

    db = sql.books_store()
    library.set_progress(mystery.id, 2)
    before = entities.characters(mystery.id, limit=500)[1]
    with db.store.transaction() as tx:
        tx.execute("DROP TABLE book_names_pending")
        tx.execute("DELETE FROM schema_migrations WHERE name = 'books/0005_names_pending'")
    reopened = library.open_books(SqliteStore(db.path))
    assert "books/0005_names_pending" in reopened.store.applied_migrations()
    after = entities.characters(mystery.id, limit=500, store=reopened)[1]
    assert [(e.name, e.mentions) for e in after] == [(e.name, e.mentions) for e in before]
