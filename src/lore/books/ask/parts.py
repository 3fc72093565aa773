"""Splitting a question into the parts that need answering.

"Who is Irene Adler and why does the King want the photograph?" asks two things; searched as
one, the passages about either half crowd out the other. A question splits at a question mark
followed by more text, and at "and" or a semicolon when what follows starts a new question
(a question word), so "Holmes and Watson" stays whole.
"""

from __future__ import annotations

import re

STARTS = r"(?:who|whom|whose|what|which|when|where|why|how|does|do|did|is|are|was|were|can|could)"
_SPLIT = re.compile(rf"\?\s+(?=\S)|;\s*|,?\s+and\s+(?={STARTS}\b)", re.I)
MAX_PARTS = 3


def split_question(question: str) -> list[str]:
    """The question's parts, in order (the whole question when it asks one thing)."""
    text = " ".join(question.split())
    pieces = [p.strip(" ,;") for p in _SPLIT.split(text)]
    parts = [(p if p.endswith("?") else p + "?") for p in pieces if len(p.split()) >= 2]
    parts = [p[0].upper() + p[1:] for p in parts]
    if len(parts) <= 1:
        return [text] if text else []
    return parts[:MAX_PARTS]
