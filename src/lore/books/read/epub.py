"""EPUB 2 and 3: metadata from the OPF, chapters from the spine and the table of contents.

The spine's documents are laid end to end as one text stream; every table-of-contents entry
(a file, or an anchor inside a file) becomes a position in it, and `outline.choose_chapters`
decides which entries are chapters. Without a usable table of contents, the spine documents
(or the chapter headings inside them) are the entries.
"""

from __future__ import annotations

import io
import posixpath
import re
import warnings
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lore.books.read.archive import unpack
from lore.books.read.html_text import DocText, html_to_text
from lore.books.read.limits import ReadLimits, finish_chapters, load_limits
from lore.books.read.outline import OutlineEntry, assign_ends, choose_chapters
from lore.books.read.package import check_package
from lore.books.read.parsed import ParsedBook
from lore.books.read.textclean import clean_chapter_text
from lore.core.errors import InvalidInput

OPF_NS = "http://www.idpf.org/2007/opf"
DC_NS = "http://purl.org/dc/elements/1.1/"
FONT_SUFFIXES = (".ttf", ".otf", ".woff", ".woff2")
CHAPTER_HEADING = re.compile(r"^\s*(chapter|chap\.|letter|stave)\s+([0-9]+|[ivxlcdm]+|[a-z]+)\b", re.I)
DOC_SEP = "\n\n"


def read_epub(path: Path, limits: ReadLimits | None = None) -> ParsedBook:
    """Parse an EPUB into metadata and content chapters; a one-line `InvalidInput` if unreadable
    or larger than the limits (the archive is unpacked within them before the parser sees it)."""
    limits = limits or load_limits()
    copy = unpack(path, limits)
    _refuse_encrypted(path, copy)
    package = check_package(path.name, copy)
    book = _open(path, copy)
    docs, left_out = _spine_docs(book, package.missing)
    if not any(d.text.strip() for _, d in docs):
        why = f" ({'; '.join(left_out)})" if left_out else ""
        raise InvalidInput(f"{path.name}: the EPUB has no text{why}")
    stream, offsets = _stream(docs)
    title = _first(book, DC_NS, "title") or path.stem
    entries = _toc_entries(book, docs, offsets)
    notes = ["chapters from the table of contents"]
    chosen = []
    if entries:
        assign_ends(entries, len(stream))
        chosen = choose_chapters(entries, lambda a, b: stream[a:b], title)
    if len(chosen) < 2:
        fallback = _spine_entries(docs, offsets)
        assign_ends(fallback, len(stream))
        alt = choose_chapters(fallback, lambda a, b: stream[a:b], title)
        if len(alt) > len(chosen):
            chosen, notes = alt, ["chapters from the spine and headings"]
    chapters, problems = finish_chapters(
        ((_clean_title(c.title), clean_chapter_text(stream[c.start : c.end])) for c in chosen), limits
    )
    if not chapters:
        raise InvalidInput(f"{path.name}: no chapters with text were found")
    series, index = _series(book)
    return ParsedBook(
        title=title,
        authors=_authors(book),
        format="epub",
        chapters=chapters,
        series=series,
        series_index=index,
        notes=notes,
        warnings=[*left_out, *problems],
    )


def _refuse_encrypted(path: Path, copy: io.BytesIO) -> None:
    try:
        with zipfile.ZipFile(copy) as archive:
            names = set(archive.namelist())
            if "META-INF/encryption.xml" not in names:
                return
            manifest = archive.read("META-INF/encryption.xml").decode("utf-8", errors="replace")
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise InvalidInput(f"{path.name}: not a readable EPUB (corrupt zip: {exc})") from exc
    uris = re.findall(r"CipherReference[^>]*URI=[\"']([^\"']+)", manifest)
    if any(not unquote(u).lower().endswith(FONT_SUFFIXES) for u in uris):
        raise InvalidInput(f"{path.name}: the EPUB is encrypted (DRM); Lore reads only unprotected books")


def _open(path: Path, copy: io.BytesIO) -> Any:
    from ebooklib import epub

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return epub.read_epub(copy, options={"ignore_ncx": False})
    except zipfile.BadZipFile as exc:
        raise InvalidInput(f"{path.name}: not a readable EPUB (corrupt zip: {exc})") from exc
    except epub.EpubException as exc:  # the parser's own refusals say what they found
        reason = str(getattr(exc, "msg", "") or exc).strip().splitlines()
        raise InvalidInput(
            f"{path.name}: not a readable EPUB ({reason[0] if reason else 'damaged'})"
        ) from exc
    except Exception as exc:  # anything else is the parser tripping over a damaged package
        raise InvalidInput(
            f"{path.name}: not a readable EPUB (its package file is damaged in a way Lore cannot read past)"
        ) from exc


def _spine_docs(book: Any, missing: set[str]) -> tuple[list[tuple[str, DocText]], list[str]]:
    """The reading order's documents as text, and a note for each one left out and why (a
    reader of the import summary must know a chapter is not there, and which)."""
    import ebooklib

    docs, left_out = [], []
    for n, (idref, linear) in enumerate(book.spine, start=1):
        if str(linear).lower() == "no":  # outside the reading order by the book's own say
            continue
        item = book.get_item_with_id(idref)
        if item is None:
            left_out.append(f"left out spine item {n} ({idref!r}): the manifest has no such file")
            continue
        name = posixpath.normpath(unquote(item.get_name()))
        why = _unreadable(item, name, missing, ebooklib.ITEM_DOCUMENT)
        if why:
            left_out.append(f"left out spine item {n} ({name}): {why}")
            continue
        docs.append((name, html_to_text(item.get_content())))
    return docs, left_out


