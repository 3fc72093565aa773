"""The two PDF text engines: PDFium (the default) and pypdf (the fallback) read the same chapters,
the limits hold whichever reads, and the fallback says when it is used."""

from __future__ import annotations

import re
import sys
import threading
import zlib
from pathlib import Path

import pytest

from lore.books.read.limits import ReadLimits
from lore.books.read.pdf import read_pdf
from lore.books.read.pdf_engines import pdfium_plain
from lore.books.read.readers import read_book
from lore.core.errors import InvalidInput
from support.books import add_outline, book_pdf_pages, encrypt_pdf, make_pdf, mystery_book, pdf_file

TITLES = [f"Chapter {n}" for n in range(1, 6)]


def _words(text: str) -> list[str]:
    return text.split()


@pytest.fixture
def vane_pdf(tmp_path: Path) -> Path:
    return make_pdf(tmp_path / "vane.pdf", book_pdf_pages(mystery_book()), title="The Vane Inheritance")


def test_both_engines_read_the_same_chapters_and_words(vane_pdf: Path) -> None:
    fast, fallback = read_pdf(vane_pdf, engine="pdfium"), read_pdf(vane_pdf, engine="pypdf")
    assert [c.title for c in fast.chapters] == [c.title for c in fallback.chapters] == TITLES
    for mine, theirs in zip(fast.chapters, fallback.chapters, strict=True):
        assert _words(mine.text) == _words(theirs.text)
    assert fast.notes == ["chapters from heading lines"]  # the default engine needs no note
    assert fallback.notes[-1] == "text read by pypdf (as asked)"


def test_the_outline_gives_the_chapters_with_pdfium_too(tmp_path: Path, vane_pdf: Path) -> None:
    marked = add_outline(vane_pdf, tmp_path / "marked.pdf", [(f"Chapter {n}", n) for n in range(1, 6)])
    book = read_pdf(marked, engine="pdfium")
    assert [c.title for c in book.chapters] == TITLES
    assert book.notes == ["chapters from the PDF outline"]


def test_a_gap_between_lines_is_a_paragraph_break(tmp_path: Path) -> None:
    """A vertical gap ends a paragraph even where its last line is long (the short-line rule
    cannot see it). A heading's wider spacing is no gap: the shared Alice test below, whose
    18-point two-line headings keep their second line."""
    body = ["A long line of words that fills up the page from side to side."] * 3
    lines = ["Chapter 1", "", *body, "", *body, "", "", *body]
    path = make_pdf(tmp_path / "gaps.pdf", [lines, lines])
    paragraphs = read_pdf(path, engine="pdfium").chapters[0].text.split("\n\n")
    assert paragraphs[0] == "Chapter 1"
    assert paragraphs[1:4] == [" ".join(body)] * 3
    # pypdf prints no blank line for a gap (only for a line of spaces), so it joins them
    assert read_pdf(path, engine="pypdf").chapters[0].text.split("\n\n")[1] == " ".join(body * 3)


def test_pdfium_marks_become_plain_text() -> None:
    """PDFium's line-end hyphen mark keeps its line break (as pypdf prints it); control marks go."""
    raw = "the dining\ufffeparlour door\r\nhalf\x02hour\x01 later\r\n"
    assert pdfium_plain(raw) == "the dining-\nparlour door\nhalf-\nhour later\n"


