"""A malformed EPUB is one line saying what is wrong with the file (exit 2), and a chapter the
reader cannot read is left out with a note naming it and why, in the add output and its JSON.
Every EPUB here is a zip written by the test."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.books import library
from lore.cli.app import app

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

runner = CliRunner()
CONTAINER = (
    '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
    '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
    "</rootfiles></container>"
)
META = '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Three Letters</dc:title></metadata>'
MANIFEST = (
    "<manifest>"
    + "".join(f'<item id="c{n}" href="c{n}.xhtml" media-type="application/xhtml+xml"/>' for n in (1, 2, 3))
    + "</manifest>"
)
SPINE = "<spine>" + "".join(f'<itemref idref="c{n}"/>' for n in (1, 2, 3)) + "</spine>"


def _chapter(n: int) -> str:
    prose = "".join(
        f"<p>Letter {n}, paragraph {i}: the rain kept on, and Mary wrote again to her brother.</p>"
        for i in range(25)
    )
    return f'<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Chapter {n}</h1>{prose}</body></html>'


def _opf(meta: str = META, manifest: str = MANIFEST, spine: str = SPINE) -> str:
    return f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">{meta}{manifest}{spine}</package>'


def _epub(path: Path, files: dict[str, str | bytes], container: str | None = CONTAINER) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        if container is not None:
            archive.writestr("META-INF/container.xml", container)
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def _chapters(**replace: str | bytes | None) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {f"OEBPS/c{n}.xhtml": _chapter(n) for n in (1, 2, 3)}
    for name, data in replace.items():
        files.pop(f"OEBPS/{name}.xhtml")
        if data is not None:
            files[f"OEBPS/{name}.xhtml"] = data
    return files


@pytest.mark.parametrize(
    ("opf", "container", "says"),
    [
        (_opf(spine=""), CONTAINER, "has no <spine>"),
        (_opf(manifest=""), CONTAINER, "has no <manifest>"),
        (_opf(meta=""), CONTAINER, "has no <metadata>"),
        (_opf(spine="<spine></spine>"), CONTAINER, "has an empty <spine>"),
        ("<package><oops", CONTAINER, "not well-formed XML, line 1"),
        (_opf(), None, "META-INF/container.xml is missing"),
        (_opf(), CONTAINER.replace("OEBPS/content.opf", "OEBPS/book.opf"), "'OEBPS/book.opf' named in"),
        (
            _opf(),
            CONTAINER.replace('media-type="application/oebps-package+xml"', ""),
            "names no package file",
        ),
        (_opf(spine=SPINE.replace("<spine>", '<spine toc="ncx">')), CONTAINER, "table of contents ('ncx')"),
    ],
)
def test_a_malformed_package_is_one_line_saying_what_is_wrong(
    tmp_path: Path, opf: str, container: str | None, says: str
) -> None:
    path = _epub(tmp_path / "letters.epub", {"OEBPS/content.opf": opf, **_chapters()}, container)
    result = runner.invoke(app, ["books", "add", str(path)])
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith("error: letters.epub: not a readable EPUB")
    assert says in line
    assert "NoneType" not in line and "object" not in line and "attribute" not in line
    assert library.list_books() == []  # nothing imported


@pytest.mark.parametrize(
    ("opf", "files", "why"),
    [
        (_opf(), _chapters(c2=None), "left out spine item 2 (c2.xhtml): listed in the manifest but missing"),
        (
            _opf(),
            _chapters(c2=bytes(range(256)) * 40),
            "left out spine item 2 (c2.xhtml): binary data, not text",
        ),
        (
            _opf(spine=SPINE.replace('idref="c2"', 'idref="ghost"')),
            _chapters(),
            "left out spine item 2 ('ghost'): the manifest has no such file",
        ),
        (
            _opf(
                manifest=MANIFEST.replace(
                    'href="c2.xhtml" media-type="application/xhtml+xml"',
                    'href="c2.png" media-type="image/png"',
                )
            ),
            {**_chapters(c2=None), "OEBPS/c2.png": b"\x89PNG\r\n"},
            "left out spine item 2 (c2.png): not an XHTML document (image/png)",
        ),
    ],
)
def test_a_chapter_the_reader_cannot_read_is_left_out_with_a_note(
    tmp_path: Path, opf: str, files: dict[str, str | bytes], why: str
) -> None:
    path = _epub(tmp_path / "letters.epub", {"OEBPS/content.opf": opf, **files})
    shown = runner.invoke(app, ["books", "add", str(path)])
    assert shown.exit_code == 0, shown.output
    assert f"Note: {why}" in shown.stdout
    library.remove_book(library.list_books()[0].id)
    added = runner.invoke(app, ["books", "add", str(path), "--json"])
    data = json.loads(added.stdout)
    assert any(why in w for w in data["warnings"]) and data["chapters"] == 2
    chapters = library.open_books().chapter_texts(data["id"])
    assert any("Letter 1," in t for t in chapters) and any("Letter 3," in t for t in chapters)
    assert not any("Letter 2," in t for t in chapters)
