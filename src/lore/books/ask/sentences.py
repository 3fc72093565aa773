"""A passage's whole sentences, verbatim, for an answer made of the text itself.

A sentence shown as an answer must be one a reader recognises as whole, so the split follows the
book's own structure rather than every full stop:

- paragraphs first (a blank line), so a sentence never runs over a paragraph break, and a
  heading ("CHAPTER III.", "A Caucus-Race and a Long Tale", "V") is a paragraph of its own: a
  short one in which no sentence ends is a heading and is never a sentence;
- inside a paragraph a sentence ends at ".", "!", "?" or "…" (with any closing quote) followed
  by a space, by the rules passages are cut by (`books.passages`: not after an initial ("Enoch
  J. Drebber"), a title or a common abbreviation ("Mr.", "Dr.", "St.", "No."), nor when the
  next word starts in lower case: in “What is it?” asked Holmes. the question and its speaker
  are one sentence);
- a piece that does not end as a sentence ends, or starts in lower case (a passage that starts
  or stops mid-sentence), is not offered.
"""

from __future__ import annotations

import re

from lore.books.passages import OPENING, abbreviated, continues

MIN_WORDS = 3
HEADING_WORDS = 15  # a paragraph this short that does not end as a sentence ends is a heading
_PARAGRAPH = re.compile(r"\n\s*\n")
_BREAK = re.compile(r"[.!?…][”’\"')\]]*\s+")
_ENDS = re.compile(r"[.!?…:—-][”’\"')\]]*$")
_LINE_HEADING = re.compile(r"^(?:(?:CHAPTER|Chapter|BOOK|Book|PART|Part)\s+\S+|[IVXLC]+|\d+)\.?$")


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a passage that hold sentences, whitespace collapsed; headings dropped."""
    out: list[str] = []
    for block in _PARAGRAPH.split(text):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        lines = [line for line in lines if not _LINE_HEADING.match(line)]
        joined = " ".join(" ".join(lines).split())
        if not joined:
            continue
        if not _ENDS.search(joined) and not _BREAK.search(joined) and len(joined.split()) <= HEADING_WORDS:
            continue  # a title line: no sentence ends in it
        out.append(joined)
    return out


def split_paragraph(paragraph: str) -> list[str]:
    """A paragraph's sentences, as written: breaks only where a sentence ends."""
    out: list[str] = []
    start = 0
    for m in _BREAK.finditer(paragraph):
        if abbreviated(paragraph, m.start()) or continues(paragraph[m.end() :]):
            continue  # "Enoch J. Drebber", "Mr. Holmes", "No. 3"; “What is it?” asked Holmes.
        out.append(paragraph[start : m.end()].strip())
        start = m.end()
    out.append(paragraph[start:].strip())
    return [s for s in out if s]


def sentences_of(text: str) -> list[str]:
    """The whole sentences of a passage, in order, verbatim up to whitespace."""
    return [
        s
        for paragraph in paragraphs(text)
        for s in split_paragraph(paragraph)
        if len(s.split()) >= MIN_WORDS and _ENDS.search(s) and not s.lstrip(OPENING)[:1].islower()
    ]
