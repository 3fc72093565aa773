"""How much of a book file Lore will unpack, decode and keep, and the refusal when it is more.

A book is outside data, and a small file can stand for an enormous one: a zip member that
inflates a thousandfold, sixty members of 100 MB each, a PDF whose pages all point at one huge
content stream. Every reader checks these bounds *before* doing the work they bound, refuses
with one line that names the limit and the `config.json` setting that raises it, and reports
(never silently drops) a chapter it had to cut or could not fill.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields

from lore.books.read.parsed import ParsedChapter
from lore.core.config import load_settings, number_setting
from lore.core.errors import InvalidInput

MB = 1024 * 1024
SECTION = "books"


@dataclass(frozen=True)
class ReadLimits:
    """Bounds for one import; each field is the `books.<name>` setting of the same name."""

    max_uncompressed_mb: float = 512  # an EPUB's members (declared and read); a text or PDF file
    max_item_mb: float = 64  # one EPUB member that is read (XHTML, OPF, NCX, ...)
    max_compression_ratio: float = 200  # one EPUB member's inflated size / its stored size
    max_items: float = 10_000  # members in an EPUB
    max_chapter_chars: float = 3_000_000  # text kept per chapter (the longest real ones are ~10x less)
    max_pdf_page_mb: float = 32  # decoded content stream of one PDF page
    max_pdf_content_mb: float = 512  # decoded content of all pages together (shared ones count per page)
    max_pdf_seconds: float = 600  # wall clock for a PDF's pages, checked between pages
    max_pdf_page_tokens: float = 1_000_000  # tokens in one page's content (a real page: ~16,000)

    def bytes(self, name: str) -> int:
        return int(getattr(self, name) * MB)


def load_limits() -> ReadLimits:
    """The limits from `config.json` (`{"books": {"max_item_mb": 128}}`), defaults otherwise."""
    section = load_settings().section(SECTION)
    defaults = ReadLimits()
    return ReadLimits(
        **{
            f.name: number_setting(section, SECTION, f.name, getattr(defaults, f.name))
            for f in fields(ReadLimits)
        }
    )


def over_limit(book: str, what: str, setting: str, limits: ReadLimits) -> InvalidInput:
    """The one-line refusal: what was found, the limit, and how to raise it."""
    value = getattr(limits, setting)
    unit = " MB" if setting.endswith("_mb") else (" s" if setting.endswith("_seconds") else "")
    shown = (
        f"{value:g}{unit}"
        if not setting.endswith(("_items", "_chars", "_ratio", "_tokens"))
        else f"{value:,.0f}"
    )
    return InvalidInput(
        f"{book}: {what}, over the limit of {shown}; nothing was imported "
        f"(raise {SECTION}.{setting} in config.json to allow it)"
    )


def megabytes(size: int) -> str:
    return f"{size / MB:,.1f} MB"


def finish_chapters(
    pieces: Iterable[tuple[str, str]], limits: ReadLimits
) -> tuple[list[ParsedChapter], list[str]]:
    """Chapters from (title, cleaned text) pairs, with a warning for each one cut or left empty.

    A chapter longer than `max_chapter_chars` keeps its beginning, cut at a paragraph (or at
    least a word) boundary; one whose text came out empty is left out. Both are said in the
    import summary, so a reader knows what the library holds.
    """
    cap = int(limits.max_chapter_chars)
    chapters: list[ParsedChapter] = []
    warnings: list[str] = []
    for title, text in pieces:
        if not text.strip():
            warnings.append(f"chapter “{title}” has no text and was left out")
            continue
        if len(text) > cap:
            cut = text.rfind("\n\n", 0, cap + 1)
            if cut < cap * 0.9:
                cut = max(text.rfind(" ", 0, cap + 1), 0) or cap
            warnings.append(
                f"chapter {len(chapters) + 1} “{title}” was cut at {cut:,} of {len(text):,} characters"
                f" ({SECTION}.max_chapter_chars is {cap:,})"
            )
            text = text[:cut].rstrip()
        chapters.append(ParsedChapter(title=title, text=text))
    return chapters, warnings
