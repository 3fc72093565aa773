"""Small real books for tests: EPUB 2/3 packages written with zipfile, PDFs written by hand.

The prose is generated so that each chapter says which chapter it is and names people whose
first appearance is known ("Clara Vane" first appears in chapter 3), which lets tests check
chapter order, offsets and the reader's cap against facts rather than against snapshots.
"""

from __future__ import annotations

import html
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

FILLER = [
    "The rain kept on against the windows of the old house while the clocks ticked in the hall.",
    "Nobody in the village could remember a winter as long or as grey as this one had been.",
    "A cart rattled past on the lane, and the dogs in the yard barked until it was gone.",
    "The lamps were lit early, and the smell of wet wool and coal smoke filled every room.",
    "Letters came twice a day, though most of them were bills and notices of little interest.",
    "The garden wall had fallen in two places, and the ivy was slowly pulling down the rest.",
]


@dataclass
class Chapter:
    title: str
    paragraphs: list[str]


@dataclass
class BookSpec:
    title: str = "The Vane Inheritance"
    author: str = "Ada Example"
    chapters: list[Chapter] = field(default_factory=list)


def prose_chapter(n: int, extra: list[str] | None = None, paragraphs: int = 4) -> Chapter:
    """A chapter of plain prose that states its own number, plus any extra sentences."""
    paras = [f"This is the opening of chapter {n}, and Mr. Arthur Penrose walked out alone."]
    for p in range(paragraphs):
        sentences = [FILLER[(n + p + k) % len(FILLER)] for k in range(3)]
        paras.append(" ".join(sentences))
    paras += extra or []
    paras.append(f"So ended chapter {n} of the story.")
    return Chapter(title=f"Chapter {n}", paragraphs=paras)


def mystery_book(chapters: int = 5) -> BookSpec:
    """Penrose throughout; Clara Vane first named in chapter 3; the poisoner revealed in 5,
    where the veiled woman of chapter 2 turns out to be Clara Vane."""
    extras: dict[int, list[str]] = {
        1: ["Penrose lived at Thornfield Lodge with his sister, Mrs. Edith Marlow."],
        2: [
            "Penrose spoke with Inspector Gideon Hale about the missing silver teapot.",
            "A veiled woman was seen near the lodge at midnight, and then she was gone.",
        ],
        3: [
            "That evening Clara Vane arrived from Paris with a single trunk.",
            "Clara Vane and Penrose argued in the library about the teapot.",
        ],
        4: ["Inspector Hale searched the cellar and found only dust and broken bottles."],
        5: [
            "It was Clara Vane who had poisoned the old colonel with arsenic in his tea.",
            "Hale arrested her at the station before the evening train.",
            "The veiled woman had been Clara Vane herself, as Hale had suspected.",
        ],
    }
    return BookSpec(chapters=[prose_chapter(n, extras.get(n)) for n in range(1, chapters + 1)])


# -- EPUB ---------------------------------------------------------------------------------------

CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""


def _xhtml(title: str, body: str, body_type: str = "bodymatter") -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
        f"<head><title>{html.escape(title)}</title></head>"
        f'<body epub:type="{body_type}">{body}</body></html>'
    )


def _chapter_body(ch: Chapter, anchor: str | None = None, section_ids: list[str] | None = None) -> str:
    ident = f' id="{anchor}"' if anchor else ""
    parts = [f"<h2{ident}>{html.escape(ch.title)}</h2>"]
    for i, para in enumerate(ch.paragraphs):
        if section_ids and i in (1, 3):
            parts.append(f'<h3 id="{section_ids[0 if i == 1 else 1]}">Part {1 if i == 1 else 2}</h3>')
        parts.append(f"<p>{html.escape(para)}</p>")
    return "".join(parts)


