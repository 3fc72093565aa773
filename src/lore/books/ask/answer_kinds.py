"""Whether a sentence gives the kind of answer a question asks for, read from its form alone.

"Where was the carbuncle found?" wants a place, "When ..." a time, "Why ..." a reason, "How
..." a means, "Who ..." someone named doing the thing; a sentence that only repeats the
question's words ("asked Sherlock Holmes") gives none of these. `gives` says whether a sentence
holds the answer type's mark (a person named beyond those the question names, a place after a
preposition, a time expression, a causal or purpose connective, a means), and `new_words`
whether it says anything the question did not: both only order sentences, never invent one.
"""

from __future__ import annotations

import re

from lore.books.retrieve.question import (
    DEDUCE,
    DID,
    HOW,
    RELATION,
    WHAT,
    WHEN,
    WHERE,
    WHO,
    WHY,
    YES_NO,
    answer_type,
)
from lore.core.text import stem

NAME, NUMBER = "name", "number"
# the kinds whose answer has a mark of its own; for the rest the words held decide
TYPED = frozenset({WHO, WHERE, WHEN, WHY, HOW, DEDUCE, RELATION, NAME, NUMBER})
_LEADING = re.compile(r"^[^,?]*,\s*(?=(?:who|whom|whose|where|when|why|how|what|which)\b)", re.I)
_ASKS_NAME = re.compile(r"\b(?:name|named|called|call|title)\b", re.I)
_ASKS_NUMBER = re.compile(r"^\s*how\s+(?:many|much|old|long|far)\b", re.I)
_NUMBER = re.compile(
    r"\b(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    r"|hundred|hundreds|thousand|thousands|million|millions|dozen|dozens|score|half|pounds?|shillings?"
    r"|guineas?|miles?|yards?|feet|inches|years?|months?|weeks?|days?|hours?|minutes?)\b",
    re.I,
)

_NAME = re.compile(r"(?<![“‘\"])\b[A-Z][a-z’']+(?:\s+[A-Z][a-z’']+)*")
_CAPS = re.compile(r"\b[A-Z]{3,}\b")  # a name in capitals: a letter's signature, a placard
# capitalised words that open speech or a clause rather than name anyone
_COMMON = frozenset(
    "i mr mrs miss dr sir lady lord the a an it he she they we you his her their this that then when but"
    " and yes no well oh ah now there here what why how who where my our your".split()
)
_PLACE = re.compile(
    r"\b(?:in|at|to|into|from|near|inside|under|beneath|behind|within|on)\s+(?:the\s+|a\s+|an\s+|his\s+|her\s+|their\s+)?"
    r"(?:[A-Z][a-z’']+|No\.\s*\d+|\d+|(?:[a-z’'-]+\s+){0,2}(?:street|road|lane|square|house|room|rooms|hall|lodge"
    r"|inn|hotel|station|town|village|city|country|park|garden|gardens|moor|crop|pocket|box|chest|drawer|kitchen"
    r"|library|study|cellar|attic|stable|grate|desk|table|shop|prison|camp|mine|valley"
    r"|church|court|office|cottage|farm|river|pool|bank|wood|woods|island|ship|boat|cab|carriage|bedroom))\b"
)
_TIME = re.compile(
    r"\b(?:o[’']clock|half-past|quarter|midnight|noon|morning|evening|night|afternoon|dawn|dusk|yesterday"
    r"|to-?morrow|to-?day|week|weeks|month|months|year|years|ago|Monday|Tuesday|Wednesday|Thursday|Friday"
    r"|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Christmas|spring|summer|autumn|winter|\d{1,2}(?:st|nd|rd|th)|1[0-9]{3}|18\d\d)\b"
)
_REASON = re.compile(
    r"\b(?:because|since|for\s+(?:he|she|they|it|I|we|the|his|her|their)|so\s+that|in\s+order|reason|owing"
    r"|on\s+account|due\s+to|lest|therefore|that\s+is\s+why|why|cause|caused|sake|motive|as\s+(?:he|she|they|I|we|it)"
    r"|to\s+(?:avoid|prevent|save|get|find|see|make|keep))\b",
    re.I,
)
_MEANS = re.compile(
    r"\b(?:by|with|through|using|means|managed|contrived|way|then|after|so)\b|\b\w+ed\s+(?:it|him|her|them)\b",
    re.I,
)
_RELATION = re.compile(
    r"\b(?:sister|brother|wife|husband|son|daughter|father|mother|married|cousin|nephew|niece|uncle|aunt"
    r"|engaged|friend|employer|master|servant|patroness|patron|widow)s?\b",
    re.I,
)
_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset(
    "the a an and or but of to in on at by for from with as is was were be been had has have he she it they"
    " i we you his her their its my our your this that these those there which who whom what when where"
    " not no so then than said says say all one very upon into out up down over more some any would could"
    " should will shall may might must do did does".split()
)


def _names(sentence: str, asked: set[str]) -> bool:
    """A person or thing named in the sentence other than those asked about (a sentence's first
    word is capitalised whatever it is, so it names no one on its own)."""
    body = sentence.lstrip("“‘\"'( ")
    for m in _NAME.finditer(body):
        found = _WORD.findall(m.group(0))
        words = {w.lower() for w in (found[1:] if m.start() == 0 else found)}
        if words - asked - _COMMON:
            return True
    return any(w.lower() not in asked | _COMMON for w in _CAPS.findall(body))


def wanted(question: str, kind: str) -> str:
    """The kind of answer to look for: the question's kind (`retrieve.question`), with "what is
    it called?" asking for a name and "how many?" for a number."""
    lead = _LEADING.match(question)
    if kind == WHAT and lead:  # "In The Five Orange Pips, who ...?" asks what its last clause asks
        kind = answer_type(question[lead.end() :])
    if kind == RELATION and question.lower().startswith("whose"):
        return WHO  # "Whose clothes ...?" asks for someone
    if kind == WHAT and _ASKS_NAME.search(question):
        return NAME
    if _ASKS_NUMBER.search(question):
        return NUMBER
    return kind


def gives(kind: str, sentence: str, asked_names: set[str]) -> bool:
    """Whether the sentence holds the mark of the answer a question of this kind asks for."""
    if kind in (WHO, NAME):
        return _names(sentence, asked_names)
    if kind == WHERE:
        return bool(_PLACE.search(sentence))
    if kind == WHEN:
        return bool(_TIME.search(sentence))
    if kind == WHY:
        return bool(_REASON.search(sentence))
    if kind in (HOW, DEDUCE):
        return bool(_MEANS.search(sentence) or _REASON.search(sentence))
    if kind == RELATION:
        return bool(_RELATION.search(sentence))
    if kind == NUMBER:
        return bool(_NUMBER.search(sentence))
    if kind in (WHAT, DID, YES_NO):
        return True  # the thing itself: how well it answers is the words it holds
    return True


def new_words(sentence: str, question_stems: set[str]) -> int:
    """How many content words the sentence says that the question did not (compared as stems)."""
    stems = {stem(w.lower()) for w in _WORD.findall(sentence) if w.lower() not in _STOP and len(w) > 2}
    return len(stems - question_stems)
