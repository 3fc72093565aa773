"""Refusals that happen before a rule is stored: hidden characters, HTML comments, length.

Such text could say one thing to the person reviewing it and another to the agent reading it,
so it is refused outright rather than screened.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from lore.core.errors import InvalidInput

MAX_RULE_CHARS = 500
MAX_TITLE_CHARS = 120
MAX_TRIGGER_CHARS = 40


_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def hidden_character(text: str) -> tuple[int, str] | None:
    """Position and code point of the first invisible character, if any.

    Invisible by Unicode's own account: format, unassigned and private-use code points, the
    default-ignorable ones (variation selectors, the tag block, U+034F, ...), and letters drawn
    as nothing (Hangul fillers, the braille blank), found by property and name rather than
    listed one by one."""
    if text.isascii():  # fast path: only control characters can hide in ASCII
        found = _ASCII_CONTROL.search(text)
        return (found.start(), found.group()) if found else None
    # the gate's normalisation builds its tables at import: loaded only for non-ASCII text
    from lore.rules.gate.confusables import blank_looking, ignorable

    for i, ch in enumerate(text):
        if ch in "\n\t" or _part_of_emoji(text, i):
            continue
        cat = unicodedata.category(ch)
        if (
            cat in ("Cf", "Cn", "Co")  # format, unassigned and private-use code points
            or ignorable(ch)
            or blank_looking(ch)
            or "\U000e0100" <= ch <= "\U000e01ef"
            or (cat == "Cc" and ch != "\r")
        ):
            return i, ch
    return None


def _part_of_emoji(text: str, i: int) -> bool:
    """A variation selector after a symbol (the one in ⚠️), or a joiner between two symbols.

    These are how emoji are written, and a symbol is visible, so nothing hides behind them.
    """
    ch = text[i]
    before = text[i - 1] if i else ""
    if ch in "\ufe0e\ufe0f":
        return bool(before) and unicodedata.category(before) in ("So", "Sk")
    if ch == "\u200d":
        prev = text[i - 2] if before in "\ufe0e\ufe0f" and i >= 2 else before
        after = text[i + 1] if i + 1 < len(text) else ""
        return (
            bool(prev and after)
            and unicodedata.category(prev) == "So"
            and (unicodedata.category(after) == "So")
        )
    return False


def refusal_reason(text: str) -> str | None:
    """Why a text may not become (part of) a rule, or None when it may."""
    if not text.strip():
        return "the rule text is empty"
    found = hidden_character(text)
    if found:
        pos, ch = found
        name = unicodedata.name(ch, "UNNAMED")
        return (
            f"the text contains a hidden character U+{ord(ch):04X} ({name}) at position {pos}; "
            "rules must read the same to people and agents"
        )
    if "<!--" in text:
        return "the text contains an HTML comment, which an agent reads but a person does not see"
    if len(text) > MAX_RULE_CHARS:
        return (
            f"the text is {len(text)} characters; a rule holds at most {MAX_RULE_CHARS}, "
            "so split it into smaller rules"
        )
    return None


def check_rule_fields(text: str, title: str = "", triggers: Iterable[str] = ()) -> None:
    """Raise InvalidInput with the reason when any part of a rule must be refused.

    Titles and trigger words are shown to agents too (in left-out lists and search results),
    so they get the same refusals plus one line each: a newline there could forge a rule line.
    """
    reason = refusal_reason(text)
    if reason:
        raise InvalidInput(f"rule refused: {reason}")
    for label, value, limit in (
        ("title", title, MAX_TITLE_CHARS),
        *(("trigger", t, MAX_TRIGGER_CHARS) for t in triggers),
    ):
        if not value:
            continue
        if found := hidden_character(value):
            raise InvalidInput(f"rule refused: the {label} contains a hidden character U+{ord(found[1]):04X}")
        if "<!--" in value:
            raise InvalidInput(f"rule refused: the {label} contains an HTML comment")
        if "\n" in value or "\r" in value:
            raise InvalidInput(f"rule refused: the {label} must be one line")
        if len(value) > limit:
            raise InvalidInput(f"rule refused: the {label} is longer than {limit} characters")
