"""What a repository's git folder holds, read as files rather than through git: HEAD's reflog
(who moved HEAD, when and why) and where a loose object is stored.

Read directly because git refuses entries naming objects that do not exist (as forged ones
may), and because the question about an object is which file on this disk holds it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lore.core.git.repository import git_dir

REFLOG_TAIL = 256 << 10  # the newest 256 KiB (over a thousand lines): recent evidence is enough


@dataclass(frozen=True)
class ReflogEntry:
    """One line of `logs/HEAD`: who moved HEAD, when (seconds), and git's note on why."""

    old: str
    new: str
    name: str
    email: str
    at: int
    message: str

    @property
    def action(self) -> str:
        """`commit`, `commit (initial)`, `clone`, `checkout`, `rebase (finish)` ..."""
        return self.message.partition(":")[0].strip()


def reflog(root: Path) -> list[ReflogEntry]:
    """HEAD's reflog of the work tree at `root`, oldest first (see `read_reflog`)."""
    folder = git_dir(root)
    return [] if folder is None else read_reflog(folder)


def read_reflog(folder: Path) -> list[ReflogEntry]:
    """HEAD's reflog in a git folder, oldest first; lines that are not git's format are skipped.

    Read as a file rather than through `git log -g`, which fails on entries naming objects
    that do not exist (as forged ones may)."""
    path = folder / "logs" / "HEAD"
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - REFLOG_TAIL))
            data = handle.read()
    except OSError:
        return []
    if size > REFLOG_TAIL:
        data = data.partition(b"\n")[2]  # drop the partial first line
    entries = []
    for raw in data.decode("utf-8", "replace").splitlines():
        entry = _reflog_line(raw)
        if entry is not None:
            entries.append(entry)
    return entries


def _reflog_line(line: str) -> ReflogEntry | None:
    head, _, message = line.partition("\t")
    parts = head.split(" ", 2)
    if len(parts) != 3 or len(parts[0]) < 40 or len(parts[1]) < 40:
        return None
    ident = parts[2]
    lt, gt = ident.rfind("<"), ident.rfind(">")
    when = ident[gt + 1 :].split()
    if lt < 0 or gt < lt or not when or not when[0].isdigit():
        return None
    return ReflogEntry(
        old=parts[0],
        new=parts[1],
        name=ident[:lt].strip(),
        email=ident[lt + 1 : gt].strip(),
        at=int(when[0]),
        message=message.strip(),
    )


# -- where an object is stored ---------------------------------------------------------------------
def loose_object(objects: Path, sha: str) -> Path | None:
    """The loose file of object `sha` in one objects folder, or None (packed, or absent here;
    alternates are not followed).

    Read directly, not through git: the question is which file on this disk holds the object,
    since its change time says when it was written here.
    """
    sha = sha.lower()
    if len(sha) not in (40, 64) or any(c not in "0123456789abcdef" for c in sha):
        return None
    path = objects / sha[:2] / sha[2:]
    return path if path.is_file() else None
