"""The no-model answer names the answer: whole sentences of the kind asked for, best first.

A generated book holds, in the same chapters, a sentence of each answer kind beside sentences
that only repeat the question's words; the shared books hold the real cases a reader met: a
name with an initial ("Enoch J. Drebber"), a chapter heading just before the answer, and a
question with its speaker ("“...?” asked Sherlock Holmes.").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.books import library
from lore.books.ask import ask
from lore.books.ask.sentences import sentences_of
from support.books import BookSpec, Chapter, make_epub, prose_chapter

SCARLET = "a-study-in-scarlet.epub"
ALICE = "alice-pg11.epub"

WHERE = "The colonel's will was kept in the oak desk in the library at Ashgrove Hall."
WHEN = "The colonel's will was read at nine o'clock on the morning of the funeral."
WHY = "Martha burned the letters because she feared the scandal would ruin her brother."
WHO = "It was Doctor Felix Grant who forced the locked cabinet, late in the evening."
HOW = "Martha opened the strongbox with a hairpin borrowed from the cook."
ECHOES = [
    "Everyone in the house talked about the colonel's will for days.",
    "Nobody spoke of the letters Martha burned, not even the vicar.",
    "The locked cabinet stood in the corner, and the dust lay thick upon it.",
    "The strongbox sat beside the bed, heavy and black, and Martha opened it at last.",
]


@pytest.fixture
def household(tmp_path: Path) -> library.Book:
    """Five chapters; the answers and their echoes spread over chapters 2 to 4."""
    spec = BookSpec(
        title="The Ashgrove Papers",
        chapters=[
            prose_chapter(1),
            prose_chapter(2, [ECHOES[0], WHERE, ECHOES[1]]),
            prose_chapter(3, [WHEN, ECHOES[2], WHY]),
            prose_chapter(4, [ECHOES[3], WHO, HOW]),
            prose_chapter(5),
        ],
    )
    book = library.add_book(make_epub(tmp_path / "ashgrove.epub", spec))
    return library.set_progress(book.id, "end")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where was the colonel's will kept?", WHERE),
        ("When was the colonel's will read?", WHEN),
        ("Why did Martha burn the letters?", WHY),
        ("Who forced the locked cabinet?", WHO),
        ("How did Martha open the strongbox?", HOW),
    ],
)
def test_each_question_kind_is_answered_by_a_sentence_of_that_kind(
    household: library.Book, question: str, expected: str
) -> None:
    answer = ask(household.id, None, question, use_model=False)
    assert answer.verdict == "found" and answer.mode == "extractive"
    assert answer.sentences[0].text == expected  # best first, not in story order
    assert answer.sentences[0].citations[0].quote == expected
    assert not any("weak match" in n for n in answer.notes)


def test_one_sentence_when_one_answers(household: library.Book) -> None:
    answer = ask(household.id, None, "Why did Martha burn the letters?", use_model=False)
    assert [s.text for s in answer.sentences] == [WHY]


def test_a_heading_is_never_part_of_a_sentence(tmp_path: Path) -> None:
    opening = "The ladies of Longbourn soon waited on those of Netherfield at the ball."
    spec = BookSpec(
        chapters=[prose_chapter(1), Chapter("A Visit to Netherfield", [opening, "They stayed an hour."])]
    )
    book = library.set_progress(library.add_book(make_epub(tmp_path / "visit.epub", spec)).id, "end")
    answer = ask(book.id, None, "Who waited on the ladies of Netherfield?", use_model=False)
    assert answer.sentences[0].text == opening


def test_initials_titles_and_speakers_stay_inside_their_sentence() -> None:
    text = (
        "CHAPTER III.\nThe Lauriston Garden Mystery\n\n"
        "He found cards bearing the name of “Enoch J. Drebber, Cleveland, Ohio, U.S.A.” "
        "There had been no robbery. Mr. Lestrade lived at No. 3 St. James Street.\n\n"
        "“What is it?” asked Sherlock Holmes. The end of a passage that stops"
    )
    assert sentences_of(text) == [
        "He found cards bearing the name of “Enoch J. Drebber, Cleveland, Ohio, U.S.A.”",
        "There had been no robbery.",
        "Mr. Lestrade lived at No. 3 St. James Street.",
        "“What is it?” asked Sherlock Holmes.",
    ]


def test_the_name_with_an_initial_is_shown_whole(shared) -> None:
    folder, lib = shared
    book = lib.book(folder, SCARLET)
    question = "What name was on the cards in the dead man's pocket?"
    answer = ask(book.id, None, question, position=(3, None), use_model=False, store=lib.store)
    best = answer.sentences[0].text
    assert "Enoch J. Drebber, Cleveland, Ohio, U.S.A." in best and best.startswith("He found the door open")


def test_a_real_chapter_heading_is_not_glued_to_the_answer(shared) -> None:
    folder, lib = shared
    book = lib.book(folder, ALICE)
    question = "Who is asleep between the March Hare and the Hatter at the tea-party?"
    answer = ask(book.id, None, question, position=(7, None), use_model=False, store=lib.store)
    best = answer.sentences[0].text
    assert best.startswith("There was a table set out under a tree") and "Dormouse" in best
    assert all("Mad Tea-Party" not in s.text and "CHAPTER" not in s.text for s in answer.sentences)


def test_no_sentence_of_a_real_book_starts_mid_way(shared) -> None:
    """A question and its speaker are one sentence: "asked Sherlock Holmes." is never one alone."""
    folder, lib = shared
    book = lib.book(folder, SCARLET)
    for p in lib.store and library.open_books(lib.store).chapter_passages(book.id):
        for s in sentences_of(p.text):
            assert not s.lstrip("“‘\"'([—- ")[:1].islower(), s
            assert not s.endswith((" J.", " Mr.", " Dr.", " St.")), s


@pytest.mark.parametrize(
    ("chapter", "question", "verdict"),
    [
        (2, "Who forced the locked cabinet?", "not_reached"),  # answered in chapter 4
        (2, "How did Martha open the strongbox?", "not_reached"),
        (2, "Which submarine sank off Gibraltar?", "not_in_book"),  # nothing in the book relates
        ("end", "Which submarine sank off Gibraltar?", "not_in_book"),
    ],
)
def test_not_reached_where_a_strong_match_lies_ahead_and_doesnt_say_only_where_nothing_relates(
    household: library.Book, chapter: int | str, question: str, verdict: str
) -> None:
    library.set_progress(household.id, chapter)
    answer = ask(household.id, None, question, use_model=False)
    assert answer.verdict == verdict and answer.sentences == []
    assert "Felix" not in answer.text() and "hairpin" not in answer.text()


def test_a_loose_match_already_read_is_shown_and_said_to_be_weak(household: library.Book) -> None:
    """Two of the question's words are in the book, its point (a colour) is not: the closest
    sentences are shown, not "the book doesn't say", and the answer says the match is weak."""
    answer = ask(household.id, None, "What colour were the colonel's dogs?", use_model=False)
    assert answer.verdict == "found" and answer.sentences
    assert any("weak match" in n for n in answer.notes)
    assert "weak match" in answer.text()


@pytest.mark.parametrize(
    ("book_file", "chapter", "question", "answer"),
    [
        # the answer is the sentence after the one that repeats the question's words
        (SCARLET, 1, "What struck Watson at the battle of Maiwand?", "Jezail bullet"),
        # "who": someone the question does not name, beside the question's other words
        (
            "pride-and-prejudice-pg1342.epub",
            1,
            "Who brings Mrs. Bennet the news that Netherfield Park is let?",
            "Mrs. Long",
        ),
        (
            SCARLET,
            4,
            "Who was the dead man found in the empty house off the Brixton Road?",
            "Enoch J. Drebber",
        ),
        # "what is the name of": a name the question does not hold
        (
            "the-sign-of-the-four.epub",
            9,
            "What is the name of the steam launch Holmes is hunting for?",
            "Aurora",
        ),
        # "whose": someone's
        (
            "the-hound-of-the-baskervilles.epub",
            12,
            "Whose clothes was the dead convict wearing when he fell?",
            "Sir Henry",
        ),
        # a name the question does not hold, in a passage search ranked past the first five
        (
            SCARLET,
            9,
            "What name does John Ferrier give the little girl rescued with him in the desert?",
            "Lucy Ferrier",
        ),
    ],
)
def test_the_shown_sentences_name_the_answer_in_a_real_book(
    shared, book_file: str, chapter: int, question: str, answer: str
) -> None:
    folder, lib = shared
    book = lib.book(folder, book_file)
    got = ask(book.id, None, question, position=(chapter, None), use_model=False, store=lib.store)
    assert got.verdict == "found" and got.sentences
    assert any(answer in s.text for s in got.sentences), [s.text for s in got.sentences]
    for s in got.sentences:  # each a whole sentence of the passage it cites
        assert s.citations and s.citations[0].quote == s.text
