"""The answer without a model: the sentences of the visible passages that best answer, verbatim.

Nothing is written, so nothing can be invented: each sentence shown is a whole sentence of a
passage gathered under the reader's cap (`sentences`), cited. A sentence is scored for how well
it answers, not only for how many of the question's words it repeats:

- the share of the question it holds, each content word and name counting once with the words a
  story uses for it, rare words weighing more than common ones and the people the question asks
  about less than what it asks of them (`retrieve.question`);
- a part of its neighbours' share, the sentence just before it most: a book often names the
  topic in one sentence and answers in the next;
- whether it gives the kind of answer asked for (`answer_kinds`): someone named for "who", a
  name for "what is it called", a place for "where", a time for "when", a number for "how
  many", a reason for "why", a means for "how";
- how much it says that the question did not (a sentence that only echoes the question, or asks
  one back, is a poor answer), and how the search ranked its passage.

The sentences are shown best first. One is shown when it alone answers; others only when they
answer nearly as well. When the best holds little of the question, or not much of it and not
the kind of answer asked for, the answer says so (`weak`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from lore.books.ask.answer_kinds import TYPED, gives, new_words, wanted
from lore.books.ask.records import Citation, Evidence, Sentence
from lore.books.ask.sentences import sentences_of
from lore.books.retrieve.question import understand
from lore.core.quotes import comparable
from lore.core.text import stem

MAX_SENTENCES = 3
KEEP_SHARE = 0.7  # another sentence is shown only when it scores this share of the best
FIT = 1.0  # a sentence giving the asked kind of answer
MISS = 0.3  # one that does not: a sentence of the right kind holding less of the question still wins
# the share of a neighbour's match a sentence takes on: the answer often follows the sentence
# that names the question's topic
NEAR = {-1: 0.6, -2: 0.3, 1: 0.3}
NAMED = 0.5  # the weight of a name the question asks about, against its other words
RANK_WEIGHT = 1.0  # the search's first passage over the rest
ECHO = 0.4  # a sentence saying nothing the question did not; full credit from NEW_WORDS new words
NEW_WORDS = 3
ASKING = 0.6  # a sentence that is itself a question
LONG_WORDS = 70  # a sentence longer than this is whole but hard to read: a little lower
LONG = 0.85
# the best holding less of the question than this is weak, and under twice this without the asked kind
WEAK_SHARE = 0.34
_WORD = re.compile(r"[^\W_]+")
_ASKS = re.compile(r"\?[”’\"')\]]*$")
NOTE = (
    "Without a model this is the text itself: the sentences that best match the question. "
    "With one (`lore model setup`), Lore writes a short answer from claims it has checked "
    "against these passages, every sentence cited."
)
WEAK = "This is a weak match: what you have read so far may not answer this; these are the closest sentences."


@dataclass
class Choice:
    """The sentences chosen, best first, and whether even the best answers only weakly."""

    sentences: list[Sentence] = field(default_factory=list)
    weak: bool = False

    @property
    def notes(self) -> list[str]:
        return [WEAK] if self.weak and self.sentences else []


@dataclass
class _Candidate:
    evidence: Evidence
    index: int
    text: str
    stems: set[str]
    share: float = 0.0
    fit: bool = False
    score: float = 0.0


def _stem(word: str) -> str:
    return stem(word.lower())


def answer(question: str, evidence: list[Evidence]) -> list[Sentence]:
    """The chosen sentences, best first, each cited (see `choose`)."""
    return choose(question, evidence).sentences


def choose(question: str, evidence: list[Evidence]) -> Choice:
    """The sentences that best answer `question`, from the gathered passages only."""
    understood = understand(question)
    kind = wanted(question, understood.answer_type)
    groups = [{_stem(w) for v in g for w in _WORD.findall(v)} for g in understood.groups]
    asked = {w.lower() for n in understood.names for w in _WORD.findall(n)}
    question_stems = {_stem(w) for w in _WORD.findall(question)} | {s for g in groups for s in g}
    passages = [
        [
            _Candidate(e, i, s, {_stem(w) for w in _WORD.findall(s)})
            for i, s in enumerate(sentences_of(e.text))
        ]
        for e in sorted(evidence, key=lambda e: e.rank)
    ]
    found = [c for p in passages for c in p]
    if not found:
        return Choice()
    # a word most sentences hold (the hero's name) says less than a rare one
    weights = [math.log(1.0 + len(found) / (1 + sum(1 for c in found if g & c.stems))) for g in groups]
    # the people asked about are the question's subject; what it asks of them is in its other words
    names = {_stem(w) for w in asked}
    weights = [w * (NAMED if g <= names else 1.0) for g, w in zip(groups, weights, strict=True)]
    total = sum(weights) or 1.0
    for c in found:
        c.share = sum(w for g, w in zip(groups, weights, strict=True) if g & c.stems) / total
        c.fit = gives(kind, c.text, asked)
    for p in passages:
        for n, c in enumerate(p):
            near = max([w * p[n + d].share for d, w in NEAR.items() if 0 <= n + d < len(p)], default=0.0)
            c.score = (c.share + near) * (FIT if c.fit else MISS)
            fresh = new_words(c.text, question_stems)
            c.score *= min(1.0, ECHO + (1 - ECHO) * fresh / NEW_WORDS)
            c.score *= ASKING if _ASKS.search(c.text) else 1.0
            c.score *= LONG if len(c.text.split()) > LONG_WORDS else 1.0
            c.score *= 1.0 + RANK_WEIGHT / (1 + c.evidence.rank)
    ranked = sorted((c for c in found if c.score > 0), key=lambda c: (-c.score, c.evidence.rank, c.index))
    if not any(
        c.share > 0 for c in found
    ):  # the passage matched as a whole (by meaning): its opening sentence, said to be weak
        return Choice(_cited(found[:1]), weak=True)
    best = ranked[0]
    chosen = [best]
    # when the best gives the kind of answer asked for, a sentence that does not adds nothing to it
    kind_needed = kind in TYPED and best.fit
    for c in ranked[1:]:
        if len(chosen) >= MAX_SENTENCES or c.score < KEEP_SHARE * best.score:
            break
        if (c.fit or not kind_needed) and all(c.text != o.text for o in chosen):
            chosen.append(c)
    top = max(c.share for c in chosen)
    weak = top < WEAK_SHARE or (top < 2 * WEAK_SHARE and not best.fit)
    return Choice(_cited(chosen), weak=weak)


def _cited(chosen: list[_Candidate]) -> list[Sentence]:
    out = []
    for c in chosen:
        e = c.evidence
        quote, _ = comparable(c.text)
        if not quote or quote not in comparable(e.text)[0]:
            continue
        cite = Citation(e.book_id, e.book_title, e.chapter, e.passage, e.passage_id, c.text)
        out.append(Sentence(c.text, [cite]))
    return out
