"""An EPUB's package checked before the parser reads it, so a malformed book gets one line that
says what is wrong with the file, and a chapter that cannot be read is left out with a note.

The parser (ebooklib) fails on a damaged package with whatever Python error its code meets
first ("'NoneType' object is not iterable" for an OPF without a spine). These checks follow the
path it takes (container, package file, metadata, manifest, spine, the EPUB 2 table of
contents) and name the first thing missing or unreadable. A file the manifest lists but the
archive lacks does not stop the book: an empty stand-in is put in the parser's copy, and a
chapter that was such a file is left out with a note (`Package.missing`).
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from lore.core.errors import InvalidInput

CONTAINER = "META-INF/container.xml"
PACKAGE_TYPE = "application/oebps-package+xml"


@dataclass
class Package:
    """What the checks found that the chapter reader needs to explain what it leaves out."""

    path: str  # the package (OPF) file inside the archive
    missing: set[str] = field(default_factory=set)  # manifest files absent from the archive


def check_package(book: str, copy: io.BytesIO) -> Package:
    """The package of the EPUB in `copy` (the parser's stored copy), or one `InvalidInput` line
    naming what is wrong; stand-ins for files the manifest lists and the archive lacks."""
    with zipfile.ZipFile(copy) as archive:
        names = set(archive.namelist())
        if CONTAINER not in names:
            raise _bad(book, f"{CONTAINER} is missing, so nothing says where the book's package file is")
        container, broken = _xml(book, archive.read(CONTAINER), CONTAINER)
        opf_path = _package_path(book, container, broken)
        if opf_path not in names:
            raise _bad(book, f"the package file {opf_path!r} named in {CONTAINER} is not in the archive")
        root, broken = _xml(book, archive.read(opf_path), opf_path)
    for part in ("metadata", "manifest", "spine"):
        if _child(root, part) is None:
            raise _bad(book, f"the package file {opf_path!r} has no <{part}>{broken}")
    items = _manifest(root, posixpath.dirname(opf_path))
    spine = _child(root, "spine")
    if not [el for el in spine if _local(el) == "itemref"]:
        raise _bad(book, f"the package file {opf_path!r} has an empty <spine> (no reading order)")
    toc = spine.get("toc")
    if toc:
        ncx = items.get(toc)
        if ncx is None or ncx not in names:
            raise _bad(book, f"the table of contents ({ncx or toc!r}) named by the spine is missing")
    missing = {href for href in items.values() if href not in names}
    if missing:
        copy.seek(0, io.SEEK_END)
        with zipfile.ZipFile(copy, "a") as archive:
            for href in sorted(missing):
                archive.writestr(href, b"")
    copy.seek(0)
    return Package(opf_path, missing)


def _bad(book: str, what: str) -> InvalidInput:
    return InvalidInput(f"{book}: not a readable EPUB: {what}")


def _xml(book: str, data: bytes, name: str) -> tuple[Any, str]:
    """The root element, parsed as the EPUB parser parses (forgiving, no entities, no network),
    and the first fatal XML error it got past (" (not well-formed XML, line N: ...)", or ""),
    to explain a part found missing after it."""
    from lxml import etree  # type: ignore[import-untyped]  # ebooklib's own parser, installed with it

    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(data, parser=parser) if data.strip() else None
    except etree.XMLSyntaxError:
        root = None
    error = next((e for e in parser.error_log if e.level >= etree.ErrorLevels.FATAL), None)
    broken = f" (not well-formed XML, line {error.line}: {error.message})" if error is not None else ""
    if root is None:
        raise _bad(book, f"{name!r} is not XML{broken}")
    return root, broken


def _local(element: Any) -> str:
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _child(root: Any, name: str) -> Any:
    return next((el for el in root if _local(el) == name), None)


def _package_path(book: str, container: Any, broken: str) -> str:
    for element in container.iter():
        typed = _local(element) == "rootfile" and element.get("media-type") == PACKAGE_TYPE
        if typed and element.get("full-path"):
            return posixpath.normpath(unquote(element.get("full-path")))
    raise _bad(book, f"{CONTAINER} names no package file (a <rootfile> of type {PACKAGE_TYPE}){broken}")


def _manifest(root: Any, folder: str) -> dict[str, str]:
    """Manifest ids to their file names inside the archive (as the parser resolves them)."""
    items = {}
    for element in _child(root, "manifest"):
        if _local(element) == "item" and element.get("id") and element.get("href"):
            href = unquote(element.get("href").split("#", 1)[0])
            items[element.get("id")] = posixpath.normpath(posixpath.join(folder, href))
    return items
