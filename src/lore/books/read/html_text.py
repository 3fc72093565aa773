"""XHTML to plain text that keeps where every anchor lands.

Chapters in an EPUB often start at an anchor inside a shared file, so the text of a document
comes with a map from element ids to character offsets. Paragraphs are separated by a blank
line, inline whitespace is collapsed, and note references and page-break markers are left out
(they are not part of the prose).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "blockquote",
        "section",
        "article",
        "header",
        "footer",
        "hgroup",
        "table",
        "tr",
        "td",
        "th",
        "pre",
        "figure",
        "figcaption",
        "aside",
        "nav",
        "body",
        "main",
        "address",
        "hr",
        "center",
    ]
)
HEADING_TAGS = frozenset(["h1", "h2", "h3", "h4", "h5", "h6"])
SKIP_TAGS = frozenset(
    ["head", "script", "style", "title", "svg", "math", "object", "audio", "video", "noscript"]
)
VOID_TAGS = frozenset(
    [
        "br",
        "hr",
        "img",
        "meta",
        "link",
        "input",
        "area",
        "base",
        "col",
        "embed",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
SKIP_TYPES = frozenset({"noteref", "pagebreak"})
_WS = re.compile(r"[ \t\n\r\f\v]+")


@dataclass
class DocText:
    """The text of one document, the offset of each element id, and its structural hints."""

    text: str
    anchors: dict[str, int] = field(default_factory=dict)
    anchor_types: dict[str, frozenset[str]] = field(default_factory=dict)
    body_types: frozenset[str] = frozenset()
    headings: list[tuple[int, str]] = field(default_factory=list)
    title: str = ""


def _types(attrs: dict[str, str | None]) -> frozenset[str]:
    raw = attrs.get("epub:type") or attrs.get("role") or ""
    return frozenset(t.split(":")[-1].removeprefix("doc-") for t in raw.split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.length = 0
        self.sep = ""
        self.space = False
        self.stack: list[tuple[str, bool, frozenset[str]]] = []
        self.skip = 0
        self.pending: list[str] = []
        self.anchors: dict[str, int] = {}
        self.anchor_types: dict[str, frozenset[str]] = {}
        self.body_types: frozenset[str] = frozenset()
        self.headings: list[tuple[int, str]] = []
        self.heading_start: int | None = None
        self.title_parts: list[str] = []
        self.in_title = False

    # -- structure ---------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open(tag, dict(attrs), closes=tag in VOID_TAGS)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open(tag, dict(attrs), closes=True)

    def _open(self, tag: str, attrs: dict[str, str | None], closes: bool) -> None:
        types = _types(attrs)
        if tag == "title":
            self.in_title = True
        if tag == "body":
            self.body_types = types
        skipping = tag in SKIP_TAGS or bool(types & SKIP_TYPES)
        if not self.skip:
            ident = attrs.get("id") or (attrs.get("name") if tag == "a" else None)
            if ident:
                self.pending.append(ident)
                inherited = frozenset().union(*(t for _, _, t in self.stack)) if self.stack else frozenset()
                self.anchor_types[ident] = types | inherited | self.body_types
            if tag in BLOCK_TAGS:
                self._block("\n\n")
            elif tag == "br":
                self._block("\n")
            if tag in HEADING_TAGS and self.heading_start is None:
                self.heading_start = self._next_offset()
        if closes:
            if skipping and tag == "title":
                self.in_title = False
            return
        self.stack.append((tag, skipping, types))
        if skipping:
            self.skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if not any(t == tag for t, _, _ in self.stack):
            return  # stray end tag in sloppy HTML
        while self.stack:
            name, skipping, _ = self.stack.pop()
            if skipping:
                self.skip -= 1
            if not self.skip and name in BLOCK_TAGS:
                self._block("\n\n")
            if not self.skip and name in HEADING_TAGS and self.heading_start is not None:
                text = "".join(self.parts)[self.heading_start :].strip()
                if text:
                    self.headings.append((self.heading_start, _WS.sub(" ", text)))
                self.heading_start = None
            if name == tag:
                break

    # -- text ----------------------------------------------------------------------------
    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
        if self.skip:
            return
        s = _WS.sub(" ", data)
        if not s.strip():
            if s and self.length and not self.sep:
                self.space = True
            return
        lead, trail = s[0] == " ", s[-1] == " "
        s = s.strip(" ")
        if self.sep and self.length:
            self._write(self.sep)
        elif (self.space or lead) and self.length and not self.sep:
            self._write(" ")
        self.sep = ""
        for ident in self.pending:
            self.anchors.setdefault(ident, self.length)
        self.pending.clear()
        self._write(s)
        self.space = trail

    def _next_offset(self) -> int:
        return self.length + (len(self.sep) if self.sep and self.length else 0)

    def _block(self, sep: str) -> None:
        if len(sep) > len(self.sep):
            self.sep = sep
        self.space = False

    def _write(self, s: str) -> None:
        self.parts.append(s)
        self.length += len(s)

    def result(self) -> DocText:
        for ident in self.pending:
            self.anchors.setdefault(ident, self.length)
        title = _WS.sub(" ", "".join(self.title_parts)).strip()
        return DocText(
            text="".join(self.parts),
            anchors=self.anchors,
            anchor_types=self.anchor_types,
            body_types=self.body_types,
            headings=self.headings,
            title=title,
        )


def html_to_text(markup: str | bytes) -> DocText:
    """Plain text of an (X)HTML document with anchor offsets; never raises on sloppy markup."""
    if isinstance(markup, bytes):
        markup = _decode(markup)
    builder = _Builder()
    builder.feed(markup)
    builder.close()
    return builder.result()


def _decode(raw: bytes) -> str:
    head = raw[:200].decode("ascii", errors="ignore")
    match = re.search(r"encoding=[\"']([A-Za-z0-9_\-]+)", head)
    for encoding in ([match.group(1)] if match else []) + ["utf-8", "cp1252"]:
        try:
            return raw.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    return raw.decode("utf-8", errors="replace")
