"""Which commit last wrote a line: `git blame` of one line, through `lore.core.git`.

Layer 1 stores changes per file, not per line, so a line's story starts from git itself; the
commit found is then looked up in the graph like any other node.
"""

from __future__ import annotations

import re
from pathlib import Path

from lore.core import git
from lore.core.errors import InvalidInput, NotFound
from lore.history.ingest.gitlog import raw_path

_SHA = re.compile(r"^([0-9a-f]{40}) \d+ \d+")


def blame_line(root: str | Path, path: str, line: int) -> str:
    """The sha of the commit that last changed `line` (1-based) of `path` (as stored) at HEAD."""
    if line < 1:
        raise InvalidInput(f"line numbers start at 1, not {line}")
    result = git.run(["blame", "--porcelain", "-L", f"{line},{line}", "HEAD", "--", raw_path(path)], cwd=root)
    if not result.ok:
        raise NotFound(f"cannot blame {path}:{line}: {result.error_line}")
    match = _SHA.match(result.text)
    if match is None:
        raise NotFound(f"git blame gave no commit for {path}:{line}")
    return match.group(1)
