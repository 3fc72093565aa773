"""A plain-text book is split at the chapter headings it sets on lines of their own, however
short its chapters; a text without such headings stays one chapter, as it always was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.books.read.readers import read_book
from lore.cli.app import app

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

PROSE = [
    "It was a dark night. Mary walked home through the rain.",
    "The morning came grey. John woke early and read the letter.",
    "By noon the letter was ash. Nobody spoke of it again.",
]


def _book(tmp_path: Path, headings: list[str], front: str = "", name: str = "story.txt") -> Path:
    body = "\n\n".join(f"{h}\n\n{text}" for h, text in zip(headings, PROSE, strict=False))
    path = tmp_path / name
    path.write_text(f"{front}{body}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "headings",
    [
        ["Chapter 1", "Chapter 2", "Chapter 3"],
        ["CHAPTER IV", "CHAPTER V", "CHAPTER VI"],
        ["Chapter One", "Chapter Two", "Chapter Three"],
        ["Chapter 1: The Walk", "Chapter 2 - The Letter", "Chapter 3. Ash"],
        ["Part 1", "Part 2", "Part 3"],
        ["Book I", "Book II", "Book III"],
        ["# Chapter 1", "## Chapter 2", "### Chapter 3"],
    ],
)
def test_headings_on_lines_of_their_own_split_the_chapters(tmp_path: Path, headings: list[str]) -> None:
    book = read_book(_book(tmp_path, headings))
    assert [c.title for c in book.chapters] == [h.lstrip("# ") for h in headings]
    for chapter, text in zip(book.chapters, PROSE, strict=True):
        assert text in chapter.text
        assert sum(t in chapter.text for t in PROSE) == 1  # its own prose only


def test_a_contents_list_and_a_title_are_not_chapters(tmp_path: Path) -> None:
    front = "The Letter\n\nby A. Writer\n\nContents\n\nChapter 1\nChapter 2\nChapter 3\n\n"
    book = read_book(_book(tmp_path, ["Chapter 1", "Chapter 2", "Chapter 3"], front=front))
    assert book.title == "The Letter" and book.authors == ["A. Writer"]
    assert [c.title for c in book.chapters] == ["Chapter 1", "Chapter 2", "Chapter 3"]


def test_a_text_without_headings_stays_one_chapter(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text(
        "\n\n".join(PROSE) + "\n\nAs chapter 2 of the manual says, keep it short.\n", encoding="utf-8"
    )
    book = read_book(path)
    assert len(book.chapters) == 1 and all(text in book.chapters[0].text for text in PROSE)
    joined = tmp_path / "joined.txt"  # headings run into their prose: not set apart, not split
    joined.write_text("\n".join(f"Chapter {n}\n{t}" for n, t in enumerate(PROSE, 1)) + "\n", encoding="utf-8")
    assert len(read_book(joined).chapters) == 1


def test_books_add_and_list_show_the_chapters_and_format(tmp_path: Path, mystery_epub: Path) -> None:
    runner = CliRunner()
    added = runner.invoke(app, ["books", "add", str(_book(tmp_path, ["Chapter 1", "Chapter 2"])), "--json"])
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["chapters"] == 2
    assert runner.invoke(app, ["books", "add", str(mystery_epub)]).exit_code == 0
    listed = runner.invoke(app, ["books", "list"])
    assert listed.exit_code == 0
    lines = listed.stdout.splitlines()
    column = [c.strip() for c in next(line for line in lines if " title " in line).split("┃")].index("format")
    shown = {
        cells[2]: cells[column]
        for line in lines
        if (cells := [c.strip() for c in line.split("│")])[1:2] and cells[1].isdigit()
    }
    assert shown == {"story": "text", "The Vane Inheritance": "epub"}
    as_json = json.loads(runner.invoke(app, ["books", "list", "--json"]).stdout)
    assert {b["title"]: b["format"] for b in as_json} == shown
