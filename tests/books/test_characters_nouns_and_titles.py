"""Characters a reader recognises, cause by cause: words the text uses as common nouns are not
characters ("an American", "your Majesty", "Indian" beside "India"), a title before a given name
joins that person ("Brother Bartholomew", "Mr. Thaddeus"), a surname keeps its particle ("St.
Clair"), a given name is shown without the title a servant adds ("Alice"), a numbered chapter's
heading is not read for names, and "said the Hatter" says a person. Each on a small text and on
the real shared books."""

from __future__ import annotations

from lore.books import entities, library
from lore.books.names.groups import extract_names


def _names(chapters: list[str]) -> dict[str, set[str]]:
    return {e.name: {m.form for m in e.mentions} for e in extract_names(chapters)}


def _listed(shared, file: str, limit: int = 60) -> dict[str, entities.EntitySummary]:
    folder, lib = shared
    book = lib.book(folder, file)
    library.set_progress(book.id, book.chapters, store=lib.store)
    _, found = entities.characters(book.id, limit=limit, store=lib.store)
    return {e.name: e for e in found}


def test_words_used_as_common_nouns_are_not_names() -> None:
    text = (
        "He had served in India for years. Back from India, he met an American in the street, "
        "an American with a cane. The American laughed. An Indian servant opened the door. "
        "“Your Majesty is kind,” said Holmes. “Your Majesty must decide,” said Holmes again."
    )
    found = _names([text])
    assert {"American", "Indian", "Majesty"}.isdisjoint(found)
    assert "India" in found and "Holmes" in found


def test_a_name_introduced_with_an_article_stays_a_name() -> None:
    text = (
        "They came upon a Gryphon, lying fast asleep. The Gryphon sat up. "
        "“What fun!” said the Gryphon. The Gryphon went on, and the Gryphon laughed."
    )
    assert "Gryphon" in _names([text])


def test_a_title_before_a_given_name_joins_that_person() -> None:
    text = (
        "Thaddeus Sholto met us; he was small. Bartholomew Sholto, his twin, lived at the house. "
        "“Brother Bartholomew is angry,” he said. Mr. Thaddeus led us up the stairs."
    )
    found = _names([text])
    assert "Brother Bartholomew" in found["Bartholomew Sholto"]
    assert "Mr. Thaddeus" in found["Thaddeus Sholto"]


def test_a_surname_keeps_its_particle() -> None:
    text = (
        "Mr. Neville St. Clair lived at Lee; he was a good husband. "
        "Mr. St. Clair went to town. Mrs. St. Clair waited for him, and St. Clair did not come."
    )
    found = _names([text])
    assert {"Mr. St. Clair", "St. Clair"} <= found["Neville St. Clair"]
    assert "Mrs. St. Clair" not in found["Neville St. Clair"]


def test_a_numbered_chapters_heading_is_not_read_for_names() -> None:
    text = "CHAPTER IV.\nThe Rabbit Sends in a Little Bill\n\nIt was the Rabbit. Here, Bill! said the Rabbit."
    assert "Little Bill" not in _names([text])


def test_shared_books_drop_common_nouns(shared) -> None:
    adventures = _listed(shared, "adventures-of-sherlock-holmes-pg1661.epub", 200)
    assert {"Majesty", "American"}.isdisjoint(adventures)
    sign = _listed(shared, "the-sign-of-the-four.epub", 200)
    assert "Sahib" not in sign and sign["India"].kind == "place"
    # "the Indian" before the text has said "in India" is still a word of its own, met rarely
    assert "Indian" not in list(sign)[:20]


def test_shared_books_join_titles_before_given_names(shared) -> None:
    sign = _listed(shared, "the-sign-of-the-four.epub", 200)
    assert {"Brother Bartholomew", "Mr. Thaddeus", "Bartholomew"}.isdisjoint(sign)
    assert "Brother Bartholomew" in sign["Bartholomew Sholto"].aliases
    assert "Mr. Thaddeus" in sign["Thaddeus Sholto"].aliases


def test_shared_books_keep_a_saints_particle(shared) -> None:
    adventures = _listed(shared, "adventures-of-sherlock-holmes-pg1661.epub", 200)
    assert "Neville St. Clair" in adventures and "St Clair" not in adventures
    assert {"St. Clair", "Mr. St. Clair"} & set(adventures["Neville St. Clair"].aliases)
    assert "Robert St. Simon" in adventures and "St. Simon" not in adventures


def test_shared_alice_is_alice_and_her_creatures_are_people(shared) -> None:
    alice = _listed(shared, "alice-pg11.epub")
    assert "Alice" in alice and "Miss Alice" not in alice and "Little Bill" not in alice
    assert {alice[n].kind for n in ("Caterpillar", "Hatter", "Dormouse", "Duchess")} == {"person"}
