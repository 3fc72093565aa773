"""What git's index (`.git/index`) says about where git last ran: whether the file was written by
git on this disk, and when.

The index records, for each tracked file, the inode number and change time (ctime, to the
nanosecond) git saw when it last looked at that file in the work tree. Those are numbers of
this disk that nobody can know before the file lands here, so an index carried inside an
archive names the attacker's disk and matches nothing here; only git running in this work
tree, after the files arrived, writes entries that match. The file is read directly rather
than through git, because git commands that read the index may also rewrite it (and so
launder the very evidence asked about).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

INDEX_HEAD = 256 << 10  # the first 256 KiB: some thousands of entries, enough to find a match
ENTRIES_LOOKED_AT = 512  # entries compared with the work tree, at most
_STAT = 40  # ctime s, ns; mtime s, ns; dev; ino; mode; uid; gid; size: ten 32-bit fields
_EXTENDED = 0x4000


@dataclass(frozen=True)
class IndexWrite:
    """The index file of one git folder: when it was written (its mtime and ctime) and whether
    git wrote it on this disk (`here`: an entry names a work-tree file by its inode and ctime)."""

    mtime: float
    ctime: float
    here: bool


def index_write(folder: Path, worktree: Path, hash_bytes: int = 20) -> IndexWrite | None:
    """The index of git folder `folder`, compared with the files of `worktree`; None when there
    is no readable index in git's format (versions 2 to 4) or it is not a plain file.

    `hash_bytes` is 20 for SHA-1 repositories and 32 for SHA-256 ones.
    """
    path = folder / "index"
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            return None
        with path.open("rb") as handle:
            data = handle.read(INDEX_HEAD)
    except OSError:
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    if version not in (2, 3, 4):
        return None
    count = int.from_bytes(data[8:12], "big")
    here = any(
        _matches(worktree, rel, stat_fields)
        for rel, stat_fields in _entries(data, version, min(count, ENTRIES_LOOKED_AT), hash_bytes)
    )
    return IndexWrite(info.st_mtime, info.st_ctime, here)


def _entries(
    data: bytes, version: int, count: int, hash_bytes: int
) -> Iterator[tuple[str, tuple[int, int, int]]]:
    """(path, (ctime s, ctime ns, ino)) of the first `count` entries that fit in `data`."""
    at = 12
    previous = b""
    for _ in range(count):
        fixed = _STAT + hash_bytes + 2
        if at + fixed > len(data):
            return
        fields = [int.from_bytes(data[at + 4 * i : at + 4 * i + 4], "big") for i in range(6)]
        flags = int.from_bytes(data[at + _STAT + hash_bytes : at + fixed], "big")
        name_at = at + fixed + (2 if version >= 3 and flags & _EXTENDED else 0)
        if version == 4:
            strip, name_at = _varint(data, name_at)
            end = data.find(b"\0", name_at)
            if end < 0 or strip > len(previous):
                return
            name = previous[: len(previous) - strip] + data[name_at:end]
            at = end + 1
        else:
            end = data.find(b"\0", name_at)
            if end < 0:
                return
            name = data[name_at:end]
            at += (name_at - at + len(name) + 8) & ~7  # entries are padded with NULs to 8 bytes
        previous = name
        yield name.decode("utf-8", "replace"), (fields[0], fields[1], fields[5])


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """Git's offset varint (index version 4): the value and where the bytes after it start."""
    if at >= len(data):
        return 1 << 62, at
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        if at >= len(data):
            return 1 << 62, at
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


def _matches(worktree: Path, rel: str, recorded: tuple[int, int, int]) -> bool:
    """Whether the work-tree file `rel` has the inode and ctime the index recorded for it.

    Paths that would leave the work tree or enter a git folder are not looked at."""
    parts = PurePosixPath(rel).parts
    if not parts or rel.startswith("/") or any(p in ("..", ".git", "") for p in parts):
        return False
    try:
        info = os.lstat(worktree.joinpath(*parts))
    except (OSError, ValueError):
        return False
    seconds, nanos, inode = recorded
    ctime_ns = info.st_ctime_ns
    return (
        inode == info.st_ino & 0xFFFFFFFF
        and seconds == (ctime_ns // 1_000_000_000) & 0xFFFFFFFF
        and nanos == ctime_ns % 1_000_000_000
    )
