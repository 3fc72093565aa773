"""Which reader a file needs, decided by its first bytes; plain text also by its name (a .docx
that happens to decode as text is not a book)."""

from __future__ import annotations

import re
from pathlib import Path

from lore.books.read.limits import ReadLimits, load_limits, megabytes, over_limit
from lore.books.read.lines import CHAPTER_LINE, PART_LINE, chapters_from_lines, trim_licence
from lore.books.read.parsed import ParsedBook
from lore.core.errors import InvalidInput, NotFound

TEXT_SUFFIXES = {".txt", ".text", ".md", ""}


def read_book(path: Path, limits: ReadLimits | None = None) -> ParsedBook:
    """A parsed book from an EPUB, PDF or plain-text file; one-line `InvalidInput` when unusable
    or over the limits of `books.*` in config.json (see `limits`)."""
    path = Path(path)
    if path.is_dir():
        raise InvalidInput(f"{path} is a folder: name one book file (EPUB, PDF or plain text)")
    if not path.is_file():
        raise NotFound(f"no such file: {path}")
    size = path.stat().st_size
    if size == 0:
        raise InvalidInput(f"{path.name}: the file is empty")
    limits = limits or load_limits()
    with path.open("rb") as handle:
        head = handle.read(8)
    if head.startswith(b"%PDF"):
        from lore.books.read.pdf import read_pdf

        return read_pdf(path, limits)
    if head.startswith(b"PK") or path.suffix.lower() == ".epub":
        from lore.books.read.epub import read_epub

        return read_epub(path, limits)
    if path.suffix.lower() == ".pdf":
        raise InvalidInput(f"{path.name}: not a readable PDF (no PDF header)")
    if path.suffix.lower() not in TEXT_SUFFIXES:
        raise InvalidInput(
            f"{path.name}: not a book Lore can read (EPUB, PDF, or plain text named"
            " .txt, .text, .md or without an extension)"
        )
    return read_text(path, limits)


def read_text(path: Path, limits: ReadLimits | None = None) -> ParsedBook:
    limits = limits or load_limits()
    size = path.stat().st_size
    if size > limits.bytes("max_uncompressed_mb"):
        raise over_limit(path.name, f"the file is {megabytes(size)}", "max_uncompressed_mb", limits)
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise InvalidInput(f"{path.name}: not a book Lore can read (binary data; use EPUB, PDF or text)")
    text = _decode(raw).replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    header = dict(
        (m.group(1).lower(), m.group(2).strip())
        for line in lines[:60]
        if (m := re.match(r"^\s*(Title|Author):\s*(.+)$", line))
    )
    body = trim_licence(lines)
    opening = [line.strip() for line in body[:12] if line.strip()][:2]
    title = header.get("title") or (opening[0] if opening and _title_like(opening[0]) else "")
    title = title or path.stem.replace("-", " ").replace("_", " ").strip() or "Untitled"
    author = header.get("author")
    if not author and len(opening) > 1 and opening[1].lower().startswith("by "):
        author = opening[1][3:].strip()
    chapters, warnings = chapters_from_lines(body, title, limits=limits, plain=True)
    if not chapters:
        raise InvalidInput(f"{path.name}: the file has no text")
    authors = [author] if author else []
    return ParsedBook(
        title=title,
        authors=authors,
        format="text",
        chapters=chapters,
        notes=["chapters from heading lines"],
        warnings=warnings,
    )


def _title_like(line: str) -> bool:
    """A short opening line that is not a chapter or part heading and not a sentence."""
    heading = CHAPTER_LINE.match(line) or PART_LINE.match(line)
    return len(line) <= 80 and not heading and not line.endswith((".", ",", ";"))


def _decode(raw: bytes) -> str:
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")
