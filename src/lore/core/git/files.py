"""The files of a project: what git lists (tracked, plus untracked but not ignored), or a
bounded walk of a folder git does not recognise, so no caller needs a fallback of its own."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from lore.core.git.calls import run

LS_FILES = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]


def ls_files(root: Path, timeout: float = 60.0) -> list[str]:
    """The project's files, relative and sorted: tracked plus untracked-but-not-ignored.

    The one fallback: a folder git does not recognise as a work tree is walked instead (without
    following links, skipping `.git`, at most `WALK_LIMIT` files), so a caller never needs its own.
    """
    result = run(LS_FILES, root, timeout=timeout)
    if result.ok:
        return sorted({p for p in result.stdout.decode("utf-8", "surrogateescape").split("\0") if p})
    return sorted(_walk(root))


WALK_LIMIT = 200_000  # a folder that is not a repository may be a whole home folder


def _walk(root: Path) -> Iterator[str]:
    count = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        base = PurePosixPath(Path(folder).relative_to(root).as_posix())
        for name in sorted(files):
            yield name if str(base) == "." else str(base / name)
            count += 1
            if count >= WALK_LIMIT:
                return
