"""Hybrid search: fused rankings, the relevance floor, and the three verdicts."""

from __future__ import annotations

from lore.books import library, search
from lore.core.config import update_settings

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
    assert all(h.coverage >= search.COVERAGE_FLOOR or h.cosine >= result.floor for h in result.hits)


def test_the_relevance_floor_is_per_embedder_and_configurable(mystery: library.Book) -> None:
    library.set_progress(mystery.id, "end")
    assert search.search_book(mystery.id, "the lamps of the submarine").verdict == search.NOT_IN_BOOK
    update_settings({"books": {"relevance_floor": {"hash-ngram-v1": 0.05}}})
    assert search.relevance_floor("hash-ngram-v1") == 0.05
    loose = search.search_book(mystery.id, "the lamps of the submarine")
    assert loose.verdict == search.FOUND and all(h.cosine >= 0.05 for h in loose.hits)
    assert search.relevance_floor("some-other-model") == search.DEFAULT_FLOOR


def test_question_words_are_not_search_terms() -> None:
    assert search.content_terms("Who is the murderer of Enoch Drebber?") == ["murderer", "enoch", "drebber"]
    assert search.content_terms("What? Who? Why?") == []
