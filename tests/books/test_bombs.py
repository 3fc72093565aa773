"""Resource bombs made in the test: an EPUB page that inflates to hundreds of MB, many large
members, a member whose declared size lies, a PDF whose pages all draw one big content stream.

Each is refused with one line naming the limit and the setting that raises it (exit 2 through
the real CLI), nothing is stored, and the importing process's peak memory stays within a
generous ratio of a normal import measured in the same test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lore.books import library
from lore.books.read.limits import ReadLimits, finish_chapters
from lore.books.read.readers import read_book
from lore.core.errors import InvalidInput
from support.bombs import epub_with_members, lie_about_size, shared_stream_pdf
from support.books import make_epub

# Runs the command as its own child, so RUSAGE_CHILDREN is that one process's peak, not the
# largest of everything this test session ever started.
_PROBE = (
    "import json, resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(json.dumps([done.returncode, done.stdout, done.stderr, peak]))\n"
)


def _lore_measured(*args: str) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak RSS in KB) of one real `lore` process."""
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE, sys.executable, "-m", "lore.cli.entry", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=300,
        check=True,
    )
    code, out, err, peak = json.loads(probe.stdout)
    return code, out, err, peak


def _refusal(err: str, setting: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f"raise books.{setting} in config.json" in lines[0] and "nothing was imported" in lines[0]
    return lines[0]


def _library_is_empty() -> None:
    assert library.list_books() == []


def test_epub_bombs_are_refused_with_bounded_memory(tmp_path: Path) -> None:
    normal = make_epub(tmp_path / "normal.epub")
    code, _, err, baseline = _lore_measured("books", "add", str(normal))
    assert code == 0, err
    assert library.list_books()[0].chapters == 5
    library.remove_book(library.list_books()[0].id)

    huge_page = epub_with_members(tmp_path / "huge-page.epub", {"OEBPS/chapter-1.xhtml": 100})
    assert huge_page.stat().st_size < 5 * 1024 * 1024
    code, _, err, peak = _lore_measured("books", "add", str(huge_page))
    assert code == 2
    line = _refusal(err, "max_item_mb")
    assert "'OEBPS/chapter-1.xhtml' unpacks to 100.0 MB" in line and "over the limit of 64 MB" in line
    assert peak < 1.5 * baseline, (peak, baseline)

    many = epub_with_members(tmp_path / "many.epub", {f"OEBPS/extra-{i}.xhtml": 48 for i in range(11)})
    code, _, err, peak = _lore_measured("books", "add", str(many))
    assert code == 2 and "the archive unpacks to 528.0 MB" in _refusal(err, "max_uncompressed_mb")
    assert peak < 1.5 * baseline, (peak, baseline)
    _library_is_empty()


def test_a_member_that_lies_about_its_size_is_never_inflated_past_the_lie(tmp_path: Path) -> None:
    liar = epub_with_members(tmp_path / "liar.epub", {"OEBPS/chapter-2.xhtml": 100})
    lie_about_size(liar, "OEBPS/chapter-2.xhtml", 4096)
    with pytest.raises(InvalidInput) as refused:
        read_book(liar)
    assert "not a readable EPUB (corrupt zip" in str(refused.value)
    code, _, err, _ = _lore_measured("books", "add", str(liar))
    assert code == 2 and len(err.splitlines()) == 1
    _library_is_empty()


def test_highly_compressible_member_under_the_size_limit_is_refused_by_ratio(tmp_path: Path) -> None:
    bomb = epub_with_members(tmp_path / "ratio.epub", {"OEBPS/chapter-3.xhtml": 40})
    with pytest.raises(InvalidInput) as refused:
        read_book(bomb, ReadLimits(max_compression_ratio=20))
    assert "inflates" in str(refused.value) and "books.max_compression_ratio" in str(refused.value)


def test_member_count_is_bounded(tmp_path: Path, lore_home: Path) -> None:
    book = make_epub(tmp_path / "book.epub")
    lore_home.mkdir(parents=True, exist_ok=True)
    (lore_home / "config.json").write_text(json.dumps({"books": {"max_items": 5}}))
    files = len(zipfile.ZipFile(book).infolist())
    code, _, err, _ = _lore_measured("books", "add", str(book))
    assert code == 2 and f"the archive holds {files} files, over the limit of 5" in _refusal(err, "max_items")


def test_pdf_pages_sharing_one_big_stream_are_refused_at_the_first_page(tmp_path: Path) -> None:
    pdf = shared_stream_pdf(tmp_path / "shared.pdf", pages=400, stream_mb=71)
    assert pdf.stat().st_size < 1024 * 1024
    code, _, err, _ = _lore_measured("books", "add", str(pdf))
    assert code == 2
    assert "page 1's content decodes to more than 32.0 MB" in _refusal(err, "max_pdf_page_mb")
    _library_is_empty()


@pytest.mark.parametrize("engine", ["pdfium", "pypdf"])
def test_a_shared_content_stream_is_extracted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    """300 pages drawing the same stream: one extraction, the text kept for every page."""
    import pypdfium2
    from pypdf import PageObject

    owner, name = (pypdfium2.PdfPage, "get_textpage") if engine == "pdfium" else (PageObject, "extract_text")
    calls = []
    original = getattr(owner, name)

    def counted(self: object, *args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    monkeypatch.setenv("LORE_PDF_ENGINE", engine)
    book = read_book(shared_stream_pdf(tmp_path / "shared.pdf", pages=300, stream_mb=0.3))
    assert len(calls) == 1
    assert sum(c.text.count("Shared words on every page") for c in book.chapters) == 300
    with pytest.raises(InvalidInput) as refused:
        read_book(tmp_path / "shared.pdf", ReadLimits(max_pdf_content_mb=10))
    assert "decodes to more than 10.0 MB (at page" in str(refused.value)
    assert "books.max_pdf_content_mb" in str(refused.value)


def test_a_page_too_complex_to_parse_is_named_not_mistaken_for_a_scan(tmp_path: Path) -> None:
    """Under the size cap but past pypdf's own parsing budget: the page is said to be unreadable."""
    pdf = shared_stream_pdf(tmp_path / "dense.pdf", pages=2, stream_mb=4.5)
    with pytest.raises(InvalidInput) as refused:
        read_book(pdf)
    assert "no text could be read; page 1 could not be read (" in str(refused.value)


def test_the_pdf_time_budget_is_checked_between_pages(tmp_path: Path) -> None:
    pdf = shared_stream_pdf(tmp_path / "slow.pdf", pages=3, stream_mb=0.01)
    with pytest.raises(InvalidInput) as refused:
        read_book(pdf, ReadLimits(max_pdf_seconds=0))
    assert "took too long (stopped at page 2)" in str(refused.value)
    assert "books.max_pdf_seconds" in str(refused.value)


def test_a_cut_chapter_is_said_in_the_summary_and_the_json(tmp_path: Path, lore_home: Path) -> None:
    book = make_epub(tmp_path / "book.epub")
    lore_home.mkdir(parents=True, exist_ok=True)
    (lore_home / "config.json").write_text(json.dumps({"books": {"max_chapter_chars": 1000}}))
    code, out, err, _ = _lore_measured("books", "add", str(book), "--json")
    assert code == 0, err
    added = json.loads(out)
    assert added["chapters"] == 5 and len(added["warnings"]) == 5
    assert all("was cut at" in w and "books.max_chapter_chars is 1,000" in w for w in added["warnings"])
    assert "was cut at" in added["notes"]
    stored = library.chapters(added["id"])[1]
    assert stored and all(len(c["text"]) <= 1000 for c in stored if "text" in c)
    code, out, _, _ = _lore_measured("books", "add", str(make_epub(tmp_path / "other.epub", version=2)))
    assert code == 0 and out.count("Note: chapter") == 5


def test_text_and_pdf_files_over_the_size_limit_are_refused_before_reading(tmp_path: Path) -> None:
    text = tmp_path / "long.txt"
    text.write_text("Chapter 1\n\n" + "Words and more words.\n" * 20_000)
    pdf = shared_stream_pdf(tmp_path / "small.pdf", pages=2, stream_mb=0.01)
    tight = ReadLimits(max_uncompressed_mb=min(text.stat().st_size, pdf.stat().st_size) / 2 / 1024 / 1024)
    for path in (text, pdf):
        with pytest.raises(InvalidInput) as refused:
            read_book(path, tight)
        assert f"{path.name}: the file is " in str(refused.value)
        assert "books.max_uncompressed_mb" in str(refused.value)


def test_an_empty_chapter_is_reported_not_dropped_silently() -> None:
    chapters, warnings = finish_chapters(
        [("One", "Some text."), ("Two", "  "), ("Three", "More.")], ReadLimits()
    )
    assert [c.title for c in chapters] == ["One", "Three"]
    assert warnings == ["chapter “Two” has no text and was left out"]


def test_a_bad_limit_in_config_falls_back_with_a_warning(
    lore_home: Path, capsys: pytest.CaptureFixture
) -> None:
    from lore.books.read.limits import load_limits

    lore_home.mkdir(parents=True, exist_ok=True)
    (lore_home / "config.json").write_text(json.dumps({"books": {"max_item_mb": "lots", "max_items": True}}))
    limits = load_limits()
    assert limits.max_item_mb == 64 and limits.max_items == 10_000
    err = capsys.readouterr().err
    assert "books.max_item_mb='lots' is invalid" in err and "books.max_items=True is invalid" in err
