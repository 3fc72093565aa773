"""Question understanding, and what it changes in search: the focus character, the calibrated
verdicts, the probe that says nothing of where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.books import library, search
from lore.books.retrieve import boosts
from lore.books.retrieve.question import CUES, WHY, understand
from lore.core.config import update_settings
from support.books import FILLER, BookSpec, Chapter, make_epub, prose_chapter

LABELLED = json.loads((Path(__file__).parent / "data" / "questions_understood.json").read_text("utf-8"))


@pytest.mark.parametrize("row", LABELLED, ids=[r["question"] for r in LABELLED])
def test_a_question_is_read_as_labelled(row: dict) -> None:
    understood = understand(row["question"])
    assert understood.answer_type == row["type"]
    assert understood.names == row["names"]
    assert understood.words == row["words"]


def test_a_why_question_searches_for_the_word_its_variants_and_reasons() -> None:
    understood = understand("Why did Clara Vane leave the lodge?")
    assert understood.answer_type == WHY and understood.names == ["Clara Vane"]
    assert "left" in understood.variants["leave"]
    assert ("clara",) in understood.groups and ("vane",) in understood.groups
    assert understood.forms[0] == "Why did Clara Vane leave the lodge?"
    declarative = understood.forms[1].split()
    assert {"Clara", "Vane", "leave", "left", "because"} <= set(declarative)
    assert set(CUES[WHY][:4]) <= set(declarative)


def _padded(*sentences: str) -> str:
    """A paragraph long enough to be a passage of its own (about 60 words)."""
    return " ".join([*sentences, FILLER[0], FILLER[1], FILLER[2]])


def test_the_passage_about_the_character_asked_of_ranks_first(tmp_path: Path, monkeypatch) -> None:
    """Two passages say the same words; the one right after Clara Vane is named is about her."""
    chapters = [
        prose_chapter(1, [_padded("The gardener hid the letter behind the tall clock in the hall.")]),
        Chapter(
            "Chapter 2",
            [
                _padded("Clara Vane came in out of the rain and shook the water from her coat."),
                _padded("She hid the letter behind the tall clock in the hall, where nobody looked."),
                "So ended chapter 2 of the story.",
            ],
        ),
    ]
    book = library.add_book(make_epub(tmp_path / "letter.epub", BookSpec(chapters=chapters)))
    library.set_progress(book.id, "end")
    question = "Where did Clara Vane hide the letter?"
    hits = search.search_book(book.id, question, k=5).hits
    order = [h.text.startswith("She hid the letter") or "gardener" in h.text for h in hits]
    she = next(i for i, h in enumerate(hits) if h.text.startswith("She hid the letter"))
    gardener = next(h for h in hits if "gardener" in h.text)
    assert she < hits.index(gardener) and she <= 1 and order.count(True) == 2
    # without the entity boost and the neighbour's share, the words alone cannot tell them apart
    monkeypatch.setattr(boosts, "ENTITY_BOOST", 0.0)
    monkeypatch.setattr(search, "NEIGHBOUR_WEIGHT", 0.0)
    plain = search.search_book(book.id, question, k=5).hits
    she = next(h for h in plain if h.text.startswith("She hid the letter"))
    assert she.score <= next(h for h in plain if h.passage_id == gardener.passage_id).score


def _answer_book(tmp_path: Path, name: str, answer_chapter: int | None) -> library.Book:
    """Six chapters of prose; the answer, if any, in `answer_chapter`; a loose match in 6."""
    answer = "Mrs. Edith Marlow buried the emerald brooch beneath the sundial at Thornfield."
    loose = "A sundial stood in the rose garden, its brass face green with age."
    chapters = []
    for n in range(1, 7):
        extra = [answer] if n == answer_chapter else []
        extra += [loose] if n == 6 else []
        chapters.append(prose_chapter(n, extra))
    return library.add_book(make_epub(tmp_path / name, BookSpec(title=name, chapters=chapters)))


QUESTION = "Who buried the emerald brooch beneath the sundial?"


def test_not_reached_needs_a_strong_match_past_the_cap_and_never_says_where(tmp_path: Path) -> None:
    near = _answer_book(tmp_path, "near.epub", 4)
    far = _answer_book(tmp_path, "far.epub", 6)
    absent = _answer_book(tmp_path, "absent.epub", None)
    for book in (near, far, absent):
        library.set_progress(book.id, 3)
    said = {b.id: search.search_book(b.id, QUESTION) for b in (near, far, absent)}
    assert said[near.id].verdict == said[far.id].verdict == search.NOT_REACHED
    # a sundial in the rose garden past the cap is a loose match, not an answer ahead
    assert said[absent.id].verdict == search.NOT_IN_BOOK
    # chapter 4 or chapter 6: the reply is the same, byte for byte, but for the book's id
    assert said[near.id].hits == said[far.id].hits == []
    shown = [json.dumps({**said[b.id].as_dict(), "books": []}, sort_keys=True) for b in (near, far)]
    assert shown[0] == shown[1]
    library.set_progress(near.id, 4)
    found = search.search_book(near.id, QUESTION)
    assert found.verdict == search.FOUND and "emerald brooch" in found.hits[0].text


def test_the_probe_threshold_is_stricter_than_the_one_for_what_is_read() -> None:
    assert search.AHEAD_THRESHOLD > search.SEEN_THRESHOLD


def test_with_the_hint_off_both_verdicts_are_byte_identical(tmp_path: Path) -> None:
    ahead = _answer_book(tmp_path, "ahead.epub", 5)
    absent = _answer_book(tmp_path, "nowhere.epub", None)
    for book in (ahead, absent):
        library.set_progress(book.id, 3)
    update_settings({"books": {"spoiler_hint": False}})
    replies = [search.search_book(b.id, QUESTION).as_dict() for b in (ahead, absent)]
    assert replies[0]["verdict"] == search.NOT_ANSWERED
    assert json.dumps({**replies[0], "books": []}) == json.dumps({**replies[1], "books": []})


def test_nothing_past_the_cap_is_ranked(tmp_path: Path) -> None:
    book = _answer_book(tmp_path, "capped.epub", 5)
    for chapter in range(1, 7):
        library.set_progress(book.id, chapter)
        for q in (QUESTION, "Where is the sundial?", "Why did Penrose walk out alone?"):
            result = search.search_book(book.id, q, k=50)
            assert all(h.chapter <= chapter for h in result.hits)