def test_without_pdfium_pypdf_reads_and_the_book_says_so(
    vane_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # the import fails, as in a broken install
    book = read_book(vane_pdf)
    assert [c.title for c in book.chapters] == TITLES
    assert book.notes[-1] == "text read by pypdf (PDFium (pypdfium2) is not installed)"
    with pytest.raises(InvalidInput, match=r"^vane\.pdf: PDFium \(pypdfium2\) is not installed$"):
        read_pdf(vane_pdf, engine="pdfium")


def test_the_engine_can_be_chosen_by_environment(vane_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_PDF_ENGINE", "pypdf")
    assert read_book(vane_pdf).notes[-1] == "text read by pypdf (as asked)"
    monkeypatch.setenv("LORE_PDF_ENGINE", "quick")
    with pytest.raises(InvalidInput, match="unknown PDF engine 'quick'"):
        read_book(vane_pdf)


@pytest.mark.parametrize("engine", ["pdfium", "pypdf"])
def test_a_page_with_too_many_tokens_is_named_and_not_parsed(vane_pdf: Path, engine: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        read_pdf(vane_pdf, ReadLimits(max_pdf_page_tokens=20), engine=engine)
    message = str(refused.value)
    assert "no text could be read; page 1 could not be read (its content holds over 20 tokens" in message
    assert "books.max_pdf_page_tokens" in message and "\n" not in message


@pytest.mark.parametrize("engine", ["pdfium", "pypdf"])
def test_encrypted_and_truncated_files_are_refused_in_one_line(
    tmp_path: Path, vane_pdf: Path, engine: str
) -> None:
    locked = encrypt_pdf(vane_pdf, tmp_path / "locked.pdf")
    with pytest.raises(InvalidInput, match="encrypted") as refused:
        read_pdf(locked, engine=engine)
    assert "\n" not in str(refused.value)
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(vane_pdf.read_bytes()[: vane_pdf.stat().st_size // 2])
    with pytest.raises(InvalidInput, match="not a readable PDF") as refused:
        read_pdf(cut, engine=engine)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("engine", ["pdfium", "pypdf"])
def test_a_broken_cross_reference_table_is_repaired(tmp_path: Path, vane_pdf: Path, engine: str) -> None:
    """Every offset in the xref table wrong: both engines rebuild it from the objects themselves."""
    broken = tmp_path / "xref.pdf"
    broken.write_bytes(re.sub(rb"\d{10} 00000 n", b"0000000003 00000 n", vane_pdf.read_bytes()))
    assert [c.title for c in read_pdf(broken, engine=engine).chapters] == TITLES


def test_concurrent_imports_each_get_their_own_book(tmp_path: Path) -> None:
    """PDFium is called by one thread at a time; readers in parallel threads still get whole books."""
    paths = [
        make_pdf(tmp_path / f"book-{i}.pdf", book_pdf_pages(mystery_book()), title=f"Book {i}")
        for i in range(4)
    ]
    results: dict[int, list[str]] = {}
    errors: list[BaseException] = []

    def read(i: int) -> None:
        try:
            book = read_pdf(paths[i], engine="pdfium")
            results[i] = [book.title, *(c.title for c in book.chapters)]
        except BaseException as exc:  # reported below, so a failure in a thread fails the test
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == {i: [f"Book {i}", *TITLES] for i in range(4)}


def test_the_shared_alice_pdf_reads_the_same_with_either_engine(shared_data: Path) -> None:
    path = shared_data / "books" / "alice-11.pdf"
    fast, fallback = read_pdf(path, engine="pdfium"), read_pdf(path, engine="pypdf")
    assert [c.title for c in fast.chapters] == [c.title for c in fallback.chapters]
    assert (fast.title, fast.authors) == (fallback.title, fallback.authors)
    for mine, theirs in zip(fast.chapters, fallback.chapters, strict=True):
        assert _words(mine.text) == _words(theirs.text), mine.title


def _pdf_with_resources(path: Path, pages: int, font_mb: float = 0, form: bytes = b"") -> Path:
    """Pages that draw one text line in an embedded TrueType font (a Flate stream of `font_mb`
    decoded MB of zeros, shared by every page) and, when given, one form XObject of `form`."""
    squeeze = zlib.compressobj(9)
    packed = b"".join(squeeze.compress(b"\0" * (1024 * 1024)) for _ in range(int(font_mb))) + squeeze.flush()
    body = b"BT /F1 11 Tf 60 760 Td (Words in an embedded font) Tj ET" + (b" /X1 Do" if form else b"") + b"\n"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, below
        b"<< /Type /Font /Subtype /TrueType /BaseFont /Embedded /FirstChar 32 /LastChar 126 /Widths ["
        + b"500 " * 95
        + b"] /FontDescriptor 7 0 R >>",
        b"<< /Font << /F1 3 0 R >> /XObject << /X1 9 0 R >> >>",
        b"<< /Length %d >>\nstream\n" % len(body) + body + b"\nendstream",
        b"",  # unused
        b"<< /Type /FontDescriptor /FontName /Embedded /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0"
        b" /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 8 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Length %d >>\nstream\n" % len(form)
        + form
        + b"\nendstream",
    ]
    kids = []
    for _ in range(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 4 0 R /Contents 5 0 R >>"
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {pages} >>".encode()
    objects[5] = b"<< >>"
    path.write_bytes(pdf_file(objects, b"/Root 1 0 R"))
    return path


@pytest.mark.parametrize("engine", ["pdfium", "pypdf"])
def test_a_font_that_inflates_past_the_page_limit_is_refused_before_the_engine(
    tmp_path: Path, engine: str
) -> None:
    """PDFium loads embedded font programs (pypdf does not): a 40 MB font in a tiny file is
    refused in one line, whichever engine would read, before either decodes it for text."""
    bomb = _pdf_with_resources(tmp_path / "font.pdf", pages=1, font_mb=40)
    assert bomb.stat().st_size < 100 * 1024
    with pytest.raises(InvalidInput) as refused:
        read_pdf(bomb, engine=engine)
    assert str(refused.value) == (
        "font.pdf: page 1's fonts and forms decode to more than 32.0 MB, over the limit of 32 MB;"
        " nothing was imported (raise books.max_pdf_page_mb in config.json to allow it)"
    )


def test_a_font_shared_by_every_page_counts_once(tmp_path: Path) -> None:
    book = read_pdf(_pdf_with_resources(tmp_path / "shared-font.pdf", pages=3, font_mb=20), engine="pdfium")
    assert sum(c.text.count("Words in an embedded font") for c in book.chapters) == 3
    with pytest.raises(InvalidInput, match=r"books\.max_pdf_page_mb"):
        read_pdf(tmp_path / "shared-font.pdf", ReadLimits(max_pdf_page_mb=10), engine="pdfium")


def test_a_form_with_too_many_tokens_leaves_its_page_unread(tmp_path: Path) -> None:
    dense = _pdf_with_resources(tmp_path / "form.pdf", pages=2, form=b"q Q " * 600_000)
    with pytest.raises(InvalidInput) as refused:
        read_pdf(dense, engine="pdfium")
    assert "no text could be read; page 1 could not be read (its content holds over 1,000,000 tokens" in str(
        refused.value
    )
    book = read_pdf(dense, ReadLimits(max_pdf_page_tokens=1_300_000), engine="pdfium")
    assert "Words in an embedded font" in book.chapters[0].text


def test_a_pdf_encrypted_with_an_empty_password_is_read_by_pdfium(tmp_path: Path, vane_pdf: Path) -> None:
    """Only an owner password (printing, copying rights): both libraries open it, PDFium reads."""
    book = read_pdf(encrypt_pdf(vane_pdf, tmp_path / "owner-only.pdf", password=""))
    assert [c.title for c in book.chapters] == TITLES
    assert book.notes == ["chapters from heading lines"]
