"""`lore books ...` end to end through the Typer app: JSON everywhere, one-line errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lore.cli.app import app
from support.books import make_epub, mystery_book

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["books", *args])
    return result.exit_code, result.stdout, result.stderr


def _json(*args: str):
    code, out, err = _run(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_add_list_show_and_progress(mystery_epub: Path) -> None:
    added = _json("add", str(mystery_epub), "--series", "Vane Mysteries", "--series-index", "1")
    assert (added["title"], added["chapters"], added["series"]) == (
        "The Vane Inheritance",
        5,
        "Vane Mysteries",
    )
    assert added["position"]["label"] == "not started"
    again = _json("add", str(mystery_epub))
    assert again["already_present"] is True and again["id"] == added["id"]
    assert [b["title"] for b in _json("list")] == ["The Vane Inheritance"]

    assert _json("progress", "vane", "2")["label"] == "chapter 2 of 5"
    assert _json("progress", "vane")["chapter"] == 2
    assert _json("progress")[0]["label"] == "chapter 2 of 5"
    shown = _json("show", "vane")
    assert [c["title"] for c in shown["chapters"]][:3] == ["Chapter 1", "Chapter 2", None]

    code, out, _ = _run("show", "vane")
    assert code == 0 and "Chapter 2" in out and "(not reached)" in out and "Chapter 3" not in out
    code, out, _ = _run("list")
    assert code == 0 and "Vane" in out and "chapter 2" in out


def test_names_profile_graph_and_search_respect_the_position(mystery_epub: Path) -> None:
    book = _json("add", str(mystery_epub))
    ref = str(book["id"])
    _run("progress", ref, "2")
    names = {e["name"] for e in _json("characters", ref)["entities"]}
    assert "Arthur Penrose" in names and "Clara Vane" not in names
    assert _json("names", ref, "Cla") == []
    assert _json("profile", ref, "Penrose")["first_chapter"] == 1
    assert all(e["first_chapter"] <= 2 for e in _json("graph", ref)["edges"])
    hidden = _json("search", ref, "Who poisoned the colonel?")
    assert hidden["verdict"] == "not_reached" and hidden["hits"] == []
    code, out, _ = _run("search", ref, "Who poisoned the colonel?")
    assert code == 0 and "haven't reached" in out and "Clara" not in out

    _run("progress", ref, "end")
    found = _json("search", ref, "Who poisoned the colonel?")
    assert found["verdict"] == "found" and found["hits"][0]["chapter"] == 5
    assert _json("names", ref, "Cla") == ["Clara Vane"]
    code, out, _ = _run("characters", ref)
    assert code == 0 and "Clara Vane" in out


def test_errors_are_one_line_with_meaningful_exit_codes(tmp_path: Path, mystery_epub: Path) -> None:
    broken = tmp_path / "broken.epub"
    broken.write_bytes(b"PK\x03\x04 broken")
    code, _, err = _run("add", str(broken))
    assert code == 2 and "not a readable EPUB" in err and err.strip().count("\n") == 0
    code, _, err = _run("add", str(tmp_path))
    assert code == 2 and "is a folder" in err and err.strip().count("\n") == 0
    (tmp_path / "notes.docx").write_text("Some notes.\n\nNothing more.", encoding="utf-8")
    code, _, err = _run("add", str(tmp_path / "notes.docx"))
    assert code == 2 and "not a book Lore can read" in err and err.strip().count("\n") == 0
    assert _json("list") == []
    code, _, err = _run("show", "no such book")
    assert code == 3 and "no book matches" in err
    _json("add", str(mystery_epub))
    code, _, err = _run("progress", "vane", "99")
    assert code == 2 and "chapters 1 to 5" in err
    code, _, err = _run("profile", "vane", "Clara")
    assert code == 3 and "part of the book you have read" in err


def test_reindex_and_remove(mystery_epub: Path) -> None:
    book = _json("add", str(mystery_epub))
    again = _json("reindex", str(book["id"]))
    assert again["passages"] == book["passages"] and again["embedder"] == "hash-ngram-v1"
    assert _json("remove", "vane") == {"removed": book["id"], "title": "The Vane Inheritance"}
    assert _json("list") == []


def test_book_text_is_printed_as_text_not_markup(tmp_path: Path) -> None:
    """Brackets in a book are words: a bracketed verse keeps its brackets and `[/` cannot crash."""
    spec = mystery_book()
    spec.title = "The [bold]Vane[/bold] Papers [/"
    spec.chapters[0].title = "Chapter [1] [/i]"
    spec.chapters[0].paragraphs.insert(
        1,
        "[later editions continued as follows: the teapot sang "
        "to Penrose at dawn] and [/bold] closed the [red] verse.",
    )
    book = _json("add", str(make_epub(tmp_path / "brackets.epub", spec)))
    ref = str(book["id"])
    _run("progress", ref, "1")
    for args, expected in [
        (("add", str(tmp_path / "brackets.epub")), "The [bold]Vane[/bold] Papers [/"),
        (("list",), "[bold]Vane"),
        (("show", ref), "Chapter [1] [/i]"),
        (("search", ref, "teapot sang at dawn"), "[later editions continued as follows: the teapot sang"),
        (("search", ref, "teapot sang at dawn"), "[/bold] closed the [red] verse."),
        (("profile", ref, "Penrose"), "Penrose"),
        (("characters", ref), "[bold]Vane[/bold]"),
        (("progress", ref), "[bold]Vane[/bold]"),
    ]:
        code, out, err = _run(*args)
        assert code == 0, (args, err)
        assert expected in " ".join(out.split()), (args, out)


def test_alices_bracketed_verse_keeps_its_brackets(shared_data: Path) -> None:
    book = _json("add", str(shared_data / "books" / "alice-pg11.epub"))
    _run("progress", str(book["id"]), "end")
    code, out, err = _run("search", str(book["id"]), "later editions continued as follows", "-k", "2")
    assert code == 0, err
    assert "[later editions continued as follows" in out


def test_characters_count_mentions_and_passages_apart(tmp_path: Path) -> None:
    spec = mystery_book()
    spec.chapters[0].paragraphs.insert(
        1, "They called Hale, Hale and again Hale: the name rang out three times."
    )
    book = _json("add", str(make_epub(tmp_path / "hale.epub", spec)))
    _run("progress", str(book["id"]), "1")
    hale = next(e for e in _json("characters", str(book["id"]), "--all")["entities"] if e["name"] == "Hale")
    assert (hale["mentions"], hale["passages"]) == (3, 1)
    code, out, _ = _run("characters", str(book["id"]), "--all")
    assert code == 0 and "mentions" in out and "passages" in out
    row = next(line for line in out.splitlines() if "Hale" in line)
    code, out, _ = _run("characters", str(book["id"]))  # one passage is not enough to be listed
    assert code == 0 and "Hale" not in out
    assert [cell.strip() for cell in row.split("│")[3:5]] == ["3", "1"]


def test_a_series_is_named_by_a_unique_beginning(tmp_path: Path) -> None:
    for n, series in enumerate(["Vane Mysteries", "Vane Chronicles", "Holmes"]):
        spec = mystery_book()
        spec.title = f"The Vane Inheritance {n}"
        _json("add", str(make_epub(tmp_path / f"{n}.epub", spec)), "--series", series)
        _run("progress", str(n + 1), "end")
    for given in ("vane m", "VANE MYSTERIES", "hol"):
        found = _json("search", given, "Who poisoned the colonel?", "--series")
        assert found["verdict"] == "found", given
    code, out, _ = _run("ask", "--series", "vane c", "Who poisoned the colonel?", "--no-model")
    assert code == 0 and "Clara Vane" in out
    code, _, err = _run("search", "vane", "Who poisoned the colonel?", "--series")
    assert code == 2 and err.strip().count("\n") == 0
    assert "Vane Chronicles; Vane Mysteries" in err and "Holmes" not in err
    code, _, err = _run("ask", "--series", "Moriarty", "Who?")
    assert code == 3 and "no series named 'Moriarty'" in err and err.strip().count("\n") == 0
