"""What a question about a book asks for: its content words, their narrative synonyms, and
whether it asks who someone is.

A reader asks "Who is the killer?" where the book says "the murderer of Enoch Drebber", and
"Who wrote RACHE?" where it says "written in letters of blood". Porter stemming already joins
"murderer" and "murdered"; it cannot join "killer" and "murderer" or "wrote" and "written". A
small built-in vocabulary of words stories use for the same thing does, so each content word
of a question stands for a group of words, any of which a passage may use. Question words and
fillers ("who", "is", "the", "tell me") are not content: they must not sink a passage that
holds everything the question is about.

"Who is the killer?" asks for a name. A passage that only says "the murderer had a florid
face" does not answer it; one that says "Jefferson Hope, the murderer of Enoch Drebber" does.
`Query.role` is that role word's group, and search keeps such a question's passages only when a
name stands in an identifying construction with it ("NAME, the ROLE", "the ROLE was NAME").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

QUESTION_WORDS = frozenset(
    """
    a an the and or but of to in on at by for from with into onto over under as about than
    is are was were be been being am do does did done doing has have had having will would
    shall should can could may might must who whom whose what which when where why how
    that this these those there here it its it's he him his she her hers they them their
    i me my we us our you your yours not no yes so if then else also just only very
    tell say says said know knew book story chapter happen happens happened
    someone somebody something anyone anything everyone everything
    really actually exactly ever first name named called kind sort please mean means meant meaning
    """.split()
)

# Words a story uses for the same thing (with irregular forms the stemmer cannot join). A
# question word stands for every word of its groups.
SYNONYMS = [
    "killer killers murderer murderers murderess murder murders murdered kill killed kills slay"
    " slayer slew slain assassin assassinated assassination culprit",
    "die died dies dead death deaths dying perished deceased",
    "write wrote written writing writes scrawled inscribed",
    "poison poisoned poisoner poisoning",
    "steal stole stolen stealing theft thief thieves robbed robbery robber burglar burglary",
    "marry married marries marriage wedding wed wedded",
    "husband wife",
    "hide hid hidden hiding concealed conceal",
    "find found finds discover discovered discovery",
    "meet met meeting",
    "introduce introduced introducing introduction",
    "live lived lives living dwell dwelt lodgings lodged resided reside",
    "love loved loves lover",
    "escape escaped fled flee fleeing",
    "arrest arrested caught captured capture handcuffs",
    "revenge vengeance avenge avenged",
    "treasure treasures jewels pearls",
    "friend friends companion comrade",
    "gun pistol revolver rifle",
    "money fortune wealth",
    "drink drank drunk drinking",
    "eat ate eaten eating",
    "see saw seen",
    "speak spoke spoken",
    "give gave given",
    "take took taken",
    "begin began begun",
    "run ran",
    "go went gone",
    "come came",
    "leave left",
    "buy bought",
    "strike struck",
    "fight fought",
    "bring brought",
    "think thought",
    "teach taught",
    "hold held",
]
# Nouns that name someone by what they did: the words of a "who is the ROLE?" answer.
ROLES = [
    "killer murderer murderess assassin slayer culprit poisoner",
    "thief robber burglar",
    "detective inspector",
    "doctor surgeon physician",
    "wife husband",
]

_WORD = re.compile(r"[^\W_]+")
_WHO_IS = re.compile(r"^\s*who(?:['’]s|\s+(?:is|was|are|were))\s+(?:the|a|an|that|this)\s+(.+)$", re.I)
_PHRASE_END = re.compile(r"\s+(?:of|in|at|on|from|with|who|that|which|for)\s|[,;:?!.]")


def _index(groups: list[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for line in groups:
        words = line.split()
        for word in words:
            out.setdefault(word, [word])
            out[word] += [w for w in words if w not in out[word]]
    return {word: tuple(group) for word, group in out.items()}


_SYNONYMS = _index(SYNONYMS)
_ROLES = _index(ROLES)


@dataclass
class Query:
    """A question's content words, each with the words that may stand for it in a passage."""

    text: str
    terms: list[str] = field(default_factory=list)
    groups: list[tuple[str, ...]] = field(default_factory=list)
    role: tuple[str, ...] | None = None  # "who is the killer?": the role words a name must take


def content_terms(question: str) -> list[str]:
    """The words of a question that carry its meaning, lower-cased, in order, once each."""
    seen: list[str] = []
    for word in _WORD.findall(question.lower()):
        if word not in QUESTION_WORDS and len(word) > 1 and word not in seen:
            seen.append(word)
    return seen[:12]


def synonyms(word: str) -> tuple[str, ...]:
    return _SYNONYMS.get(word, (word,))


def role_of(question: str) -> tuple[str, ...] | None:
    """For "who is/was the X (of Y)?" with X a common noun, X and the nouns that mean it."""
    match = _WHO_IS.match(question.strip())
    if not match:
        return None
    phrase = _PHRASE_END.split(match.group(1) + " ", maxsplit=1)[0]
    words = phrase.split()
    if not words or not words[-1].isalpha() or not words[-1].islower():
        return None  # "who is the Cheshire Cat?" names someone: it asks about them, not for a name
    noun = words[-1]
    return _ROLES.get(noun, (noun,))


def parse(question: str) -> Query:
    terms = content_terms(question)
    return Query(question, terms, [synonyms(t) for t in terms], role_of(question))


_ARTICLE = r"(?:the|a|an|that|this|his|her|their|our)\s+"
_ADJECTIVES = r"(?:[a-z’'-]+\s+){0,2}"
_TITLE = r"(?:(?:Mr|Mrs|Miss|Ms|Dr|Sir|Lady|Lord|Captain|Colonel|Inspector)\.?\s+)?"


def names_the_role(text: str, names: list[tuple[int, int]], role: tuple[str, ...]) -> bool:
    """Whether a passage names someone as the role: "Jefferson Hope, the murderer of ...",
    "X was the killer", "the murderer is X", "the murderer, X". `names` are (start, end)
    offsets of the names found in `text`."""
    noun = "(?:" + "|".join(re.escape(w) for w in role) + r")(?:s|es)?\b"
    after = re.compile(
        r"\s*,?\s*(?:who\s+)?(?:(?:is|was|were|are|had\s+been|has\s+been)\s+|,\s*)?"
        + _ARTICLE
        + _ADJECTIVES
        + noun,
        re.I,
    )
    before = re.compile(
        r"\b"
        + _ARTICLE
        + _ADJECTIVES
        + noun
        + r"\s*(?:,|:|—|-|\s(?:is|was)(?:\s+none\s+other\s+than)?)\s*"
        + _TITLE
        + r"$",
        re.I,
    )
    return any(
        after.match(text, end) or before.search(text[max(0, start - 80) : start]) for start, end in names
    )
