"""Finding where the book's text first gives a name (for the model layer's names)."""

from __future__ import annotations

from lore.books.names.evidence import NameFinder, PassageRef, name_words

PASSAGES = [
    {"id": 11, "chapter_seq": 1, "passage_seq": 1, "text": "I hope the cabman comes. A veiled woman waited."},
    {
        "id": 12,
        "chapter_seq": 1,
        "passage_seq": 2,
        "text": "Penrose met O’Brien by the\nThornfield\u00a0Lodge.",
    },
    {"id": 21, "chapter_seq": 2, "passage_seq": 1, "text": "MR. JEFFERSON HOPE was there; Jean-Paul too."},
    {
        "id": 22,
        "chapter_seq": 2,
        "passage_seq": 2,
        "text": "Then Jefferson Hope spoke to Dr. John H. Watson.",
    },
]


def test_articles_and_honorifics_are_not_part_of_the_name() -> None:
    assert name_words("the veiled woman") == ["veiled", "woman"]
    assert name_words("Mr. Arthur Penrose") == ["Arthur", "Penrose"]
    assert name_words("The Colonel") == ["Colonel"]


def test_first_passage_giving_each_name() -> None:
    find = NameFinder([PassageRef(**p) for p in PASSAGES])
    assert find.first("the veiled woman") == (11, 1, 1)  # "A veiled woman"
    assert find.first("Mr. Penrose") == (12, 1, 2)
    assert find.first("O'Brien") == (12, 1, 2)  # a straight apostrophe finds a curly one
    assert find.first("Thornfield Lodge") == (12, 1, 2)  # across a line break and a no-break space
    assert find.first("Hope") == (21, 2, 1)  # not "I hope": capitals must be capitals (or all caps)
    assert find.first("Jefferson Hope") == (21, 2, 1)
    assert find.first("Jean Paul") == (21, 2, 1)
    assert find.first("John H. Watson") == (22, 2, 2)
    assert find.first("the Paris poisoner") is None
    assert find.first("Pen") is None  # whole words only
    assert find.first("woman waited Penrose") is None  # never across two passages