def make_epub(
    path: Path,
    spec: BookSpec | None = None,
    *,
    version: int = 3,
    layout: str = "files",  # "files": one file per chapter; "anchors": all chapters in one file
    front_matter: bool = True,
    back_matter: bool = True,
    parts: list[tuple[str, int]] | None = None,  # (part title, number of chapters in it)
    nested_sections: bool = False,  # chapter 1 lists two sections of itself in the contents
    series: tuple[str, float] | None = None,
    series_style: str = "epub3",  # "epub3" (belongs-to-collection) or "calibre"
    toc: bool = True,
    encrypted: bool = False,
) -> Path:
    """Write an EPUB package; returns its path."""
    spec = spec or mystery_book()
    files: dict[str, str] = {}
    spine: list[str] = []
    nav: list[tuple[str, str, list]] = []  # (label, href, children)

    if front_matter:
        files["titlepage.xhtml"] = _xhtml("Titlepage", f"<h1>{html.escape(spec.title)}</h1>", "frontmatter")
        files["contents.xhtml"] = _xhtml(
            "Contents", "".join(f"<p>{html.escape(c.title)}</p>" for c in spec.chapters), "frontmatter"
        )
        spine += ["titlepage.xhtml", "contents.xhtml"]
        nav += [("Titlepage", "titlepage.xhtml", []), ("Contents", "contents.xhtml", [])]

    chapter_entries: list[tuple[str, str, list]] = []
    if layout == "anchors":
        body = "".join(_chapter_body(c, anchor=f"ch{i}") for i, c in enumerate(spec.chapters, 1))
        files["book.xhtml"] = _xhtml(spec.title, body)
        spine.append("book.xhtml")
        chapter_entries = [(c.title, f"book.xhtml#ch{i}", []) for i, c in enumerate(spec.chapters, 1)]
    else:
        for i, ch in enumerate(spec.chapters, 1):
            name = f"chapter-{i}.xhtml"
            sections = [f"c{i}s1", f"c{i}s2"] if nested_sections and i == 1 else None
            files[name] = _xhtml(
                ch.title, f'<section epub:type="chapter">{_chapter_body(ch, section_ids=sections)}</section>'
            )
            spine.append(name)
            kids = [(f"Section {k}", f"{name}#c{i}s{k}", []) for k in (1, 2)] if sections else []
            chapter_entries.append((ch.title, name, kids))

    if parts:
        start = 0
        for p, (part_title, count) in enumerate(parts, 1):
            name = f"part-{p}.xhtml"
            files[name] = _xhtml(
                part_title, f'<section epub:type="part"><h1>{html.escape(part_title)}</h1></section>'
            )
            first_chapter = chapter_entries[start][1].split("#")[0]
            spine.insert(spine.index(first_chapter), name)
            nav.append((part_title, name, chapter_entries[start : start + count]))
            start += count
    else:
        nav += chapter_entries

    if back_matter:
        files["endnotes.xhtml"] = _xhtml(
            "Endnotes",
            '<section epub:type="endnotes"><h2>Endnotes</h2><ol><li><p>A note about '
            "the teapot, which was silver.</p></li></ol></section>",
            "backmatter",
        )
        files["colophon.xhtml"] = _xhtml(
            "Colophon", "<p>Set in a plain type by nobody at all.</p>", "backmatter"
        )
        spine += ["endnotes.xhtml", "colophon.xhtml"]
        nav += [("Endnotes", "endnotes.xhtml", []), ("Colophon", "colophon.xhtml", [])]

    manifest = "".join(f'<item id="{_id(n)}" href="{n}" media-type="application/xhtml+xml"/>' for n in files)
    if toc and version == 3:
        files["nav.xhtml"] = _nav_doc(nav)
        manifest += '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
    if toc and version == 2:
        files["toc.ncx"] = _ncx(spec.title, nav)
        manifest += '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
    meta = _series_meta(series, series_style)
    spine_attr = ' toc="ncx"' if toc and version == 2 else ""
    opf = (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package xmlns="http://www.idpf.org/2007/opf" version="{version}.0" unique-identifier="uid">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">'
        f'<dc:identifier id="uid">urn:test:{_id(spec.title)}</dc:identifier>'
        f"<dc:title>{html.escape(spec.title)}</dc:title><dc:creator>{html.escape(spec.author)}</dc:creator>"
        f"<dc:language>en</dc:language>{meta}</metadata>"
        f"<manifest>{manifest}</manifest><spine{spine_attr}>"
        + "".join(f'<itemref idref="{_id(n)}"/>' for n in spine)
        + "</spine></package>"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", CONTAINER)
        if encrypted:
            z.writestr("META-INF/encryption.xml", _ENCRYPTION)
        z.writestr("OEBPS/content.opf", opf)
        for name, text in files.items():
            z.writestr(f"OEBPS/{name}", text)
    return path


_ENCRYPTION = """<?xml version="1.0"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
  xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
  <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
  <enc:CipherData><enc:CipherReference URI="OEBPS/chapter-1.xhtml"/></enc:CipherData></enc:EncryptedData>
</encryption>"""


def _id(name: str) -> str:
    return "i-" + "".join(ch if ch.isalnum() else "-" for ch in name)


def _nav_doc(nav: list[tuple[str, str, list]]) -> str:
    def items(entries: list[tuple[str, str, list]]) -> str:
        out = ""
        for label, href, kids in entries:
            inner = f"<ol>{items(kids)}</ol>" if kids else ""
            out += f'<li><a href="{href}">{html.escape(label)}</a>{inner}</li>'
        return out

    return _xhtml("Contents", f'<nav epub:type="toc" id="toc"><ol>{items(nav)}</ol></nav>', "frontmatter")


def _ncx(title: str, nav: list[tuple[str, str, list]]) -> str:
    counter = [0]

    def points(entries: list[tuple[str, str, list]]) -> str:
        out = ""
        for label, href, kids in entries:
            counter[0] += 1
            out += (
                f'<navPoint id="np{counter[0]}" playOrder="{counter[0]}"><navLabel><text>'
                f'{html.escape(label)}</text></navLabel><content src="{href}"/>{points(kids)}</navPoint>'
            )
        return out

    return (
        '<?xml version="1.0" encoding="utf-8"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" '
        f'version="2005-1"><head/><docTitle><text>{html.escape(title)}</text></docTitle>'
        f"<navMap>{points(nav)}</navMap></ncx>"
    )


def _series_meta(series: tuple[str, float] | None, style: str) -> str:
    if not series:
        return ""
    name, index = series
    if style == "calibre":
        return (
            f'<meta name="calibre:series" content="{html.escape(name)}"/>'
            f'<meta name="calibre:series_index" content="{index}"/>'
        )
    return (
        f'<meta id="c1" property="belongs-to-collection">{html.escape(name)}</meta>'
        '<meta refines="#c1" property="collection-type">series</meta>'
        f'<meta refines="#c1" property="group-position">{index}</meta>'
    )


# -- PDF ----------------------------------------------------------------------------------------


def _pdf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(path: Path, pages: list[list[str]], *, title: str = "", author: str = "") -> Path:
    """A minimal PDF (Helvetica, one text line per entry, blank entries are gaps)."""
    objects: list[bytes] = []

    def add(body: str | bytes) -> int:
        objects.append(body.encode("latin-1") if isinstance(body, str) else body)
        return len(objects)

    catalog = add("")  # filled below
    pages_obj = add("")
    font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    info = add(f"<< /Title ({_pdf_escape(title)}) /Author ({_pdf_escape(author)}) >>")
    kids = []
    for lines in pages:
        stream = (
            "BT /F1 11 Tf 14 TL 60 760 Td "
            + " ".join(f"({_pdf_escape(line)}) Tj T*" for line in lines)
            + " ET"
        )
        data = stream.encode("latin-1")
        content = add(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
        kids.append(
            add(
                f"<< /Type /Page /Parent {pages_obj} 0 R /MediaBox [0 0 612 792] "
                f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>"
            )
        )
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {pages_obj} 0 R >>".encode()
    objects[pages_obj - 1] = (
        f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>"
    ).encode()
    out = pdf_file(objects, b"/Root %d 0 R /Info %d 0 R" % (catalog, info))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))
    return path


