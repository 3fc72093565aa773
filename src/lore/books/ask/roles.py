"""Who did what to whom: catching a claim that swaps the doer and the one it was done to.

A writer turns "Holmes accused Gregson" into "Gregson accused Holmes" and keeps the citation;
the quote is real, the claim is false. Here a statement's shape is read as (first name, action,
second name): the two names as they come, and the first word of the action between them. The
same two names around the same action in the quote, in the other order, mean the roles were
swapped. A passive ("was accused by") turns the order around, so "Gregson was accused by Holmes"
agrees with "Holmes accused Gregson". Speech is read the same way: a line the quote gives to one
speaker ("observed Holmes", "Holmes observed") given to another by the statement is swapped.
When either side does not have that shape (one name, no action between, another action, no
named speaker) nothing is decided: this check only cuts what it can see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME = re.compile(
    r"\b(?:(?:Mr|Mrs|Miss|Dr|Sir|Lady|Lord|Captain|Colonel|Inspector)\.?\s+)?[A-Z][a-z’']+(?:\s+[A-Z][a-z’']+)*"
)
_WORD = re.compile(r"[a-z]+")
HELPERS = frozenset(
    "had has have was were is are be been being did does do then also just not never who that which "
    "to the a an his her their its him them and but first once soon later quickly suddenly".split()
)
STEM = 5
# words that start a sentence or a clause without naming anyone
NOT_NAMES = frozenset(
    "The A An It He She They We I You His Her Their This That Then When But And In On At".split()
)


@dataclass(frozen=True)
class Shape:
    first: str  # a key word of the first name
    second: str
    action: str  # stem of the action's first word
    passive: bool


def _names(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _NAME.finditer(text):
        words = [w for w in m.group(0).split() if w not in NOT_NAMES]
        if words:
            out.append((words[-1].strip("’'").lower(), m.start(), m.end()))
    return out


def shape(text: str) -> Shape | None:
    """The first two different names of a statement with the action between them."""
    names = _names(text)
    for i, (a, _, a_end) in enumerate(names):
        for b, b_start, _ in names[i + 1 :]:
            if b == a:
                continue
            between = text[a_end:b_start]
            words = [w for w in _WORD.findall(between) if w not in HELPERS]
            if not words or len(between.split()) > 8:
                return None
            passive = bool(re.search(r"\bby\b", between)) and bool(
                re.search(r"\b(?:was|were|been|being|is|are)\b", between)
            )
            return Shape(a, b, words[0][:STEM], passive)
    return None


def _roles(s: Shape) -> tuple[str, str]:
    return (s.second, s.first) if s.passive else (s.first, s.second)


_SPEECH = (
    r"(?:said|says|observed|asked|cried|remarked|answered|replied|exclaimed|shouted|whispered"
    r"|continued|added|muttered|returned|interrupted|retorted|groaned|laughed|murmured|repeated)"
)
_NAMED = r"((?:(?:Mr|Mrs|Miss|Dr|Sir|Lady|Lord|Captain|Colonel|Inspector)\.?\s+)?[A-Z][a-z’']+)"
_SPEAKER = re.compile(rf"\b{_SPEECH}\s+{_NAMED}|{_NAMED}\s+{_SPEECH}\b")


def speakers(text: str) -> set[str]:
    """The names a text gives a line of speech to ("observed Holmes", "Holmes said")."""
    out = set()
    for m in _SPEAKER.finditer(text):
        name = (m.group(1) or m.group(2)).split()[-1].strip("’'").lower()
        if name not in {w.lower() for w in NOT_NAMES}:
            out.add(name)
    return out


def misattributed(statement: str, quote: str) -> bool:
    """Whether the statement gives a line to a speaker the quote does not, while the quote names
    its own speaker."""
    said, source = speakers(statement), speakers(quote)
    return bool(said and source and not said & source)


def swapped(statement: str, quote: str) -> bool:
    """Whether the statement gives the quote's action, or its line of speech, to the other person."""
    if misattributed(statement, quote):
        return True
    said, source = shape(statement), shape(quote)
    if said is None or source is None or said.action != source.action:
        return False
    if {said.first, said.second} != {source.first, source.second}:
        return False
    return _roles(said) != _roles(source)


RULES = (
    "Who did what to whom: keep the doer of each action and the one it was done to exactly as "
    "the passage has them. If the passage says A accused B, the claim must not say B accused A "
    "or that they accused each other; a statement that swaps them is not supported."
)
