"""Trimming what is not the book from a chapter: the Project Gutenberg header and trailer."""

from __future__ import annotations

import re

_START = re.compile(r"\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG[^\n]*", re.I)
_END = re.compile(
    r"(\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG|End of (the )?Project Gutenberg'?s?\b|"
    r"End of this Project Gutenberg)",
    re.I,
)


def clean_chapter_text(text: str) -> str:
    """The chapter without a licence header before it or a licence trailer after it."""
    start = _START.search(text)
    if start:
        text = text[start.end() :]
    end = _END.search(text)
    if end:
        text = text[: end.start()]
    return text.strip()