def wrap(text: str, width: int = 80) -> list[str]:
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    if current:
        lines.append(current)
    return lines


def book_pdf_pages(spec: BookSpec, contents_page: bool = True) -> list[list[str]]:
    """Pages for a book: a title page with a contents list, then one page per chapter."""
    pages = []
    if contents_page:
        pages.append([spec.title, f"By {spec.author}", "", "Contents", *[c.title for c in spec.chapters]])
    for ch in spec.chapters:
        lines = [ch.title, ""]
        for para in ch.paragraphs:
            lines += [*wrap(para), ""]
        pages.append(lines)
    return pages


def add_outline(src: Path, dst: Path, entries: list[tuple[str, int]]) -> Path:
    """A copy of a PDF with bookmarks (title, 0-based page)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(str(src)))
    for title, page in entries:
        writer.add_outline_item(title=title, page_number=page)
    with dst.open("wb") as handle:
        writer.write(handle)
    return dst


def encrypt_pdf(src: Path, dst: Path, password: str = "secret") -> Path:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(str(src)))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    with dst.open("wb") as handle:
        writer.write(handle)
    return dst


def book_text(spec: BookSpec) -> str:
    """The book as a plain-text file with chapter headings and hard-wrapped paragraphs."""
    parts = [spec.title.upper(), "", f"by {spec.author}", ""]
    for ch in spec.chapters:
        parts += ["", ch.title.upper(), ""]
        for para in ch.paragraphs:
            parts += [*wrap(para, 70), ""]
    return "\n".join(parts)


def pdf_file(objects: list[bytes], trailer: bytes) -> bytes:
    """Numbered objects written as a PDF file: header, bodies, cross-reference table, trailer
    (`trailer` holds the entries after /Size, such as `/Root 1 0 R`)."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)
    return bytes(out)
