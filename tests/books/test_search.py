"""Hybrid search: fused rankings, the relevance floor, and the three verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.books import library, search
from lore.books.retrieve.query import content_terms, names_the_role, parse
from lore.core.config import update_settings
from lore.core.store.base import Store
from lore.core.store.sqlite import SqliteStore
from support.books import make_epub, mystery_book

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

QUESTION = "Who poisoned the colonel?"


def test_a_question_answered_within_the_cap_is_found_with_its_passage(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 5)
    result = search.search_book(mystery.id, QUESTION)
    assert result.verdict == search.FOUND and result.message == ""
    top = result.hits[0]
    assert top.chapter == 5 and "Clara Vane who had poisoned the old colonel" in top.text
    assert top.bm25 is not None and top.cosine is not None  # both rankings contributed
    assert top.coverage == 1.0
    assert result.embedder == "hash-ngram-v1" and result.floor == search.relevance_floor("hash-ngram-v1")


def test_before_the_answer_it_says_not_reached_and_shows_nothing(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 4)
    result = search.search_book(mystery.id, QUESTION)
    assert (result.verdict, result.hits) == (search.NOT_REACHED, [])
    assert result.message == search.MESSAGES[search.NOT_REACHED]


def test_what_the_book_never_says_is_not_in_the_book(mystery: library.Book) -> None:
    for chapter in (0, 2, "end"):
        library.set_progress(mystery.id, chapter)
        result = search.search_book(mystery.id, "Which submarine sank near Gibraltar?")
        assert (result.verdict, result.hits) == (search.NOT_IN_BOOK, [])


def test_spoilers_lift_the_cap_for_one_search(mystery: library.Book) -> None:
    result = search.search_book(mystery.id, QUESTION, spoilers=True)
    assert result.verdict == search.FOUND and result.hits[0].chapter == 5
    assert library.get_book(mystery.id).position.chapter == 0  # the position is unchanged


def test_hits_are_ranked_within_the_cap_and_clear_the_floor(mystery: library.Book) -> None:
    library.set_progress(mystery.id, "end")
    result = search.search_book(mystery.id, "Hale", k=10)
    assert result.verdict == search.FOUND
    assert {h.chapter for h in result.hits} == {2, 4, 5}
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)
    assert all(h.strength >= search.HIT_FLOOR for h in result.hits)
    assert any(h.coverage >= search.COVERAGE_FLOOR or h.cosine >= result.floor for h in result.hits)


def test_the_relevance_floor_is_per_embedder_and_configurable(mystery: library.Book) -> None:
    library.set_progress(mystery.id, "end")
    assert search.search_book(mystery.id, "the lamps of the submarine").verdict == search.NOT_IN_BOOK
    update_settings({"books": {"relevance_floor": {"hash-ngram-v1": 0.05}}})
    assert search.relevance_floor("hash-ngram-v1") == 0.05
    loose = search.search_book(mystery.id, "the lamps of the submarine")
    assert loose.verdict == search.FOUND and all(h.cosine >= 0.05 for h in loose.hits)
    assert search.relevance_floor("some-other-model") == search.DEFAULT_FLOOR


def test_question_words_are_not_search_terms() -> None:
    assert content_terms("Who is the murderer of Enoch Drebber?") == ["murderer", "enoch", "drebber"]
    assert content_terms("What? Who? Why?") == []


def test_scores_do_not_depend_on_text_past_the_cap(tmp_path: Path, mystery_epub: Path) -> None:
    """Two books with the same first two chapters, each alone in a library: at chapter 2 every
    number must be the same, however often the hidden chapters (or other books) use the words."""
    spec = mystery_book()
    spec.title = "The Vane Inheritance, revised"
    for chapter in spec.chapters[2:]:
        chapter.paragraphs += [
            "The teapot, the silver teapot, the lodge teapot: Penrose and Hale"
            " spoke of the teapot at the lodge again and again."
        ] * 6
    revised_epub = make_epub(tmp_path / "revised.epub", spec)
    query = "Penrose, Hale and the silver teapot at the lodge"
    keep = ("chapter", "passage", "text", "score", "bm25", "cosine", "coverage")

    def found(epub: Path, store: Store) -> list[dict]:
        book = library.add_book(epub, store=store)
        library.set_progress(book.id, 2, store=store)
        result = search.search_book(book.id, query, k=10, store=store).as_dict()
        assert result["verdict"] == "found" and result["hits"]
        return [{k: h[k] for k in keep} for h in result["hits"]]

    alone = SqliteStore(tmp_path / "one" / "lore.db")
    original = found(mystery_epub, alone)
    assert original == found(revised_epub, SqliteStore(tmp_path / "two" / "lore.db"))
    assert all(h["bm25"] is not None for h in original if h["coverage"] > 0)
    found(revised_epub, alone)  # another book in the same library changes nothing either
    assert found(mystery_epub, alone) == original


def test_a_question_stands_for_the_words_a_story_uses() -> None:
    killer = parse("Who is the killer?")
    assert killer.terms == ["killer"] and {"murderer", "murdered", "slain"} <= set(killer.groups[0])
    assert killer.role is not None and "murderer" in killer.role and "murdered" not in killer.role
    wrote = parse("Who wrote RACHE on the wall?")
    assert wrote.terms == ["wrote", "rache", "wall"] and "written" in wrote.groups[0]
    assert wrote.role is None  # who did something: any passage saying it may answer
    assert set(parse("Who was the murderer of Enoch Drebber?").role or ()) == set(killer.role)
    assert parse("Who is the Cheshire Cat?").role is None  # a name: asks about them
    assert parse("What does Rache mean?").terms == ["rache"]


def _names(text: str, *names: str) -> list[tuple[int, int]]:
    return [(text.index(n), text.index(n) + len(n)) for n in names]


def test_a_who_is_question_wants_a_name_in_the_role() -> None:
    role = parse("Who is the killer?").role
    assert role is not None
    for text, name in [
        ("let me introduce you to Mr. Jefferson Hope, the murderer of Enoch Drebber.", "Mr. Jefferson Hope"),
        ("They said Arthur was the real killer all along.", "Arthur"),
        ("The murderer is Mr. Arthur Penrose, and he knew it.", "Mr. Arthur Penrose"),
        ("We know the culprit: Clara Vane.", "Clara Vane"),
    ]:
        assert names_the_role(text, _names(text, name), role), text
    for text, name in [
        ("In all probability the murderer had a florid face, said Holmes.", "Holmes"),
        ("Enoch Drebber, the murdered man, lay on the floor.", "Enoch Drebber"),
        ("the murder of Enoch Drebber", "Enoch Drebber"),
    ]:
        assert not names_the_role(text, _names(text, name), role), text


def test_who_is_the_killer_waits_for_the_passage_that_names_one(tmp_path: Path) -> None:
    spec = mystery_book()
    spec.title = "The Glove"
    spec.chapters[1].paragraphs.append("The murderer left a single grey glove by the fire.")
    spec.chapters[3].paragraphs.append("Mr. Arthur Penrose, the murderer of the colonel, confessed it all.")
    book = library.add_book(make_epub(tmp_path / "glove.epub", spec))
    library.set_progress(book.id, 3)
    early = search.search_book(book.id, "Who is the killer?")
    assert (early.verdict, early.hits) == (search.NOT_REACHED, [])  # not the glove: no one named
    library.set_progress(book.id, 4)
    named = search.search_book(book.id, "Who is the killer?")
    assert named.verdict == search.FOUND and "the murderer of the colonel" in named.hits[0].text
    assert all("glove" not in h.text for h in named.hits)
    # nothing in the book names a poisoner: what it says about poisoning is the best there is
    library.set_progress(book.id, 4)
    assert search.search_book(book.id, "Who is the poisoner?").verdict == search.NOT_REACHED
    library.set_progress(book.id, 5)
    said = search.search_book(book.id, "Who is the poisoner?")
    assert said.verdict == search.FOUND and "poisoned the old colonel" in said.hits[0].text


def test_with_the_spoiler_hint_off_not_reached_and_not_in_book_read_the_same(mystery: library.Book) -> None:
    """The one-bit hint tells a reader whether the unread part answers a guess; off, it cannot."""
    library.set_progress(mystery.id, 4)
    assert search.spoiler_hint() is True  # on by default, as the spec wants
    assert search.search_book(mystery.id, QUESTION).verdict == search.NOT_REACHED
    update_settings({"books": {"spoiler_hint": False}})
    ahead = search.search_book(mystery.id, QUESTION)
    absent = search.search_book(mystery.id, "Which submarine sank near Gibraltar?")
    for result in (ahead, absent):
        assert (result.verdict, result.message, result.hits) == (search.NOT_ANSWERED, search.NEUTRAL, [])
    assert ahead.as_dict().keys() == absent.as_dict().keys()
    library.set_progress(mystery.id, 5)  # what is visible is still found
    assert search.search_book(mystery.id, QUESTION).verdict == search.FOUND


def test_accented_and_plain_spellings_find_the_same_passage(tmp_path: Path) -> None:
    """Accents fold on both backends (FTS5's `remove_diacritics`, PostgreSQL's frozen
    `lore_books_fold` before the stemmer): a reader typing "Elodie" or "cafe" finds the passage
    that writes "Élodie" and "café", and the accented query finds a plain spelling too, with the
    cap still inside."""
    from lore.books.store import books_store
    from lore.books.store.cap import Cap

    spec = mystery_book()
    spec.title = "The Café"
    spec.chapters[1].paragraphs.append(
        "Élodie waited at the café on the Rue Saint-Honoré until Mr. Nguyễn came."
    )
    spec.chapters[3].paragraphs.append("Later the cafe was closed and Elodie went home.")
    book = library.add_book(make_epub(tmp_path / "cafe.epub", spec))
    db = books_store()
    early, whole = [Cap(book.id, 2)], [Cap(book.id, 5)]

    def texts(caps: list[Cap], words: list[str]) -> list[str]:
        return sorted(p.text for p in db.passages_by_id(caps, [h.id for h in db.term_hits(caps, words)]))

    accented = texts(early, ["élodie"])
    assert len(accented) == 1 and "Élodie waited" in accented[0]
    assert texts(early, ["elodie"]) == accented == texts(early, ["ELODIE"])
    assert texts(early, ["cafe"]) == accented == texts(early, ["café"])
    assert texts(early, ["honore"]) == accented == texts(early, ["nguyen"])
    both = texts(whole, ["élodie"])
    assert len(both) == 2 and texts(whole, ["elodie"]) == both  # "Elodie" past the cap, now visible
    assert texts(early, ["closed"]) == []  # the cap holds for the folded words too
