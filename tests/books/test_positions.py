"""A position as fine as a reader's: a share of the words, or the words just read, as a passage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.books import entities, library
from lore.books.names.groups import name_index
from lore.books.read.parsed import count_words
from lore.cli.app import app
from lore.core.errors import InvalidInput, NotFound
from support.books import make_epub, mystery_book

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

runner = CliRunner()


def _words_through(book: library.Book, chapter: int, passage: int) -> tuple[int, int]:
    """Words before the passage, and through it (counted from the stored text)."""
    db = library.open_books()
    texts = db.chapter_texts(book.id)
    before = through = 0
    for r in db.passage_spans(book.id):
        n = count_words(texts[r.chapter_seq - 1][r.start : r.end])
        if (r.chapter_seq, r.passage_seq) < (chapter, passage):
            before += n
        if (r.chapter_seq, r.passage_seq) <= (chapter, passage):
            through += n
    return before, through


@pytest.mark.parametrize("percent", [3, 25, 50, 80, 99.5])
def test_a_percent_is_the_passage_holding_that_word(mystery: library.Book, percent: float) -> None:
    book = library.set_progress_percent(mystery.id, percent)
    chapter, passage = book.position.chapter, book.position.passage
    assert passage is not None
    before, through = _words_through(book, chapter, passage)
    wanted = round(book.words * percent / 100)
    assert before < wanted <= through


def test_percent_ends(mystery: library.Book) -> None:
    assert library.set_progress_percent(mystery.id, 0).position.describe(5) == "not started"
    assert library.set_progress_percent(mystery.id, 100).position.describe(5) == "finished"
    with pytest.raises(InvalidInput):
        library.set_progress_percent(mystery.id, 101)


def test_words_just_read_set_the_passage_that_holds_them(mystery: library.Book) -> None:
    # typed with straight quotes, other case and spacing; the book has the words once
    book = library.set_progress_at(mystery.id, "clara VANE arrived  from\nParis")
    assert book.position.chapter == 3 and book.position.passage is not None
    names = entities.autocomplete(mystery.id, "Clara")
    assert names == ["Clara Vane"]  # the passage being read is visible
    assert entities.autocomplete(mystery.id, "Edith") == ["Edith Marlow"]


def test_words_are_matched_on_word_boundaries(mystery: library.Book) -> None:
    with pytest.raises(NotFound):
        library.set_progress_at(mystery.id, "lara Vane arrived")


def test_words_found_further_on_set_the_first_place_past_the_position(mystery: library.Book) -> None:
    # "Clara Vane" is in chapters 3, 4 and 5; nothing is read yet
    book = library.set_progress_at(mystery.id, "Clara Vane")
    assert book.position.chapter == 3 and book.position.passage is not None


def test_words_read_and_further_on_are_refused_saying_nothing_of_what_is_ahead(
    mystery: library.Book,
) -> None:
    library.set_progress(mystery.id, 3)
    with pytest.raises(InvalidInput) as err:
        library.set_progress_at(mystery.id, "Clara Vane")
    message = str(err.value)
    assert "further on" in message and "chapter 3" in message  # the place read may be named
    assert not any(f"chapter {n}" in message for n in (4, 5))  # never a place ahead
    assert "places" not in message  # nor how many
    position = library.get_book(mystery.id).position
    assert (position.chapter, position.passage) == (3, None)  # nothing recorded


def test_words_only_in_text_read_go_back_or_name_the_places(mystery: library.Book) -> None:
    library.set_progress(mystery.id, "end")
    assert library.set_progress_at(mystery.id, "single trunk").position.chapter == 3  # went back
    library.set_progress(mystery.id, "end")
    with pytest.raises(InvalidInput) as err:
        library.set_progress_at(mystery.id, "Clara Vane")
    message = str(err.value)
    assert "places you have read" in message and "chapter 5" in message  # all read: named
    assert "further on" not in message


def test_words_not_in_the_book_say_so(mystery: library.Book) -> None:
    with pytest.raises(NotFound):
        library.set_progress_at(mystery.id, "a zebra on the moor")


def test_the_cli_takes_percent_and_words(mystery: library.Book) -> None:
    out = runner.invoke(app, ["books", "progress", str(mystery.id), "--at", "single trunk", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["chapter"] == 3
    out = runner.invoke(app, ["books", "progress", str(mystery.id), "--at", "Clara Vane"])
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1  # read and further on
    out = runner.invoke(app, ["books", "progress", str(mystery.id), "--at", "no such words here at all"])
    assert out.exit_code == 3
    out = runner.invoke(app, ["books", "progress", str(mystery.id), "--percent", "50", "--json"])
    assert out.exit_code == 0 and json.loads(out.output)["passage"] is not None
    out = runner.invoke(app, ["books", "progress", str(mystery.id), "2", "--percent", "50"])
    assert out.exit_code == 2


def test_show_gives_no_size_or_title_of_chapters_not_reached(mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2, passage=1)
    _, outline = library.chapters(mystery.id)
    ahead = [c for c in outline if not c["reached"]]
    assert [c["chapter"] for c in ahead] == [3, 4, 5]
    assert all(c["title"] is None and c["words"] is None and c["passages"] is None for c in ahead)
    assert all(c["words"] and c["passages"] for c in outline if c["reached"])


def _ids_at(book_id: int, chapter: int) -> dict[str, int]:
    library.set_progress(book_id, chapter)
    _, found = entities.characters(book_id, limit=500)
    return {e.name: e.id for e in found}


def test_ids_do_not_count_the_names_ahead(tmp_path: Path) -> None:
    """Two readers at different caps see the same id for a name both know, and the ids one
    reader sees are ranks among names that reader has met: nothing counts names ahead. A second
    book's ids do not count the first book's names either."""
    first = library.add_book(make_epub(tmp_path / "one.epub"))
    early, late = _ids_at(first.id, 2), _ids_at(first.id, 5)
    assert early and all(late[name] == i for name, i in early.items())
    assert len(late) > len(early)
    forms_met = {m.form for m in name_index(library.open_books().chapter_texts(first.id)[:2])[0]}
    assert max(early.values()) <= len(forms_met)  # ranks among the names met, not all of them
    spec = mystery_book()
    spec.title = "The Vane Inheritance II"
    second = library.add_book(make_epub(tmp_path / "two.epub", spec))
    assert _ids_at(second.id, 3) == _ids_at(first.id, 3)  # same text, same ids, whatever came before
