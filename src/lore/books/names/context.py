"""Which of several people a titled short form means here, from its passage.

"Miss Bennet" fits five sisters; the text means one of them each time, and says which by who is
around: a person named in the same sentence is someone else ("Miss Bennet and Elizabeth walked
on"), and of the others, the one the text has been talking about just before is meant. When the
passage names none of them, the form means whom it meant last time in this book; the first
time, with nothing to go on, it stays unresolved (its own entry).

Only the text up to the mention is read, plus the rest of its own sentence, so a reader's cap
never shows a choice made from what lies past it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict

from lore.books.names.finder import Mention
from lore.books.names.words import ABBREVIATED

WINDOW = 1500  # characters before a mention that count as its passage
_END = re.compile(r"[.!?]['\"”’)]*\s|[“”\"]")  # a sentence's end, or a quotation's edge


class Resolver:
    """The mentions read so far, by chapter, each with the name it stands for."""

    def __init__(self, chapters: list[str]):
        self.chapters = chapters
        self.starts: dict[int, list[int]] = defaultdict(list)
        self.ends: dict[int, list[int]] = defaultdict(list)
        self.names: dict[int, list[str]] = defaultdict(list)
        self.habit: dict[str, Counter[str]] = defaultdict(Counter)

    def saw(self, mention: Mention, name: str) -> None:
        """Record a mention (in reading order) and the name it was found to stand for."""
        self.starts[mention.chapter].append(mention.start)
        self.ends[mention.chapter].append(mention.end)
        self.names[mention.chapter].append(name)

    def choose(self, mention: Mention, candidates: list[str], upcoming: list[tuple[Mention, str]]) -> str:
        """The candidate this mention means, or "" when the text does not say.

        `upcoming`: the next mentions in reading order, each with the name it stands for so
        far; those in the same sentence are people this mention is not."""
        text = self.chapters[mention.chapter]
        lo, hi = _sentence(text, mention.start, mention.end)
        starts, names = self.starts[mention.chapter], self.names[mention.chapter]
        first = bisect_left(starts, max(0, mention.start - WINDOW))
        here = bisect_left(starts, lo)
        same_sentence = {names[i] for i in range(here, len(names))}
        same_sentence |= {
            name for m, name in upcoming if m.chapter == mention.chapter and m.start < hi and m is not mention
        }
        left = [c for c in candidates if c not in same_sentence]
        recent = ""
        for i in range(here - 1, first - 1, -1):
            if names[i] in left:
                recent = names[i]
                break
        habit = self.habit[mention.form]
        known = [c for c, _ in habit.most_common() if c in left]
        choice = recent or (known[0] if known else "")
        if choice:
            habit[choice] += 1
        return choice


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence holding [start, end): after the last full stop that ends a
    sentence (not an abbreviation's) or quotation mark, up to the next one: words said to
    someone are a sentence apart from "she said to Elizabeth"."""
    lo = 0
    for match in _END.finditer(text, max(0, start - 600), start):
        word = re.search(r"([A-Za-z]+)$", text[max(0, match.start() - 6) : match.start()])
        if not (word and word.group(1) in ABBREVIATED):
            lo = match.end()
    nxt = _END.search(text, end)
    return lo, nxt.end() if nxt else len(text)
