"""The titles of imported rules: a heading, then the rule's first words."""

from __future__ import annotations

import re
from functools import lru_cache

from lore.rules.intake.sentences import plain

MAX_TITLE = 120
TITLE_CHARS = 60  # an imported rule's title: its heading and first words

_LEAD_MARK = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)]|#+|>+)\s+")  # a bullet, heading or quote mark
_INLINE_MARKS = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")  # emphasis and code marks, not snake_case


def clean_title(text: str) -> str:
    """A heading or lead-in as a title: markdown marks and a trailing colon removed."""
    text = plain(text).strip().rstrip(":").strip()
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 3].rstrip() + "..."


def rule_title(heading: str, text: str, limit: int = TITLE_CHARS) -> str:
    """The title of an imported rule: its heading, then its first words, so that the rules of one
    section (and of every file's "Testing") can be told apart in a list of titles:
    "Testing: Run pytest before every commit". Empty without a heading (a rule's label is then
    its text)."""
    head = _title_head(heading, limit)
    if not head:
        return ""
    first = _LEAD_MARK.sub("", text.lstrip().split("\n", 1)[0][: 2 * limit])
    first = " ".join(_INLINE_MARKS.sub("", first).split()).rstrip(".")
    room = limit - len(head) - 2
    if not first or room < 12 or first.lower() == head.lower():
        return head
    if len(first) > room:
        first = first[: room - 3].rsplit(" ", 1)[0].rstrip(" ,;:.!?") + "..."
    return f"{head}: {first}"


@lru_cache(maxsize=1024)
def _title_head(heading: str, limit: int) -> str:
    head = clean_title(heading)
    return head if len(head) <= limit // 2 + 10 else head[: limit // 2].rstrip() + "..."
