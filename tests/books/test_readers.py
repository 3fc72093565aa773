"""Reading EPUB 2/3, PDF and plain text into content chapters, and refusing unusable files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from lore.books.read.readers import read_book
from lore.core.errors import InvalidInput, NotFound
from support.books import (
    add_outline,
    book_pdf_pages,
    book_text,
    encrypt_pdf,
    make_epub,
    make_pdf,
    mystery_book,
)

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

TITLES = [f"Chapter {n}" for n in range(1, 6)]


def _check_order(chapters: list) -> None:
    """Each chapter says its own number first, so reading order is checkable from the text."""
    for n, chapter in enumerate(chapters, start=1):
        assert f"opening of chapter {n}," in chapter.text
        assert f"So ended chapter {n} of the story." in chapter.text
        assert f"chapter {n + 1}," not in chapter.text


@pytest.mark.parametrize(
    "options",
    [
        {"version": 3},
        {"version": 2},
        {"version": 2, "layout": "anchors"},
        {"version": 3, "layout": "anchors"},
        {"version": 3, "parts": [("Part One", 2), ("Part Two", 3)]},
        {"version": 2, "parts": [("Book the First", 3), ("Book the Second", 2)]},
        {"version": 3, "nested_sections": True},
        {"version": 2, "nested_sections": True},
        {"version": 3, "toc": False},
        {"version": 3, "front_matter": False, "back_matter": False},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()),
)
def test_epub_chapters_are_the_content_chapters_in_reading_order(tmp_path: Path, options: dict) -> None:
    book = read_book(make_epub(tmp_path / "b.epub", **options))
    assert [c.title for c in book.chapters] == TITLES
    _check_order(book.chapters)
    text = "\n".join(c.text for c in book.chapters)
    assert "Endnotes" not in text and "Set in a plain type" not in text  # back matter
    assert "Part One" not in text and "Book the First" not in text  # part title pages
    assert book.title == "The Vane Inheritance" and book.authors == ["Ada Example"]
    assert book.format == "epub"


def test_nested_sections_stay_inside_their_chapter(tmp_path: Path) -> None:
    book = read_book(make_epub(tmp_path / "b.epub", nested_sections=True))
    assert len(book.chapters) == 5
    assert "Part 1" in book.chapters[0].text and "Part 2" in book.chapters[0].text


@pytest.mark.parametrize("style", ["epub3", "calibre"])
def test_series_name_and_position_come_from_the_package(tmp_path: Path, style: str) -> None:
    book = read_book(
        make_epub(
            tmp_path / "b.epub",
            version=2 if style == "calibre" else 3,
            series=("Vane Mysteries", 2),
            series_style=style,
        )
    )
    assert (book.series, book.series_index) == ("Vane Mysteries", 2.0)


def test_pdf_chapters_from_headings_skip_the_contents_page(tmp_path: Path) -> None:
    spec = mystery_book()
    pdf = make_pdf(tmp_path / "b.pdf", book_pdf_pages(spec), title="The Vane Inheritance, by Ada Example")
    book = read_book(pdf)
    assert [c.title for c in book.chapters] == TITLES
    _check_order(book.chapters)
    assert (book.title, book.authors, book.format) == ("The Vane Inheritance", ["Ada Example"], "pdf")
    assert book.notes == ["chapters from heading lines"]


def test_pdf_chapters_from_the_outline(tmp_path: Path) -> None:
    spec = mystery_book()
    plain = make_pdf(tmp_path / "b.pdf", book_pdf_pages(spec))
    marked = add_outline(
        plain, tmp_path / "outlined.pdf", [("Contents", 0)] + [(f"Chapter {n}", n) for n in range(1, 6)]
    )
    book = read_book(marked)
    assert [c.title for c in book.chapters] == TITLES
    _check_order(book.chapters)
    assert book.notes == ["chapters from the PDF outline"]


def test_plain_text_chapters_from_headings(tmp_path: Path) -> None:
    path = tmp_path / "vane.txt"
    path.write_text(book_text(mystery_book()), encoding="utf-8")
    book = read_book(path)
    assert [c.title for c in book.chapters] == [t.upper() for t in TITLES]
    _check_order(book.chapters)
    assert book.title == "THE VANE INHERITANCE" and book.authors == ["Ada Example"]
    # hard-wrapped lines are joined: a paragraph is one line of the chapter text
    assert "\n" not in book.chapters[0].text.split("\n\n")[1]


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda p: p.write_bytes(b""), "the file is empty"),
        (lambda p: p.write_bytes(b"PK\x03\x04 this is not really a zip archive"), "corrupt zip"),
        (lambda p: p.write_bytes(b"%PDF-1.4\n1 0 obj garbage"), "not a readable PDF"),
        (lambda p: p.write_bytes(b"\x00\x01\x02binary\x00junk" * 50), "binary data"),
    ],
    ids=["empty", "corrupt-zip", "corrupt-pdf", "binary"],
)
def test_unusable_files_get_a_one_line_reason(tmp_path: Path, make, reason: str) -> None:
    path = tmp_path / ("broken.txt" if reason == "binary data" else "broken.epub")
    make(path)
    with pytest.raises(InvalidInput) as err:
        read_book(path)
    assert reason in str(err.value) and "\n" not in str(err.value)


def test_encrypted_files_are_refused(tmp_path: Path) -> None:
    epub = make_epub(tmp_path / "drm.epub", encrypted=True)
    with pytest.raises(InvalidInput, match="encrypted"):
        read_book(epub)
    pdf = encrypt_pdf(make_pdf(tmp_path / "b.pdf", book_pdf_pages(mystery_book())), tmp_path / "e.pdf")
    with pytest.raises(InvalidInput, match="encrypted"):
        read_book(pdf)


def test_an_epub_without_text_and_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "hollow.epub"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", "<container/>")
    with pytest.raises(InvalidInput, match="not a readable EPUB"):
        read_book(path)
    with pytest.raises(NotFound):
        read_book(tmp_path / "nowhere.epub")


def test_a_pdf_of_blank_pages_says_it_has_no_text(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no extractable text"):
        read_book(make_pdf(tmp_path / "blank.pdf", [[], []]))


def test_plain_text_is_read_only_from_text_names(tmp_path: Path) -> None:
    text = book_text(mystery_book())
    for name in ("vane.md", "vane.text", "VANE.TXT", "vane"):
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert len(read_book(tmp_path / name).chapters) == 5, name
    (tmp_path / "notes.docx").write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput) as err:
        read_book(tmp_path / "notes.docx")
    assert "notes.docx: not a book Lore can read" in str(err.value) and "\n" not in str(err.value)


def test_a_folder_is_named_as_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="is a folder"):
        read_book(tmp_path)
