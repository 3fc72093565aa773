"""Chapters from lines of text (plain-text books and PDFs), found by their headings.

A heading is a short line such as "Chapter 12", "CHAPTER IV. The Rabbit Sends in a Little
Bill" or "Part II". Contents pages list the same headings with no prose between them, so every
heading becomes an outline entry and `outline.choose_chapters` keeps only those followed by a
substantial amount of text; parts and front matter fall away by the same rules as in an EPUB.

A plain-text file sets its headings on lines of their own, a blank line before and after
(`standalone_chapters`): where those rules would leave such a file one chapter (its chapters are
short), each heading with prose after it is a chapter. A heading may carry Markdown's `#` marks.
"""

from __future__ import annotations

import re

from lore.books.read.limits import ReadLimits, finish_chapters
from lore.books.read.outline import Choice, OutlineEntry, assign_ends, choose_chapters
from lore.books.read.parsed import ParsedChapter
from lore.books.read.textclean import clean_chapter_text

NUMBER = r"([0-9]+|[IVXLCDM]+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[a-z]+teen|twenty[\w-]*|thirty[\w-]*|forty[\w-]*|fifty[\w-]*|sixty[\w-]*|seventy[\w-]*|eighty[\w-]*|ninety[\w-]*|hundred[\w-]*)"
MARKS = r"(?:#{1,6}[ \t]+)?"  # a Markdown heading's marks
CHAPTER_LINE = re.compile(rf"^\s*{MARKS}(chapter|chap\.|stave|letter)\s+{NUMBER}\b\.?(.{{0,80}})$", re.I)
PART_LINE = re.compile(rf"^\s*{MARKS}(part|book|volume)\s+{NUMBER}\b\.?(.{{0,80}})$", re.I)
ROMAN_LINE = re.compile(r"^\s*([IVXLC]+)\.?(\s+[A-Z][A-Z0-9 ,.;:'’\-!?]{2,80})?\s*$")
_START = re.compile(r"\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG", re.I)
_END = re.compile(r"\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG|^\s*End of (the )?Project Gutenberg", re.I)


def trim_licence(lines: list[str]) -> list[str]:
    """Drop a Project Gutenberg header (up to its START line) and trailer (from its END line)."""
    start = next((i + 1 for i, line in enumerate(lines) if _START.search(line)), 0)
    end = next((i for i, line in enumerate(lines) if i >= start and _END.search(line)), len(lines))
    return lines[start:end]


def heading_entries(lines: list[str]) -> list[OutlineEntry]:
    """Every chapter or part heading line, as a flat outline (roman numerals if nothing else)."""
    entries = []
    for i, line in enumerate(lines):
        if CHAPTER_LINE.match(line) or PART_LINE.match(line):
            entries.append(OutlineEntry(title=_title(lines, i), start=i))
    if len(entries) < 2:
        entries = [
            OutlineEntry(title=_title(lines, i), start=i)
            for i, line in enumerate(lines)
            if ROMAN_LINE.match(line)
        ]
    return entries


def chapters_from_lines(
    lines: list[str],
    book_title: str = "",
    entries: list[OutlineEntry] | None = None,
    limits: ReadLimits | None = None,
    plain: bool = False,
) -> tuple[list[ParsedChapter], list[str]]:
    """Chapters between headings (or given outline entries whose starts are line numbers), and
    a warning for each chosen chapter cut at the text limit or left out for having no text.
    `plain`: the lines are a plain-text file's, whose standalone headings are trusted."""
    limits = limits or ReadLimits()
    standalone: list[Choice] = []
    if entries is None:
        lines = join_wrapped_headings(lines)
        entries = heading_entries(lines)
        standalone = standalone_chapters(lines) if plain else []
    if entries:
        assign_ends(entries, len(lines))
        chosen = choose_chapters(entries, lambda a, b: " ".join(lines[a:b]), book_title)
        if len(chosen) < 2 and len(standalone) >= 2:
            chosen = standalone
        pieces = (
            (" ".join(c.title.split()), clean_chapter_text(paragraphs(lines[c.start : c.end])))
            for c in chosen
        )
        chapters, warnings = finish_chapters(pieces, limits)
        if chapters:
            return chapters, warnings
    text = paragraphs(lines)
    return finish_chapters([(book_title or "Text", text)] if text else [], limits)


def _heading(line: str) -> bool:
    return bool(CHAPTER_LINE.match(line) or PART_LINE.match(line))


def standalone_chapters(lines: list[str]) -> list[Choice]:
    """Chapters under headings set on lines of their own (a blank line or the file's edge before
    and after), each running to the next such heading. A heading with no prose before the next
    (a contents entry, a part's title over its first chapter) is not a chapter."""

    def blank(i: int) -> bool:
        return i < 0 or i >= len(lines) or not lines[i].strip()

    marks = [i for i, line in enumerate(lines) if _heading(line) and blank(i - 1) and blank(i + 1)]
    chosen = []
    for n, start in enumerate(marks):
        end = marks[n + 1] if n + 1 < len(marks) else len(lines)
        if any(line.strip() and not _heading(line) for line in lines[start + 1 : end]):
            chosen.append(Choice(_title(lines, start), start, end))
    return chosen


_CONNECTOR = re.compile(r"\b(and|the|of|a|an|in|to|with|for|on|at|by|from|or)$", re.I)


def join_wrapped_headings(lines: list[str]) -> list[str]:
    """A heading broken over two lines ("... a Caucus-Race and" / "a Long Tale") made whole."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        match = CHAPTER_LINE.match(line) or PART_LINE.match(line)
        titled = bool(match and match.group(match.lastindex or 0).strip(" .:"))
        short_tail = len(nxt.split()) <= 2 and len(nxt) <= 25 and nxt[:1].isupper()
        if match and titled and nxt and ((_CONNECTOR.search(line.strip()) and len(nxt) <= 50) or short_tail):
            out.append(f"{line.strip()} {nxt}")
            i += 2
            continue
        out.append(line)
        i += 1
    return out


def paragraphs(lines: list[str]) -> str:
    """Blank lines separate paragraphs; a heading line is a paragraph of its own."""
    out: list[str] = []
    current = ""
    for line in lines:
        stripped = line.strip()
        is_heading = bool(CHAPTER_LINE.match(stripped) or PART_LINE.match(stripped))
        if not stripped or is_heading:
            if current:
                out.append(current)
            current = ""
            if is_heading:
                out.append(" ".join(stripped.split()).lstrip("#").strip())
            continue
        stripped = " ".join(stripped.split())
        if not current:
            current = stripped
        elif current.endswith("-") and stripped[:1].islower():
            current += stripped
        else:
            current += " " + stripped
    if current:
        out.append(current)
    return "\n\n".join(out)


def _title(lines: list[str], i: int) -> str:
    title = " ".join(lines[i].split()).lstrip("#").strip()
    if re.fullmatch(rf"(?i)(chapter|chap\.|part|book|volume|stave|letter)\s+{NUMBER}\.?|[IVXLC]+\.?", title):
        for nxt in lines[i + 1 : i + 3]:
            nxt = " ".join(nxt.split())
            if nxt:
                if len(nxt) <= 60 and not nxt.endswith((".", ",", ";")) and nxt[:1].isupper():
                    title = f"{title} {nxt}"
                break
    return title