def _unreadable(item: Any, name: str, missing: set[str], document: int) -> str:
    """Why a spine item cannot be read as a chapter ("" when it can)."""
    if any(posixpath.normpath(m) == name or m.endswith("/" + name) for m in missing):
        return "listed in the manifest but missing from the archive"
    if item.get_type() != document:
        return f"not an XHTML document ({getattr(item, 'media_type', None) or 'unknown type'})"
    content = getattr(item, "content", b"") or b""  # as stored (get_content re-renders HTML)
    if b"\x00" in content[:65536] and not content.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "binary data, not text"
    return ""


def _stream(docs: list[tuple[str, DocText]]) -> tuple[str, list[int]]:
    parts, offsets, pos = [], [], 0
    for _, doc in docs:
        offsets.append(pos)
        parts.append(doc.text)
        pos += len(doc.text) + len(DOC_SEP)
    return DOC_SEP.join(parts), offsets


def _toc_entries(book: Any, docs: list[tuple[str, DocText]], offsets: list[int]) -> list[OutlineEntry]:
    from ebooklib import epub

    index = {name: i for i, (name, _) in enumerate(docs)}

    def locate(href: str) -> tuple[int, frozenset[str]] | None:
        name, _, fragment = unquote(href or "").partition("#")
        i = index.get(posixpath.normpath(name)) if name else None
        if i is None:
            return None
        doc = docs[i][1]
        if fragment and fragment in doc.anchors:
            return offsets[i] + doc.anchors[fragment], doc.anchor_types.get(fragment, doc.body_types)
        return offsets[i], _doc_types(doc)

    def build(nodes: list[Any]) -> list[OutlineEntry]:
        out: list[OutlineEntry] = []
        for node in nodes:
            children: list[Any] = []
            if isinstance(node, tuple | list) and len(node) == 2:
                node, children = node
            if not isinstance(node, epub.Link | epub.Section):
                continue
            kids = build(list(children))
            where = locate(getattr(node, "href", "") or "")
            if where is None:
                if kids:  # a heading-only section: it starts where its first child does
                    where = (kids[0].start, frozenset())
                else:
                    continue
            out.append(
                OutlineEntry(title=(node.title or "").strip(), start=where[0], types=where[1], children=kids)
            )
        return out

    return build(list(book.toc))


def _doc_types(doc: DocText) -> frozenset[str]:
    first = min(doc.anchor_types, key=lambda k: doc.anchors.get(k, 1 << 30), default=None)
    types = doc.body_types
    if first is not None and doc.anchors.get(first, 1) == 0:
        types = types | doc.anchor_types[first]
    return types


def _spine_entries(docs: list[tuple[str, DocText]], offsets: list[int]) -> list[OutlineEntry]:
    entries: list[OutlineEntry] = []
    for (_, doc), base in zip(docs, offsets, strict=True):
        marks = [(pos, text) for pos, text in doc.headings if CHAPTER_HEADING.match(text)]
        if len(marks) >= 2:
            if marks[0][0] > 0:
                entries.append(OutlineEntry(doc.title, base, types=doc.body_types))
            entries += [OutlineEntry(text, base + pos, types=doc.body_types) for pos, text in marks]
        else:
            title = doc.headings[0][1] if doc.headings else doc.title
            entries.append(OutlineEntry(title, base, types=_doc_types(doc)))
    return entries


def _first(book: Any, ns: str, name: str) -> str:
    values = book.metadata.get(ns, {}).get(name, [])
    for value, _ in values:
        if value and str(value).strip():
            return " ".join(str(value).split())
    return ""


def _authors(book: Any) -> list[str]:
    values = book.metadata.get(DC_NS, {}).get("creator", [])
    return [" ".join(str(v).split()) for v, _ in values if v and str(v).strip()]


def _series(book: Any) -> tuple[str | None, float | None]:
    """EPUB 3 `belongs-to-collection` (type series) or calibre's `calibre:series` meta."""
    metas = book.metadata.get(OPF_NS, {}).get("meta", [])
    collections: dict[str, str] = {}
    refines: dict[str, dict[str, str]] = {}
    calibre: dict[str, str] = {}
    for value, attrs in metas:
        attrs = attrs or {}
        prop = attrs.get("property")
        if prop == "belongs-to-collection":
            collections[attrs.get("id", "")] = " ".join(str(value).split())
        elif prop in ("collection-type", "group-position") and attrs.get("refines"):
            refines.setdefault(attrs["refines"].lstrip("#"), {})[prop] = str(value).strip()
        elif attrs.get("name") in ("calibre:series", "calibre:series_index"):
            calibre[attrs["name"]] = str(attrs.get("content", "")).strip()
    ranked = sorted(
        collections.items(),
        key=lambda kv: {"series": 0, "": 1}.get(refines.get(kv[0], {}).get("collection-type", ""), 2),
    )
    if ranked and refines.get(ranked[0][0], {}).get("collection-type", "") in ("series", ""):
        ident, name = ranked[0]
        return name, _number(refines.get(ident, {}).get("group-position"))
    if calibre.get("calibre:series"):
        return calibre["calibre:series"], _number(calibre.get("calibre:series_index"))
    return None, None


def _number(raw: str | None) -> float | None:
    try:
        return float(raw) if raw not in (None, "") else None
    except ValueError:
        return None


def _clean_title(title: str) -> str:
    return " ".join(title.split()) or "Untitled"
