"""A question that names a story of a collection ("in The Grey Glove, ...") is searched there only,
under the reader's cap: the same scene in another story does not answer it, and a named story not
yet reached says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.books import library, search
from lore.books.retrieve.story import named_story, title_words, without
from lore.books.store.records import ChapterInfo
from support.books import BookSpec, Chapter, make_epub, prose_chapter

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

STORIES = {
    "I. THE SILVER TEAPOT": "The client offered Holmes a fee of ten pounds for the silver teapot.",
    "II. THE GREY GLOVE": "The client offered Holmes a fee of fifty pounds to find the grey glove.",
    "III. THE ADVENTURE OF THE RED LAMP": "The client offered Holmes a fee of ninety pounds for the lamp.",
}


def _collection(tmp_path: Path) -> library.Book:
    chapters = [
        Chapter(title, prose_chapter(n, [line]).paragraphs)
        for n, (title, line) in enumerate(STORIES.items(), start=1)
    ]
    return library.add_book(make_epub(tmp_path / "stories.epub", BookSpec("Stories", chapters=chapters)))


def test_a_named_story_is_the_only_place_searched(tmp_path: Path) -> None:
    book = _collection(tmp_path)
    library.set_progress(book.id, "end")
    plain = search.search_book(book.id, "What fee did the client offer Holmes?", k=10)
    assert {h.chapter for h in plain.hits} == {1, 2, 3}  # the same scene in every story
    for question, chapter, pounds in (
        ("In The Grey Glove, what fee did the client offer Holmes?", 2, "fifty"),
        ("What fee did the client offer Holmes in The Red Lamp?", 3, "ninety"),
    ):
        found = search.search_book(book.id, question, k=10)
        assert found.verdict == search.FOUND and found.hits[0].chapter == chapter
        assert pounds in found.hits[0].text and {h.chapter for h in found.hits} == {chapter}


def test_a_named_story_past_the_cap_is_not_reached_and_shows_nothing(tmp_path: Path) -> None:
    book = _collection(tmp_path)
    library.set_progress(book.id, 2)
    early = search.search_book(book.id, "In The Red Lamp, what fee did the client offer Holmes?")
    assert (early.verdict, early.hits) == (search.NOT_REACHED, [])
    library.set_progress(book.id, 3)
    assert "ninety" in search.search_book(book.id, "In The Red Lamp, what fee was offered?").hits[0].text


def test_a_story_is_named_by_its_title_as_a_title_is_written() -> None:
    outline = {
        1: [
            ChapterInfo(1, "I. MR. SHERLOCK HOLMES", 10, 1),
            ChapterInfo(2, "IX. THE ADVENTURE OF THE ENGINEER’S THUMB", 10, 1),
            ChapterInfo(3, "CONCLUSION", 10, 1),
        ]
    }
    assert title_words("IX. THE ADVENTURE OF THE ENGINEER’S THUMB") == ["engineer's", "thumb"]
    story = named_story("Whom does Watson bring to Holmes in The Engineer's Thumb?", outline)
    assert story is not None and (story.book_id, story.chapter) == (1, 2)
    assert without("Whom does Watson bring to Holmes in The Engineer's Thumb?", story) == (
        "Whom does Watson bring to Holmes?"
    )
    assert named_story("How did the man in the engineer's thumb story lose it?", outline) is None
    assert named_story("What did Watson think of Mr. Sherlock Holmes?", outline) is None  # no "in"
    assert named_story("What happens in the conclusion?", outline) is None  # one word: too loose
