"""Text too long for one rule cut into pieces that fit: between parts, sentences, then words."""

from __future__ import annotations

import re

from lore.rules.gate.validation import MAX_RULE_CHARS

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(\[*_])")


def pack(parts: list[str], sep: str, limit: int = MAX_RULE_CHARS) -> list[str]:
    """Join consecutive parts while they fit in `limit`; a part too long alone is cut at words."""
    chunks: list[str] = []
    buf = ""
    for part in parts:
        for bit in _cut_words(part.strip(), limit):
            if not buf:
                buf = bit
            elif len(buf) + len(sep) + len(bit) <= limit:
                buf += sep + bit
            else:
                chunks.append(buf)
                buf = bit
    if buf:
        chunks.append(buf)
    return chunks


def _cut_words(text: str, limit: int) -> list[str]:
    if len(text) <= limit:
        return [text] if text else []
    out, buf = [], ""
    for word in text.split(" "):
        while len(word) > limit:
            if buf:
                out.append(buf)
                buf = ""
            out.append(word[:limit])
            word = word[limit:]
        if not buf:
            buf = word
        elif len(buf) + 1 + len(word) <= limit:
            buf += " " + word
        else:
            out.append(buf)
            buf = word
    if buf:
        out.append(buf)
    return out


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(" ".join(text.split())) if s]
