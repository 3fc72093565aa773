"""The answer without a model: the best sentences of the visible passages, verbatim, each cited.

Nothing is written, so nothing can be invented: a sentence is chosen for how much of the
question it holds (each content word counts once, with the words a story uses for it,
`books.retrieve.query`), ties going to the better-ranked passage; one holding under half of what the
best holds is left out. For "who is the ROLE?" a sentence that
names someone as the role comes first. The chosen sentences are shown in story order.
"""

from __future__ import annotations

import math
import re

from lore.books.ask.records import Citation, Evidence, Sentence
from lore.books.retrieve.query import parse
from lore.core.quotes import comparable

MAX_SENTENCES = 3
MAX_WORDS = 60
KEEP_SHARE = 0.5
_BREAK = re.compile(r"(?<=[.!?…])[”’\"')\]]*\s+")
_ABBREVIATION = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Sir|Mme|Mlle|Capt|Col|Gen|Lt|No|Vol|ch)\.$")
_WORD = re.compile(r"[^\W_]+")
NOTE = (
    "Without a model this is the text itself: the sentences that best match the question. "
    "With one (`lore model setup`), Lore writes a short answer from claims it has checked "
    "against these passages, every sentence cited."
)


def sentences_of(text: str) -> list[str]:
    """The sentences of a passage, verbatim; "Mr." and its kind do not end one."""
    out: list[str] = []
    start = 0
    for m in _BREAK.finditer(text):
        if _ABBREVIATION.search(text[start : m.start()].rstrip("”’\"')]")):
            continue
        out.append(text[start : m.end()])
        start = m.end()
    out.append(text[start:])
    return [" ".join(s.split()) for s in out if len(s.split()) >= 3]


def _stem(word: str) -> str:
    return word[:6]


def answer(question: str, evidence: list[Evidence]) -> list[Sentence]:
    query = parse(question)
    groups = [{_stem(w) for w in g} for g in query.groups]
    role = {_stem(w) for w in query.role} if query.role else set()
    found = [
        (e, i, s, {_stem(w) for w in _WORD.findall(s.lower())})
        for e in evidence
        for i, s in enumerate(sentences_of(e.text))
    ]
    # a word of the question most sentences hold (the hero's name) says less than a rare one
    weights = [math.log(1.0 + len(found) / (1 + sum(1 for *_, st in found if g & st))) for g in groups]
    scored: list[tuple[tuple[float, int, int], Evidence, str]] = []
    for e, i, sentence, stems in found:
        words = sentence.split()
        if len(words) > MAX_WORDS:
            sentence = " ".join(words[:MAX_WORDS]) + " …"
        held = sum(w for g, w in zip(groups, weights, strict=True) if g & stems)
        named = bool(role & stems) and bool(re.search(r"\b[A-Z][a-z]+\s+[A-Z][a-z]+", sentence))
        if held == 0 and not named:
            continue
        scored.append(((-(held + 2 * named), e.rank, i), e, sentence))
    scored.sort(key=lambda s: s[0])
    # a sentence holding under half of what the best one holds is noise beside it (an "old house"
    # in chapter 1 beside "poisoned the old colonel"), however many passages search returned
    most = -scored[0][0][0] if scored else 0.0
    chosen = [s for s in scored[:MAX_SENTENCES] if -s[0][0] >= KEEP_SHARE * most]
    if not chosen and evidence:  # the passage matched as a whole: its opening words, as they are
        best = min(evidence, key=lambda e: e.rank)
        first = next(iter(sentences_of(best.text)), "")
        chosen = [((0, best.rank, 0), best, first)] if first else []
    chosen.sort(key=lambda s: (s[1].book_id, s[1].chapter, s[1].passage, s[0][2]))
    out = []
    for _, e, sentence in chosen:
        quote = sentence.removesuffix(" …")
        if not comparable(quote)[0] or comparable(quote)[0] not in comparable(e.text)[0]:
            continue
        cite = Citation(e.book_id, e.book_title, e.chapter, e.passage, e.passage_id, quote)
        out.append(Sentence(sentence, [cite]))
    return out
