"""Where a PDF page's text comes from: PDFium (the default) or pypdf (the fallback).

pypdf interprets every content stream in Python, and its text extraction was about 90% of a PDF
import (Pride and Prejudice, 234 pages: 9-23 s). PDFium, the C++ engine of Chromium, does the
same work in well under a second; `pypdfium2` ships it inside its wheel, so it installs from the
package index with no system library. The structure of the file (pages, shared content
streams, decoded sizes, outline, metadata) is still read with pypdf in `pdf_pages` and `pdf`,
before PDFium sees a page, so the limits hold whichever engine reads the text.

pypdf reads the text only when PDFium is not installed, cannot open a file that pypdf can, or
counts a different number of pages (then page numbers would not line up); `read_pdf` says so
in the book's notes. `bench/book_pdf.py` measures both.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

PDFIUM = "pdfium"
PYPDF = "pypdf"
ENGINES = (PDFIUM, PYPDF)

# PDFium is not safe to call from two threads at once (the web app and MCP server may import
# concurrently): one document is read at a time.
_PDFIUM_LOCK = threading.Lock()
# PDFium's own marks in extracted text: \x02 (or U+FFFE, by API) stands for a hyphen that ended a
# line, whose break PDFium drops; it is put back so lines match pypdf's. Other control characters
# are not text.
_HYPHEN_MARKS = ("\x02", "\ufffe")
# A drop from one line to the next this many times the page's usual spacing is a paragraph gap:
# line drops cluster at 1.0 and paragraph gaps at 1.6-2.1 (Pride and Prejudice), 1.4 splits them.
_GAP = 1.4
_CONTROL = re.compile(r"[\x00\x01\x03-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class PageTexts(Protocol):
    """The text of a document's pages by 0-based index."""

    name: str

    def page_count(self) -> int: ...

    def text(self, index: int) -> str: ...


class EngineUnavailable(Exception):
    """PDFium cannot read this file (or is not installed); the reason is the message."""


class _Pdfium:
    """Page text from PDFium, with a blank line where the page leaves a gap between lines.

    pypdf marks a paragraph gap with a line of white space (an empty paragraph in the source);
    PDFium drops such lines. So the gap is measured instead: where the next line starts much
    further down than lines usually follow each other on the page, a blank line goes between
    them, and `pdf._lines` sees the same paragraph breaks with either engine.
    """

    name = PDFIUM

    def __init__(self, document: Any) -> None:
        self._document = document
        self._pitch = 0.0  # the last page's usual line spacing, for pages too short to measure

    def page_count(self) -> int:
        return len(self._document)

    def text(self, index: int) -> str:
        page = self._document[index]
        try:
            textpage = page.get_textpage()
            try:
                return self._laid_out(textpage)
            finally:
                textpage.close()
        finally:
            page.close()

    def _laid_out(self, textpage: Any) -> str:
        raw = textpage.get_text_range()
        lines = raw.split("\r\n")
        if len(lines) < 2 or len(raw) != textpage.count_chars():
            return pdfium_plain(raw)
        # where each line starts and ends: (baseline y, font size) of its first and last character
        starts: list[tuple[float, float] | None] = []
        ends: list[tuple[float, float] | None] = []
        at = 0
        for line in lines:
            first, last = len(line) - len(line.lstrip()), len(line.rstrip()) - 1
            starts.append(_placed(textpage, at + first) if line.strip() else None)
            ends.append(_placed(textpage, at + last) if line.strip() else None)
            at += len(line) + 2
        # the drop from each line to the next, in units of the larger font size of the two, so a
        # heading's wider spacing is not taken for a gap
        drops: list[float | None] = [None]
        for before, after in zip(ends, starts[1:], strict=False):
            size = max(before[1], after[1]) if before and after else 0.0
            drops.append((before[0] - after[0]) / size if before and after and size > 0 else None)
        positive = sorted(d for d in drops if d is not None and d > 0)
        if len(positive) >= 4:  # the usual line spacing: most drops on a page are from one line to the next
            self._pitch = positive[len(positive) // 4]
        out = [lines[0]]
        for line, drop in zip(lines[1:], drops[1:], strict=True):
            if self._pitch and drop is not None and drop > _GAP * self._pitch:
                out.append("")
            out.append(line)
        return pdfium_plain("\n".join(out))


def _placed(textpage: Any, index: int) -> tuple[float, float] | None:
    """A character's baseline height on the page and its font size; None if PDFium has neither."""
    import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

    x, y = ctypes.c_double(), ctypes.c_double()
    if not pdfium_c.FPDFText_GetCharOrigin(textpage.raw, index, ctypes.byref(x), ctypes.byref(y)):
        return None
    return y.value, float(pdfium_c.FPDFText_GetFontSize(textpage.raw, index))


class _Pypdf:
    name = PYPDF

    def __init__(self, reader: Any) -> None:
        self._reader = reader

    def page_count(self) -> int:
        return len(self._reader.pages)

    def text(self, index: int) -> str:
        return self._reader.pages[index].extract_text() or ""


def pdfium_plain(raw: str) -> str:
    """PDFium's text laid out as pypdf gives it: Unix line ends, a hyphen that ends its line, no
    control marks."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    for mark in _HYPHEN_MARKS:
        text = text.replace(mark, "-\n")
    return _CONTROL.sub("", text)


@contextlib.contextmanager
def pdfium_pages(path: Path, password: str | None = None) -> Iterator[PageTexts]:
    """The file opened by PDFium, held under the PDFium lock while it is read."""
    try:
        import pypdfium2 as pdfium
    except ImportError as exc:  # a core dependency, so only a broken install
        raise EngineUnavailable("PDFium (pypdfium2) is not installed") from exc
    with _PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(str(path), password=password)
        except pdfium.PdfiumError as exc:
            raise EngineUnavailable(f"PDFium could not open the file ({_first_line(exc)})") from exc
        try:
            yield _Pdfium(document)
        finally:
            document.close()


def pypdf_pages(reader: Any) -> PageTexts:
    return _Pypdf(reader)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:120] if text else exc.__class__.__name__
