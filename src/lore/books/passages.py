"""Passages: a few sentences each, as character offsets into their chapter's text.

`chapter_text[start:end]` is the passage, exactly; every non-blank character of a chapter
belongs to one passage, so evidence can always be quoted from, and pointed back into, the book.
A passage ends at a sentence boundary once it has enough words, preferring a paragraph end.

This module is the one place that says where a sentence may end: a full stop after an initial
("Enoch J. Drebber"), a title or a common abbreviation ("Mr.", "No.", "e.g.") does not end one
(`abbreviated`), and neither does a stop followed by a lower-case word (`continues`: in
“What is it?” asked Holmes. the question and its speaker are one sentence). The answer made of
the text itself (`books.ask.sentences`) splits by the same rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.books.read.parsed import count_words

TARGET_WORDS = 60
MAX_WORDS = 140
# words a full stop follows without ending a sentence: titles and common abbreviations, in any
# case, and those that are abbreviations only when capitalised ("No. 3", but "he said no.")
ABBREVIATIONS = frozenset(
    """
    mr mrs ms messrs mme mlle dr st mt jr sr prof capt col gen lt rev hon sgt maj gov pres
    vol vols ch chap fig p pp vs viz etc ie eg cf esq ald sen rep univ dept est approx inst ult prox
    """.split()
)
CAPITALISED_ABBREVIATIONS = frozenset("Sir No Nos Co Bros Jan Feb Mar Apr Aug Sep Sept Oct Nov Dec".split())
# the word just before a full stop: letters, or dotted letters ("e.g", "i.e", "p.m")
_LAST_WORD = re.compile(r"(?:^|[^A-Za-z.])((?:[A-Za-z]\.)*[A-Za-z]+)$")
# what may stand between a sentence's end and the next word: quotes, brackets, dashes, spaces
OPENING = "“‘\"'([—- \xa0\t"
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]»]*(?=\s+)|\n\n")
_PARA = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def sentences(text: str) -> list[Span]:
    """Sentence spans (stripped of surrounding whitespace) in reading order."""
    spans: list[Span] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end() if match.group() != "\n\n" else match.start()
        if match.group() != "\n\n" and (abbreviated(text, match.start()) or continues(text[match.end() :])):
            continue
        _add(spans, text, start, end)
        start = match.end()
    _add(spans, text, start, len(text))
    return spans


def abbreviated(text: str, dot: int) -> bool:
    """Whether the full stop at `text[dot]` closes an initial ("John H. Watson"; "I." ends a
    sentence), a title or an abbreviation ("Mr.", "No. 3", "e.g.") rather than a sentence."""
    if text[dot] != ".":
        return False
    word = _LAST_WORD.search(text[max(0, dot - 16) : dot])
    if not word:
        return False
    token = word.group(1)
    if "." in token:  # "e.g.", "p.m."; "U.S.A." at a sentence's end ends it
        return token.islower()
    if token.lower() in ABBREVIATIONS or token in CAPITALISED_ABBREVIATIONS:
        return True
    return len(token) == 1 and token.isupper() and token != "I"


def continues(after: str) -> bool:
    """Whether the text after a sentence's stop goes on with a lower-case word, so the sentence
    does too (“Is it?” he asked)."""
    rest = after[:8].lstrip(OPENING)
    return bool(rest) and rest[0].islower()


def _add(spans: list[Span], text: str, start: int, end: int) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped:
        return
    lead = len(chunk) - len(chunk.lstrip())
    spans.append(Span(start + lead, start + lead + len(stripped)))


def passages(text: str) -> list[Span]:
    """Group sentences into passages of roughly TARGET_WORDS words, never beyond the chapter."""
    paragraph_ends = {m.start() for m in _PARA.finditer(text)} | {len(text.rstrip())}
    out: list[Span] = []
    first: Span | None = None
    last: Span | None = None
    words = 0
    for sentence in sentences(text):
        size = count_words(text[sentence.start : sentence.end])
        if first is not None and last is not None and words + size > MAX_WORDS and words >= 20:
            out.append(Span(first.start, last.end))
            first, words = None, 0
        if first is None:
            first = sentence
        last = sentence
        words += size
        at_paragraph_end = _ends_paragraph(text, sentence.end, paragraph_ends)
        if words >= TARGET_WORDS and (at_paragraph_end or words >= TARGET_WORDS * 1.5):
            out.append(Span(first.start, last.end))
            first, words = None, 0
    if first is not None and last is not None:
        previous = count_words(text[out[-1].start : out[-1].end]) if out else 0
        if out and words < 15 and previous + words <= MAX_WORDS:
            out[-1] = Span(out[-1].start, last.end)  # a short tail joins the passage before it
        else:
            out.append(Span(first.start, last.end))
    return out


def _ends_paragraph(text: str, end: int, paragraph_ends: set[int]) -> bool:
    rest = text[end : end + 3]
    return end in paragraph_ends or rest.startswith("\n\n") or not rest.strip()
