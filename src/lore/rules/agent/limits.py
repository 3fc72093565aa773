"""What a tool call may ask for: the volume caps and the checks of paths and get_rules inputs,
refused before any work is done.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lore.core.errors import InvalidInput
from lore.rules.serve.selection import MIN_MAX_TOKENS, check_task

# Volume caps: one call is one change; anything bigger is a mistake or an attack, refused
# before any work is done (see docs/rules.md, "MCP server").
MAX_PATHS = 2_000
MAX_RULES_PER_CALL = 200
MAX_PATH_BYTES = 4_096
MAX_NAME_BYTES = 255  # one path component, the common file-system limit


def check_request(task: str | None, max_tokens: int | None) -> None:
    """The get_rules inputs that can be refused, checked before anything is recorded."""
    check_task(task)
    if max_tokens is not None and max_tokens < MIN_MAX_TOKENS:
        raise InvalidInput(f"max_tokens must be at least {MIN_MAX_TOKENS} (got {max_tokens})")


def _shown(value: str, limit: int = 80) -> str:
    """A caller's value quoted back in an error, cut short: a reply never echoes a whole input."""
    return repr(value if len(value) <= limit else value[:limit] + "...")


def check_paths(paths: Sequence[str]) -> None:
    """Refuse paths no file system would take, before touching one (an OSError is no answer)."""
    if len(paths) > MAX_PATHS:
        raise InvalidInput(f"{len(paths)} paths given; at most {MAX_PATHS} per call")
    for raw in paths:
        if "\x00" in raw:
            raise InvalidInput("a path contains a NUL character")
        try:
            size = len(raw.encode("utf-8"))
        except UnicodeEncodeError:
            raise InvalidInput("a path is not valid text (a lone surrogate)") from None
        if size > MAX_PATH_BYTES:
            raise InvalidInput(f"a path is longer than {MAX_PATH_BYTES} bytes")
        for part in re.split(r"[\\/]", raw):
            if len(part.encode("utf-8")) > MAX_NAME_BYTES:
                raise InvalidInput(f"a path component is longer than {MAX_NAME_BYTES} bytes: {part[:40]}...")
