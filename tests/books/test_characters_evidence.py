"""Characters a reader recognises, by the evidence the text gives: a name seen in one passage (or,
saying nothing of what it is, in two) is not listed among the characters unless every name is
asked for; an honorific on its own ("the Duchess") says a person; a plural that is a common word
in a title ("the Times") is no group; "Islands" ends a place's name. Each on a small text and on
the real shared books."""

from __future__ import annotations

from lore.books import entities, library
from lore.books.names.groups import extract_names

FILLER = "The rain fell on the grey roofs of the town while the carts went slowly down the hill. " * 4


def _cues(chapters: list[str]) -> dict[str, set[str]]:
    """Each name's cues: what the words around its mentions say it is (its kind's votes)."""
    return {e.name: {m.cue for m in e.mentions} for e in extract_names(chapters)}


def _at(shared, file: str, cap: int, every: bool = False, limit: int = 20) -> list[entities.EntitySummary]:
    folder, lib = shared
    book = lib.book(folder, file)
    library.set_progress(book.id, cap, store=lib.store)
    _, found = entities.characters(book.id, limit=limit, every=every, store=lib.store)
    return found


def test_a_name_needs_passages_to_be_listed(tmp_path) -> None:
    paragraphs = [
        f"Mr. Penrose walked to the gate. {FILLER}",
        f"Mr. Penrose came back, and spoke of Latitude and of Hawkins. {FILLER}",
        f"Hawkins waited by the wall. {FILLER}",
        f"Then Hawkins left. {FILLER}",
    ]
    book_file = tmp_path / "evidence.txt"
    book_file.write_text("THE EVIDENCE\n\nCHAPTER 1\n\n" + "\n\n".join(paragraphs))
    book = library.add_book(book_file)
    library.set_progress(book.id, 1)
    listed = {e.name: e for e in entities.characters(book.id)[1]}
    every = {e.name for e in entities.characters(book.id, every=True)[1]}
    # a titled name in two passages; an untitled one in three; a word capitalised once is not
    assert set(listed) == {"Mr. Penrose", "Hawkins"}
    assert listed["Mr. Penrose"].passages == 2 and listed["Hawkins"].passages == 3
    assert "Latitude" in every


def test_an_honorific_on_its_own_says_a_person() -> None:
    text = "The Duchess was in the kitchen. Alice looked at the Duchess, and the Duchess sneezed."
    assert _cues([text])["Duchess"] == {"person"}


def test_a_plural_common_word_in_a_title_is_no_group() -> None:
    text = (
        "At times he read. He had read it three times. He took up the Times and read the Times "
        "again. The Stapleton house was near; Stapleton was there, and the Stapletons dined."
    )
    found = _cues([text])
    assert "Times" not in found
    assert found["Stapletons"] == {"group"}


def test_islands_end_a_places_name() -> None:
    text = "He was sent to the Andaman Islands. Life in the Andaman Islands was hard."
    found = extract_names([text])
    assert [(e.name, e.kind) for e in found] == [("Andaman Islands", "place")]


def test_shared_alice_early_lists_only_names_with_evidence(shared) -> None:
    found = _at(shared, "alice-pg11.epub", 4)
    names = {e.name for e in found}
    # the history lesson and the geography of chapters 2 and 3 are words, not characters
    assert {"Latitude", "Longitude", "Morcar", "Mercia", "Northumbria", "Conqueror"}.isdisjoint(names)
    assert {"Alice", "White Rabbit", "Mouse", "Dodo", "Lory", "Dinah"} <= names
    assert all(e.passages >= 2 for e in found) and len(found) < 20
    assert {"Latitude", "Morcar"} <= {e.name for e in _at(shared, "alice-pg11.epub", 4, every=True)}


def test_shared_newspaper_is_no_group(shared) -> None:
    for cap in (4, 12):
        sign = {e.name: e for e in _at(shared, "the-sign-of-the-four.epub", cap, every=True)}
        assert "Times" not in sign
    hound = {e.name: e for e in _at(shared, "the-hound-of-the-baskervilles.epub", 10)}
    assert "Times" not in hound and hound["Baskervilles"].kind == "group"


def test_shared_andaman_islands_are_a_place(shared) -> None:
    sign = {e.name: e for e in _at(shared, "the-sign-of-the-four.epub", 12, limit=60)}
    assert sign["Andaman Islands"].kind == "place"
