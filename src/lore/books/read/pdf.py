"""PDF: chapters from the outline (bookmarks) or, without one, from heading lines.

Text comes out of a PDF as lines per page; a line that is clearly shorter than the page's
usual line and ends a sentence closes its paragraph, so passages do not run across paragraphs.
Pages are read within the limits of `limits.ReadLimits` (see `pdf_pages`); the file's structure
comes from pypdf and the pages' text from PDFium, or pypdf when PDFium cannot read the file
(see `pdf_engines`; the book's notes say which engine read it and why).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lore.books.read.limits import ReadLimits, load_limits, megabytes, over_limit
from lore.books.read.lines import chapters_from_lines, trim_licence
from lore.books.read.outline import OutlineEntry
from lore.books.read.parsed import ParsedBook
from lore.books.read.pdf_engines import (
    ENGINES,
    PDFIUM,
    PYPDF,
    EngineUnavailable,
    PageTexts,
    pdfium_pages,
    pypdf_pages,
)
from lore.books.read.pdf_pages import page_texts
from lore.core.errors import InvalidInput

_ENDS_SENTENCE = re.compile(r"[.!?:;\"'”’)\]]$")


def read_pdf(path: Path, limits: ReadLimits | None = None, engine: str | None = None) -> ParsedBook:
    """The book in a PDF; `engine` is "auto" (PDFium, else pypdf), "pdfium" or "pypdf", by
    default `LORE_PDF_ENGINE` or "auto"."""
    engine = engine or os.environ.get("LORE_PDF_ENGINE") or "auto"
    if engine not in ("auto", *ENGINES):
        raise InvalidInput(f"unknown PDF engine {engine!r} (auto, {', '.join(ENGINES)})")
    limits = limits or load_limits()
    size = path.stat().st_size
    if size > limits.bytes("max_uncompressed_mb"):  # pypdf holds the whole file in memory
        raise over_limit(path.name, f"the file is {megabytes(size)}", "max_uncompressed_mb", limits)
    reader = _open(path)
    with _text_engine(path, reader, engine) as (texts, engine_note):
        pages, warnings = page_texts(reader, path.name, limits, texts)
    if not any(p.strip() for p in pages):
        if warnings:  # pages that could not be read are not the same as pages without text
            raise InvalidInput(f"{path.name}: no text could be read; {warnings[0]}")
        raise InvalidInput(f"{path.name}: the PDF has no extractable text (scanned images need OCR)")
    lines, page_starts = _lines(pages)
    title, authors = _metadata(reader, lines, path)
    entries = _outline_entries(reader, lines, page_starts)
    notes = ["chapters from the PDF outline"] if entries else ["chapters from heading lines"]
    if engine_note:
        notes.append(engine_note)
    if entries:
        chapters, cut = chapters_from_lines(lines, title, entries, limits)
    else:
        chapters, cut = chapters_from_lines(trim_licence(lines), title, limits=limits)
    if not chapters:
        raise InvalidInput(f"{path.name}: no chapters with text were found")
    return ParsedBook(
        title=title, authors=authors, format="pdf", chapters=chapters, notes=notes, warnings=warnings + cut
    )


@contextlib.contextmanager
def _text_engine(path: Path, reader: Any, engine: str) -> Iterator[tuple[PageTexts, str]]:
    """The engine that reads the pages' text, and a note when it is pypdf (and why)."""
    if engine != PYPDF:
        try:
            with pdfium_pages(path, password="" if reader.is_encrypted else None) as texts:
                if texts.page_count() == len(reader.pages):
                    yield texts, ""
                    return
                reason = f"PDFium counts {texts.page_count()} pages, pypdf {len(reader.pages)}"
        except EngineUnavailable as exc:
            if engine == PDFIUM:
                raise InvalidInput(f"{path.name}: {exc}") from exc
            reason = str(exc)
        if engine == PDFIUM:
            raise InvalidInput(f"{path.name}: {reason}")
        yield pypdf_pages(reader), f"text read by pypdf ({reason})"
        return
    yield pypdf_pages(reader), "text read by pypdf (as asked)"


def _open(path: Path) -> Any:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except Exception as exc:
                raise InvalidInput(f"{path.name}: the PDF is encrypted and cannot be opened ({exc})") from exc
            if not opened:
                raise InvalidInput(f"{path.name}: the PDF is encrypted (it needs a password)")
        _ = len(reader.pages)
        return reader
    except InvalidInput:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise InvalidInput(f"{path.name}: not a readable PDF ({_reason(exc)})") from exc
    except Exception as exc:  # pypdf raises many kinds on damaged files
        raise InvalidInput(f"{path.name}: not a readable PDF ({_reason(exc)})") from exc


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else exc.__class__.__name__


def _lines(pages: list[str]) -> tuple[list[str], list[int]]:
    """All lines, with a blank line where a paragraph ends; and the first line of each page."""
    out: list[str] = []
    starts: list[int] = []
    for text in pages:
        starts.append(len(out))
        raw = [line.rstrip() for line in text.splitlines()]
        widths = sorted(len(line.strip()) for line in raw if line.strip())
        usual = widths[int(len(widths) * 0.8)] if widths else 0
        for line in raw:
            stripped = line.strip()
            if not stripped:
                out.append("")
                continue
            out.append(stripped)
            if usual and len(stripped) < 0.8 * usual and _ENDS_SENTENCE.search(stripped):
                out.append("")
    return out, starts


def _metadata(reader: Any, lines: list[str], path: Path) -> tuple[str, list[str]]:
    meta = reader.metadata or {}
    title = str(meta.get("/Title") or "").strip()
    author = str(meta.get("/Author") or "").strip()
    header: dict[str, str] = {}
    for line in lines[:80]:
        match = re.match(r"^\s*(Title|Author):\s*(.+)$", line)
        if match:
            header.setdefault(match.group(1).lower(), match.group(2).strip())
    if ", by " in title:
        title, _, by = title.partition(", by ")
        author = by.strip() or author
    title = header.get("title") or title or path.stem.replace("-", " ").replace("_", " ")
    author = header.get("author") or author
    return title, [author] if author else []


def _outline_entries(reader: Any, lines: list[str], page_starts: list[int]) -> list[OutlineEntry]:
    try:
        outline = reader.outline
    except Exception:
        return []

    def build(items: list[Any]) -> list[OutlineEntry]:
        out: list[OutlineEntry] = []
        for item in items:
            if isinstance(item, list):
                if out:
                    out[-1].children.extend(build(item))
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:
                continue
            if page is None or not 0 <= page < len(page_starts):
                continue
            title = str(getattr(item, "title", "") or "").strip()
            out.append(OutlineEntry(title=title, start=_find_title(lines, page_starts, page, title)))
        return out

    entries = build(list(outline or []))
    return entries if sum(1 + len(e.children) for e in entries) >= 2 else []


def _find_title(lines: list[str], page_starts: list[int], page: int, title: str) -> int:
    """The line on the page where the bookmark's title is printed, else the page's first line."""
    first = page_starts[page]
    last = page_starts[page + 1] if page + 1 < len(page_starts) else len(lines)
    want = re.sub(r"\W+", " ", title).strip().lower()
    if want:
        for i in range(first, last):
            if re.sub(r"\W+", " ", lines[i]).strip().lower().startswith(want[:40]):
                return i
    return first
