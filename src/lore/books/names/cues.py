"""What the words right around a mention say about it: a person, a place or a group, whether
"the" comes before it, the first gendered pronoun after it, and whether a numeral follows
("Room 12": a common noun, not a name).

Votes, not verdicts: the kind of a name is the balance of its mentions' cues (`groups`).
"""

from __future__ import annotations

import re

from lore.books.names.runs import Run, core_names
from lore.books.names.words import TITLES

PLACE_PREPOSITIONS = frozenset(
    "in at near into towards toward through across outside inside within via around round".split()
)
SPEECH = frozenset(
    """said cried asked replied answered remarked observed exclaimed continued added returned
    whispered shouted began murmured muttered laughed smiled""".split()
)
# Words before a common noun or a form of address, never before a name: "an American", "your
# Majesty", "his Lordship". A name takes no article but "the" ("the Hatter", "the Stapletons").
DETERMINERS = frozenset("a an my your his her its our their".split())
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[ \xa0]+$")
_WORD_AFTER = re.compile(r",?[ \xa0]+([A-Za-z]+)")
_PRONOUN = re.compile(r"\b(he|him|his|himself|she|her|hers|herself)\b", re.I)
_FEMININE = frozenset({"she", "her", "hers", "herself"})


def cue_of(run: Run, text: str) -> tuple[str, bool]:
    """What the words right around a mention say it names; and whether "the" comes before it.

    A title, an honorific on its own ("the Duchess") or a speech verb ("said Holmes", "said the
    Hatter", "Lydia cried", "Jane, who") says a person; "the"
    before a plural ("the Mormons") a group; a place preposition ("in London", "at Longbourn") a
    place. Votes, not verdicts: a kind is the balance of a name's visible mentions."""
    before = _WORD_BEFORE.search(text, max(0, run.start - 30), run.start)
    after = _WORD_AFTER.match(text, run.end)
    prev = before.group(1).lower() if before else ""
    nxt = after.group(1).lower() if after else ""
    article = prev == "the"
    names = core_names(run)
    if article and before is not None:  # "said the Hatter", "at the Grange": the word before "the"
        further = _WORD_BEFORE.search(text, max(0, before.start() - 30), before.start())
        word = further.group(1).lower() if further else ""
        prev = word if word in SPEECH or word in PLACE_PREPOSITIONS else prev
    if run.titles or prev in SPEECH or nxt in SPEECH or nxt == "who":
        return "person", article
    if len(names) == 1 and names[0] in TITLES:
        return "person", article  # an honorific on its own ("the Duchess", "the Colonel")
    if article and len(names) == 1 and names[0].endswith("s") and not names[0].endswith("ss"):
        return "group", article
    if prev in PLACE_PREPOSITIONS:
        return "place", article
    return "", article


def determined(run: Run, text: str) -> bool:
    """Whether an indefinite article or a possessive comes right before an untitled mention
    ("an American", "your Majesty"): the word is used as a common noun or a form of address."""
    if run.titles:
        return False
    before = _WORD_BEFORE.search(text, max(0, run.start - 30), run.start)
    return before is not None and before.group(1).lower() in DETERMINERS


def pronoun_after(text: str, end: int) -> str:
    stop = text.find("\n", end)
    window = text[end : min(end + 150, stop if stop >= 0 else len(text))]
    found = _PRONOUN.search(window)
    if found is None:
        return ""
    return "f" if found.group(1).lower() in _FEMININE else "m"


def numbered(text: str, end: int) -> bool:
    return re.match(r"[ \xa0]+\d", text[end : end + 4]) is not None
