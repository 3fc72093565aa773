"""Hostile book files made in the test: zips that inflate far past their size or lie about it,
and PDFs whose pages all draw one huge content stream."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from support.books import make_epub, pdf_file

MB = 1024 * 1024
_LINE = b"<p>" + (b"all work and no play " * 50_000)[: MB - 8] + b"</p>\n"  # 1 MB, one sentence


def epub_with_members(path: Path, members: dict[str, int]) -> Path:
    """A real EPUB (chapters and all) whose members named in `members` (an existing chapter such
    as `OEBPS/chapter-1.xhtml`, or new ones) inflate to the given sizes in MB. They are streamed
    into the zip, so the test never holds them in memory."""
    plain = make_epub(path.with_suffix(".plain.epub"))
    with (
        zipfile.ZipFile(plain) as src,
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out,
    ):
        for info in src.infolist():
            if info.filename not in members:
                out.writestr(info, src.read(info))
        for name, size_mb in members.items():
            with out.open(name, "w") as member:
                member.write(b'<html xmlns="http://www.w3.org/1999/xhtml"><body>')
                for _ in range(size_mb):
                    member.write(_LINE)
                member.write(b"</body></html>")
    plain.unlink()
    return path


def lie_about_size(path: Path, name: str, declared: int) -> None:
    """Rewrite a member's uncompressed size in its local and central headers (no zip64)."""
    data = bytearray(path.read_bytes())
    raw = name.encode()
    for signature, size_at, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        start = 0
        while (at := data.find(signature, start)) != -1:
            length = struct.unpack_from("<H", data, at + name_at - (4 if signature == b"PK\x03\x04" else 18))[
                0
            ]
            if data[at + name_at : at + name_at + length] == raw:
                struct.pack_into("<I", data, at + size_at, declared)
            start = at + 4
    path.write_bytes(bytes(data))


def shared_stream_pdf(
    path: Path,
    pages: int,
    stream_mb: float,
    text: str = "Shared words on every page",
    packed: bytes | None = None,
) -> Path:
    """A PDF whose pages all use one FlateDecode content stream of `stream_mb` decoded MB (or
    the given `packed` bytes, which need not be valid Flate data)."""
    if packed is None:
        body = f"BT /F1 11 Tf 60 760 Td ({text}) Tj ET\n".encode()
        packed = zlib.compress(body + b"q Q\n" * int(stream_mb * MB / 4), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Font << /F1 3 0 R >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
    ]
    first_page = len(objects) + 1
    kids = []
    for i in range(pages):
        kids.append(f"{first_page + i} 0 R")
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 4 0 R /Contents 5 0 R >>"
        )
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {pages} >>".encode()
    out = pdf_file(objects, b"/Root 1 0 R")
    path.write_bytes(bytes(out))
    return path
