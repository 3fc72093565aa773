"""Characters a reader recognises: one entry per person, no names across places, kinds from
the words around a name; and the labelled list the benchmark scores against matches the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.books import entities, library
from lore.books.names.evidence import name_pattern
from lore.books.names.groups import extract_names, name_index
from lore.books.read.readers import read_book

LABELS = Path(__file__).resolve().parents[1] / "data" / "book_characters.json"


def _names(chapters: list[str]) -> dict[str, set[str]]:
    return {e.name: {m.form for m in e.mentions} for e in extract_names(chapters)}


def test_no_name_runs_across_a_place() -> None:
    text = (
        "They lived in London in May. She stayed in London all winter. Lydia wrote often. "
        "Mr. Denny came back from London Lydia came to ask about him."
    )
    found = _names([text])
    assert "London Lydia" not in found and "Lydia" in found and "London" in found


def test_a_sentence_ending_inside_a_quotation_opens_the_next() -> None:
    text = "Alice smiled at him. “You shall live like a princess.” Poor Alice was frightened. Alice ran."
    assert "Poor Alice" not in _names([text])


def test_a_womans_title_keeps_its_class() -> None:
    text = (
        "Lady Anne Darcy died young. Miss Darcy played the piano. Mr. Darcy smiled. "
        "Years later Mrs. Darcy walked in the park with Miss Darcy."
    )
    found = _names([text])
    assert "Anne Darcy" in found and found["Anne Darcy"] == {"Anne Darcy"}


def test_a_mr_joins_a_full_name_the_pronouns_call_a_man() -> None:
    text = (
        "Tobias Gregson came in; he was tall. Mr. Gregson sat. Gregson laughed, and Gregson left. "
        "Lucy Ferrier sang as she worked. Mr. Ferrier did not hear her."
    )
    found = _names([text])
    assert found["Tobias Gregson"] == {"Tobias Gregson", "Mr. Gregson", "Gregson"}
    assert "Mr. Ferrier" in found  # her pronouns: the Mr. is someone else


def test_place_and_numbered_nouns_are_not_names() -> None:
    found = _names(
        ["We drove to Number 3 and then to the Hall. Baskerville Hall was dark. We left the Hall."]
    )
    assert "Number" not in found and "Hall" not in found and "Baskerville Hall" in found


def _top(book: library.Book, store, chapter: int) -> dict[str, str]:
    library.set_progress(book.id, chapter, store=store)
    _, found = entities.characters(book.id, limit=20, store=store)
    return {e.name: e.kind for e in found}


def test_shared_books_list_each_person_once(shared) -> None:
    folder, lib = shared
    scarlet = lib.book(folder, "a-study-in-scarlet.epub")
    top = _top(scarlet, lib.store, scarlet.chapters)
    gregsons = [name for name in top if "Gregson" in name]
    assert len(gregsons) == 1 and top[gregsons[0]] == "person"
    assert "Poor Alice" not in top and top["London"] == "place"
    pride = lib.book(folder, "pride-and-prejudice-pg1342.epub")
    top = _top(pride, lib.store, pride.chapters)
    assert "London Lydia" not in top and "Anne Darcy" not in top
    assert not {"Wickham", "Mr. Wickham"} & set(top) and top["George Wickham"] == "person"
    assert not {"Darcy", "Mr. Darcy"} & set(top) and top["Fitzwilliam Darcy"] == "person"
    assert {top["Netherfield"], top["Meryton"]} == {"place"}
    hound = lib.book(folder, "the-hound-of-the-baskervilles.epub")
    _, met = entities.characters(hound.id, limit=200, store=lib.store)
    assert "Hall" not in {e.name for e in met}


def test_a_kind_is_voted_under_the_cap(shared) -> None:
    folder, lib = shared
    pride = lib.book(folder, "pride-and-prejudice-pg1342.epub")
    kinds = [_top(pride, lib.store, c).get("Netherfield") for c in (1, pride.chapters)]
    assert kinds[-1] == "place" and kinds[0] in (None, "name", "place")


def test_the_labelled_characters_match_the_text(shared_data: Path) -> None:
    labels = json.loads(LABELS.read_text(encoding="utf-8"))
    assert {b["split"] for b in labels["books"]} == {"dev", "held_out"}
    for book in labels["books"]:
        chapters = [c.text for c in read_book(shared_data / "books" / book["file"]).chapters]
        assert len(chapters) == book["chapters"], book["title"]
        assert len(book["entities"]) >= 20
        for e in book["entities"]:
            assert e["kind"] in ("person", "place", "group"), e
            patterns = [name_pattern(n) for n in [e["name"], *e["aliases"]]]
            firsts = [
                next((i for i, text in enumerate(chapters, 1) if p.search(text)), None)
                for p in patterns
                if p is not None
            ]
            seen = [f for f in firsts if f is not None]
            assert seen, f"{book['title']}: {e['name']} is not in the text"
            assert min(seen) == e["first_chapter"], f"{book['title']}: {e['name']}"


@pytest.mark.parametrize("missing", ["Poor Alice", "Number"])
def test_scarlet_common_words_are_not_characters(shared, missing: str) -> None:
    folder, lib = shared
    scarlet = lib.book(folder, "a-study-in-scarlet.epub")
    library.set_progress(scarlet.id, "end", store=lib.store)
    _, met = entities.characters(scarlet.id, limit=500, store=lib.store)
    assert missing not in {e.name for e in met}


def test_two_people_with_one_surname_stay_two() -> None:
    text = (
        "Arthur Charpentier was a sub-lieutenant in the navy; he came home on leave. "
        "Madame Charpentier kept the boarding-house, and she spoke of him. "
        "Mrs. Charpentier wept, and Charpentier said nothing at all. "
        "Her sister Mary read books; then her sister Mary played the piano, and poor Mary sighed. "
        "Years later Mary King inherited ten thousand pounds, and Miss King went to Liverpool."
    )
    found = _names([text])
    assert {"Madame Charpentier", "Mrs. Charpentier"}.isdisjoint(found["Arthur Charpentier"])
    # a first name long in use before anyone of that family was named is someone else
    assert "Mary" in found and found["Mary"] == {"Mary"}
    assert found["Mary King"] == {"Mary King", "Miss King"}


def test_nicknames_join_the_given_name() -> None:
    text = (
        "Mr. Bennet had five daughters. Elizabeth Bennet laughed at the ball. "
        "Her father said that Lizzy was clever. Then Miss Eliza Bennet walked to Netherfield, "
        "and Eliza was tired, and her sister Lizzy smiled."
    )
    found = _names([text])
    assert {"Lizzy", "Eliza", "Eliza Bennet"} <= found["Elizabeth Bennet"]


def test_miss_bennet_is_resolved_by_her_passage() -> None:
    text = (
        "Jane Bennet and Elizabeth Bennet were sisters; Jane was the elder. "
        "Jane sat by the fire and sewed a long seam all the evening. "
        "Miss Bennet smiled at the work. "
        "Elizabeth walked to the window, and Elizabeth looked out across the park. "
        "Lady Catherine came in and said to Elizabeth, “Miss Bennet, do you know who I am?” "
        "Miss Bennet and Elizabeth both rose."
    )
    means = [m.means for m in name_index([text])[0] if m.form == "Miss Bennet"]
    # by who the passage is about, by who is spoken to, and never someone named beside her
    assert means == ["Jane Bennet", "Elizabeth Bennet", "Jane Bennet"]


def test_runs_of_initials_are_not_names() -> None:
    text = "He signed it M. R. C. S. at the foot. Later J. H. wrote back, and Holmes read it; then Holmes laughed."
    found = _names([text])
    assert not [name for name in found if all(len(w.rstrip(".")) == 1 for w in name.split())]
    assert "Holmes" in found


def test_a_name_met_in_many_passages_outranks_one_repeated_in_a_single_passage(tmp_path) -> None:
    filler = "The rain fell on the grey roofs of the town while the carts went slowly down the hill. " * 4
    crowded = (
        "He told us of Hawkins, and of what Hawkins had said, and how Hawkins laughed, and that "
        "Hawkins drank, and then Hawkins slept, and Hawkins woke again at dawn. "
    )
    paragraphs = [crowded + filler] + [f"Mr. Penrose walked to the gate. {filler}" for _ in range(3)]
    book_file = tmp_path / "ranks.txt"
    book_file.write_text("THE RANKS\n\nCHAPTER 1\n\n" + "\n\n".join(paragraphs))
    book = library.add_book(book_file)
    library.set_progress(book.id, 1)
    _, found = entities.characters(book.id, every=True)  # Hawkins is in one passage only
    counts = {e.name: (e.mentions, e.passages) for e in found}
    assert counts["Hawkins"][0] > counts["Mr. Penrose"][0]  # said more often ...
    assert counts["Hawkins"][1] < counts["Mr. Penrose"][1]  # ... in fewer passages
    assert [e.name for e in found][:2] == ["Mr. Penrose", "Hawkins"]


def test_a_bare_surname_two_brothers_share_is_given_by_its_passage() -> None:
    text = (
        "Thaddeus Sholto met us at the door; he was a small man. "
        "Bartholomew Sholto lived at the old house, and he kept the treasure. "
        "Thaddeus Sholto led us in. Sholto poured the wine with a shaking hand. "
        "Then we drove to the house where Bartholomew Sholto lay, and he was dead. "
        "Sholto had locked his door before midnight."
    )
    mentions, _ = name_index([text])
    means = [m.means for m in mentions if m.form == "Sholto"]
    assert means == ["Thaddeus Sholto", "Bartholomew Sholto"]
    found = _names([text])
    assert found["Thaddeus Sholto"] >= {"Sholto"} and found["Bartholomew Sholto"] >= {"Sholto"}
