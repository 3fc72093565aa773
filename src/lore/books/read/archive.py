"""An EPUB's zip, unpacked within limits into a small in-memory copy for the EPUB parser.

The parser (ebooklib) reads every member of the archive whole with `ZipFile.read`, so a member
that inflates to gigabytes is in memory before any code of ours sees it. Instead, this module
reads the central directory first (member count, declared sizes, compression ratios), then
streams each member it needs in chunks while counting what actually comes out (a declared size
can lie), and hands the parser a stored (uncompressed) copy holding only those members.
Images, fonts and media are never inflated: the copy keeps their names with no bytes, which is
all the parser needs from them.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

from lore.books.read.limits import MB, ReadLimits, megabytes, over_limit
from lore.core.errors import InvalidInput

CHUNK = 1 * MB
RATIO_FLOOR = 1 * MB  # a small member may compress far better than a book chapter and harm no one
NOT_TEXT = (
    ".jpg",
    ".jpeg",
    ".png",
    ".gif",
    ".webp",
    ".bmp",
    ".tif",
    ".tiff",
    ".svg",
    ".ttf",
    ".otf",
    ".woff",
    ".woff2",
    ".mp3",
    ".mp4",
    ".m4a",
    ".m4v",
    ".ogg",
    ".oga",
    ".webm",
    ".wav",
    ".css",
    ".js",
    ".pdf",
)


def unpack(path: Path, limits: ReadLimits) -> io.BytesIO:
    """A stored zip with every member the parser reads, or a one-line refusal."""
    book = path.name
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            _check_directory(book, infos, limits)
            copy = io.BytesIO()
            read_total = 0
            with zipfile.ZipFile(copy, "w", zipfile.ZIP_STORED, allowZip64=True) as out:
                for info in infos:
                    if info.is_dir():
                        continue
                    if not _is_text(info.filename):
                        out.writestr(info.filename, b"")
                        continue
                    data = bytearray()
                    for chunk in _stream(archive, info, book, limits, read_total):
                        data += chunk
                        read_total += len(chunk)
                    out.writestr(info.filename, bytes(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError) as exc:
        raise InvalidInput(f"{book}: not a readable EPUB (corrupt zip: {exc})") from None
    except (OSError, RuntimeError) as exc:  # an unreadable file; a member needing a password
        raise InvalidInput(f"{book}: not a readable EPUB ({exc})") from None
    copy.seek(0)
    return copy


def _is_text(name: str) -> bool:
    return not name.lower().endswith(NOT_TEXT)


def _check_directory(book: str, infos: list[zipfile.ZipInfo], limits: ReadLimits) -> None:
    """What the archive says about itself, refused before a byte is inflated."""
    if len(infos) > limits.max_items:
        raise over_limit(book, f"the archive holds {len(infos):,} files", "max_items", limits)
    declared = sum(i.file_size for i in infos)
    if declared > limits.bytes("max_uncompressed_mb"):
        raise over_limit(book, f"the archive unpacks to {megabytes(declared)}", "max_uncompressed_mb", limits)
    for info in infos:
        if info.is_dir() or not _is_text(info.filename):
            continue
        if info.file_size > limits.bytes("max_item_mb"):
            raise over_limit(
                book, f"{info.filename!r} unpacks to {megabytes(info.file_size)}", "max_item_mb", limits
            )
        _check_ratio(book, info, info.file_size, limits)


def _check_ratio(book: str, info: zipfile.ZipInfo, size: int, limits: ReadLimits) -> None:
    if size > RATIO_FLOOR and size > limits.max_compression_ratio * max(info.compress_size, 1):
        ratio = size / max(info.compress_size, 1)
        raise over_limit(
            book,
            f"{info.filename!r} inflates {ratio:,.0f} times (a zip bomb?)",
            "max_compression_ratio",
            limits,
        )


def _stream(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, book: str, limits: ReadLimits, read_before: int
) -> Iterator[bytes]:
    """A member's bytes in chunks, counted as they come out, whatever its header declared."""
    item_cap, total_cap = limits.bytes("max_item_mb"), limits.bytes("max_uncompressed_mb")
    seen = 0
    with archive.open(info) as member:
        while chunk := member.read(CHUNK):
            seen += len(chunk)
            if seen > item_cap:
                raise over_limit(
                    book,
                    f"{info.filename!r} unpacks to more than {megabytes(item_cap)}",
                    "max_item_mb",
                    limits,
                )
            if read_before + seen > total_cap:
                raise over_limit(
                    book,
                    f"the archive unpacks to more than {megabytes(total_cap)}",
                    "max_uncompressed_mb",
                    limits,
                )
            _check_ratio(book, info, seen, limits)
            yield chunk
