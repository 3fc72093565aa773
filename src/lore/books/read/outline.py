"""Choosing the content chapters from a table of contents.

A table of contents mixes chapters with front and back matter (title page, contents, notes,
licence), part title pages that only hold a heading, and sections nested inside a chapter.
The rules, applied level by level:

- matter is recognised by its structural type (`epub:type`), its title, or its text, and dropped;
- a level whose content entries include a substantial leaf is the chapter level: each content
  entry there is one chapter, with its nested sections folded in (the twelve stories of
  *The Adventures of Sherlock Holmes*, one of which lists its parts);
- a level made only of entries with children and little text of their own (parts, or a single
  root entry) is looked through, and its children are chosen the same way;
- an entry marked as a part (`epub:type="part"`, or titled "Part/Book/Volume ...") is always
  looked through.

Every entry knows its span: from its start to the start of the next entry that is not inside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

MATTER_TYPES = frozenset(
    [
        "frontmatter",
        "backmatter",
        "titlepage",
        "halftitlepage",
        "imprint",
        "colophon",
        "copyright-page",
        "toc",
        "landmarks",
        "loi",
        "lot",
        "endnotes",
        "footnotes",
        "rearnotes",
        "notes",
        "dedication",
        "epigraph",
        "acknowledgments",
        "acknowledgements",
        "index",
        "bibliography",
        "glossary",
        "errata",
        "cover",
        "uncopyright",
        "loa",
    ]
)
MATTER_TITLES = re.compile(
    r"^\s*(title\s*page|titlepage|half\s*title|imprint|colophon|uncopyright|copyright|contents|"
    r"table of contents|endnotes|footnotes|notes|dedication|epigraph|acknowledg(e)?ments?|"
    r"about the (author|publisher|book)|also by|index|bibliography|glossary|cover|"
    r"more info|more\.\.\.|license|licence|the full project gutenberg licen[cs]e|"
    r"transcriber'?s? notes?|list of (illustrations|figures|tables))\b",
    re.I,
)
PART_TITLES = re.compile(
    r"^\s*(part|book|volume)\s+([0-9]+|[ivxlcdm]+|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|the\s+\w+|first|second|third)\b",
    re.I,
)
GUTENBERG = re.compile(r"project gutenberg(-tm)? (licen[cs]e|ebook|e-book)|\*\*\* ?(start|end) of th", re.I)


@dataclass
class OutlineEntry:
    """One table-of-contents entry with its span in the book's text stream."""

    title: str
    start: int
    end: int = 0
    types: frozenset[str] = frozenset()
    children: list[OutlineEntry] = field(default_factory=list)


@dataclass
class Choice:
    title: str
    start: int
    end: int


def assign_ends(entries: list[OutlineEntry], stream_end: int) -> None:
    """Each entry ends where the next entry not inside it starts (pre-order, by start)."""
    flat: list[tuple[OutlineEntry, int]] = []

    def walk(nodes: list[OutlineEntry], depth: int) -> None:
        for node in nodes:
            flat.append((node, depth))
            walk(node.children, depth + 1)

    walk(entries, 0)
    for i, (node, depth) in enumerate(flat):
        node.end = stream_end
        for later, later_depth in flat[i + 1 :]:
            if later_depth <= depth and later.start > node.start:
                node.end = later.start
                break
        if node.end < node.start:
            node.end = node.start


def choose_chapters(
    entries: list[OutlineEntry], text_of: Callable[[int, int], str], book_title: str = ""
) -> list[Choice]:
    """The content chapters among the entries, in reading order."""
    words_of = _memo_words(text_of)
    chosen = _choose_level(entries, text_of, words_of, book_title)
    chosen.sort(key=lambda c: c.start)
    return chosen


def _memo_words(text_of: Callable[[int, int], str]) -> Callable[[int, int], int]:
    cache: dict[tuple[int, int], int] = {}

    def words(a: int, b: int) -> int:
        if (a, b) not in cache:
            cache[(a, b)] = len(text_of(a, b).split())
        return cache[(a, b)]

    return words


def is_matter(entry: OutlineEntry, text: str) -> bool:
    """Front or back matter: by structural type, by title, or by text that opens with a licence."""
    if entry.types & MATTER_TYPES and "chapter" not in entry.types:
        return True
    if MATTER_TITLES.match(entry.title):
        return True
    return bool(GUTENBERG.search(text[:1000]))


def _is_part(entry: OutlineEntry) -> bool:
    return "part" in entry.types or ("volume" in entry.types) or bool(PART_TITLES.match(entry.title))


def _own_words(entry: OutlineEntry, words_of: Callable[[int, int], int]) -> int:
    first_child = min((c.start for c in entry.children), default=entry.end)
    return words_of(entry.start, max(entry.start, first_child))


def _choose_level(
    entries: list[OutlineEntry],
    text_of: Callable[[int, int], str],
    words_of: Callable[[int, int], int],
    book_title: str,
) -> list[Choice]:
    content: list[OutlineEntry] = []
    chosen: list[Choice] = []
    for entry in entries:
        if not is_matter(entry, text_of(entry.start, entry.end)):
            content.append(entry)
        elif entry.children:  # a half-title page can hold the whole book
            chosen.extend(_choose_level(entry.children, text_of, words_of, book_title))
    if not content:
        return chosen
    leaf_sizes = [words_of(e.start, e.end) for e in content if not e.children]
    floor = _substantial_floor(leaf_sizes)
    substantial_leaf = any(size >= floor for size in leaf_sizes)
    for entry in content:
        if entry.children and (_is_part(entry) or not substantial_leaf):
            if _own_words(entry, words_of) >= floor and not _is_part(entry):
                chosen.append(Choice(entry.title, entry.start, entry.end))
                continue
            chosen.extend(_choose_level(entry.children, text_of, words_of, book_title))
        elif words_of(entry.start, entry.end) >= floor:
            title_page = _normal(entry.title) == _normal(book_title) and entry is content[0]
            if title_page and len(content) > 2 and words_of(entry.start, entry.end) < 2 * floor:
                continue  # the title page, listed under the book's own name
            chosen.append(Choice(entry.title, entry.start, entry.end))
    return chosen


def _substantial_floor(sizes: list[int]) -> int:
    """Entries smaller than a fifth of the typical one are headings, title pages, epigraphs."""
    if not sizes:
        return 40
    ordered = sorted(sizes)
    median = ordered[len(ordered) // 2]
    return max(20, median // 5)


def _normal(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip()
