"""Contradiction, the screening gate's second check: a new rule that reverses a similar one.

Two rules contradict when their content words mostly agree and their stance differs: one picks
tabs and the other spaces, one forbids what the other requires, or they set different numbers for
the same limit. `contradicts` is a pure function over two texts; the gate and `lore review lint`
both call it, over the same overlapping scopes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from lore.rules.gate.confusables import fold

if TYPE_CHECKING:
    from lore.core.text import Tokenizer

# Alternatives a rule picks one of: two similar rules that pick differently contradict.
_CHOICES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("tabs", r"\btabs?\b"), ("spaces", r"\bspaces?\b")),
    (("single quotes", r"\bsingle[- ]?quot"), ("double quotes", r"\bdouble[- ]?quot")),
    (
        ("camelCase", r"\bcamel[ _-]?case\b"),
        ("snake_case", r"\b(?<!screaming )snake[ _-]?case\b"),
        ("PascalCase", r"\bpascal[ _-]?case\b"),
        ("kebab-case", r"\bkebab[ _-]?case\b"),
        ("SCREAMING_SNAKE_CASE", r"\bscreaming[ _-]?snake[ _-]?case\b"),
    ),
    (
        ("enable", r"\b(?:enabl\w*|turn(?:ed|s)? on|switch(?:ed|es)? on)\b"),
        ("disable", r"\b(?:disabl\w*|turn(?:ed|s)? off|switch(?:ed|es)? off)\b"),
    ),
    (("include", r"\binclud\w*\b"), ("exclude", r"\bexclud\w*\b")),
    (
        ("synchronous", r"\b(?:sync|synchronous(?:ly)?)\b"),
        ("asynchronous", r"\b(?:async|asynchronous(?:ly)?)\b"),
    ),
    (("relative", r"\brelative\b"), ("absolute", r"\babsolute\b")),
    (("named exports", r"\bnamed exports?\b"), ("default exports", r"\bdefault exports?\b")),
    (("upper case", r"\bupper[ -]?case\b"), ("lower case", r"\blower[ -]?case\b")),
    (("mutable", r"\bmutable\b"), ("immutable", r"\bimmutable\b")),
    (("plural", r"\bplural\b"), ("singular", r"\bsingular\b")),
    (("required", r"\brequired\b"), ("optional", r"\boptional\b")),
    (("LF", r"\blf\b"), ("CRLF", r"\bcrlf\b")),
    (
        ("functional components", r"\bfunction(?:al)? components?\b"),
        ("class components", r"\bclass components?\b"),
    ),
    (("server components", r"\bserver components?\b"), ("client components", r"\bclient components?\b")),
)
_CHOICE_RES = tuple(tuple((label, re.compile(rx)) for label, rx in group) for group in _CHOICES)
_ALL_CHOICES = re.compile("|".join(rx for group in _CHOICES for _, rx in group))

# Bounds say how far, not whether: "no more than 80" is not a negation.
_BOUNDS = re.compile(
    r"\b(?:no|not|never) (?:more|longer|larger|bigger|wider|greater|fewer|less|shorter|later|earlier)"
    r"(?: than)?\b|\b(?:must|should|do|does|may)? ?(?:not|never) (?:exceed|go over|go beyond|be (?:more|longer|"
    r"larger|wider) than)\b|\bdon'?t exceed\b"
)
_NEGATION = re.compile(
    r"\b(?:not|never|no|none|nor|don'?t|doesn'?t|shouldn'?t|mustn'?t|can'?t|cannot|won'?t|isn'?t|aren'?t|"
    r"avoid\w*|without|forbid\w*|prohibit\w*|disallow\w*|ban|bans|banned|refrain|omit\w*|discourag\w*|"
    r"stop using|eliminate|get rid of)\b"
)
# a cross before an example marks what not to do; a double negation ("❌ not wrapped") says do
_CROSS_MARK = re.compile("[\u274c\u2716\u2717\u2718\U0001f6ab\u26d4]")
_ALLOW = re.compile(r"\b(?:allow(?:ed|s)?|permit(?:ted|s)?|always|encourag\w*)\b")
_PHRASE = r"([a-z0-9_.@/+#-][a-z0-9_.@/+# '-]{0,40}?)"
_PREFERENCES = (  # (pattern, index of the wanted group, index of the rejected group)
    (
        re.compile(
            r"\bprefer(?:s|red|ring)?\s+"
            + _PHRASE
            + r"\s+(?:over|to|rather than|instead of|versus|vs\.?)\s+"
            + _PHRASE
            + r"(?=$|[.,;:!?)\n]| for | in | when | unless | because )"
        ),
        1,
        2,
    ),
    (
        re.compile(
            r"\b(?:use|choose|pick|favou?r|write|go with|adopt|stick with|keep)\s+"
            + _PHRASE
            + r"\s+(?:instead of|rather than|over|in place of)\s+"
            + _PHRASE
            + r"(?=$|[.,;:!?)\n]| for | in | when | unless | because )"
        ),
        1,
        2,
    ),
    (
        re.compile(
            r"\b(?:use|choose|prefer|pick|write|indent with)\s+"
            + _PHRASE
            + r"\s*(?:,|;|-+)?\s*(?:and )?(?:not|never)\s+"
            + _PHRASE
            + r"(?=$|[.,;:!?)\n])"
        ),
        1,
        2,
    ),
    (
        re.compile(
            r"\binstead of\s+"
            + _PHRASE
            + r"\s*,\s*(?:use|prefer|write|choose)\s+"
            + _PHRASE
            + r"(?=$|[.,;:!?)\n]| for | in )"
        ),
        2,
        1,
    ),
    (
        re.compile(
            r"\b(?:avoid|do not use|don'?t use|never use|replace)\s+"
            + _PHRASE
            + r"\s*(?:;|,|\.|-+|:)?\s*(?:use|prefer|with)\s+"
            + _PHRASE
            + r"(?:\s+instead)?(?=$|[.,;:!?)\n])"
        ),
        2,
        1,
    ),
    (re.compile(r"^(?:[-*]\s*)?" + _PHRASE + r"\s+over\s+" + _PHRASE + r"\s*[.!]?$"), 1, 2),
    (
        re.compile(
            _PHRASE + r"\s+(?:instead of|rather than|in place of)\s+" + _PHRASE + r"(?=$|[.,;:!?)\n])"
        ),
        1,
        2,
    ),
)
# quantities and versions ("80", "3.11", "2px"), not references ("#16", "1.3.1", "10.0.0.0")
_NUMBER = re.compile(r"(?<![\w.#])\d+(?:\.\d+)?(?![\w.])|(?<![\w.#])\d+(?:\.\d+)?(?=[a-z%]{1,3}\b)")
_MAX_NUMBERS = 3  # more than this is a table or an example, not a limit
_NUMBER_WORDS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "twelve": "12",
    "twenty": "20",
    "hundred": "100",
}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b")
# Words that carry the stance or the bound rather than the subject (stripped before comparing).
_STANCE_WORDS = (
    "avoid avoids avoided avoiding prefer prefers preferred preferring favor favour allow allowed allows "
    "permit permitted forbid forbidden prohibit prohibited disallow disallowed ban banned refrain omit "
    "enable enabled disable disabled include included exclude excluded require required optional "
    "instead rather over versus vs keep limit limits max maximum min minimum least most under below "
    "above exceed exceeds up less more fewer than longer shorter long short at within ensure "
    "strictly generally usually preferably whenever possible recommended discouraged encouraged "
    "good bad okay ok fine acceptable none nothing everything something write follow stick go choose pick"
)
_KEPT_STOPWORDS = ("file", "files", "code")
_PREVIEW_CHARS = 60


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[Tokenizer, frozenset[str]]:
    from lore.core.text import build_tokenizer  # imported on first use: the gate is not on the hot path

    tokenizer = build_tokenizer()
    return tokenizer, frozenset(tokenizer.tokens(_STANCE_WORDS, topics=False))


def _content(text: str) -> frozenset[str]:
    """Content terms: the shared tokenizer's stems, stance words and numbers left out, each
    term cut to six letters so that indent and indentation meet."""
    tokenizer, stance = _vocabulary()
    terms = tokenizer.tokens(text, topics=False)
    terms += [w for w in re.findall(r"[a-z]+", text) if w in _KEPT_STOPWORDS]
    return frozenset(t[:6] for t in terms if t not in stance and len(t) > 1 and not t[:1].isdigit())


@dataclass(frozen=True)
class _Stance:
    """What a rule says, reduced to what it is about and which way it points."""

    text: str
    subject: frozenset[str]  # content without the alternatives it picks between
    about: frozenset[str]  # content with them
    choices: dict[int, frozenset[str]]  # alternative group -> labels it mentions
    negated: bool
    sign: str  # the word that sets the stance: "never", "avoid", "allow", "do"
    numbers: frozenset[str]
    words: int
    wants: frozenset[str]
    rejects: frozenset[str]
    preference: tuple[str, str] | None


@lru_cache(maxsize=4096)
def _stance(text: str) -> _Stance:
    low = " ".join(fold(text).split())
    low = re.sub(r"[`*_]+(?=\w)|(?<=\w)[`*_]+", "", low)
    low = _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1)], low)
    choices = {}
    for i, group in enumerate(_CHOICE_RES):
        found = frozenset(label for label, rx in group if rx.search(low))
        if found:
            choices[i] = found
    preference = None
    rest = low
    for pattern, want_at, reject_at in _PREFERENCES:
        m = pattern.search(low)
        if m:
            preference = (m.group(want_at).strip(), m.group(reject_at).strip())
            rest = low[: m.start()] + " " + low[m.end() :]
            break
    numbers = frozenset(n.rstrip(".") for n in _NUMBER.findall(low))
    unbounded = _BOUNDS.sub(" ", rest)
    negation = _NEGATION.search(unbounded)
    bare = _NUMBER.sub(" ", _NEGATION.sub(" ", _BOUNDS.sub(" ", low)))
    about = _content(bare)
    subject = _content(_ALL_CHOICES.sub(" ", bare))
    cross = _CROSS_MARK.search(low)
    negated = (negation is not None) != (cross is not None)
    allows = _ALLOW.search(unbounded)
    if negated:
        sign = negation.group(0) if negation else cross.group(0)  # type: ignore[union-attr]
    else:
        sign = allows.group(0) if allows else "do"
    if preference:
        wants, rejects = _content(preference[0]), _content(preference[1])
    else:
        wants, rejects = (frozenset(), about) if negated else (about, frozenset())
    return _Stance(
        low, subject, about, choices, negated, sign, numbers, len(low.split()), wants, rejects, preference
    )


def _choice_clash(group: int, new: _Stance, old: _Stance) -> tuple[str, str] | None:
    """The two picks when two rules choose differently among one group of alternatives, ("", "")
    when they name different alternatives yet pick the same one, None when this says nothing.

    A rule that mentions one alternative picks it, or, when negated ("avoid default exports"),
    picks the other of a pair; a negated pick among more than two alternatives says too little.
    The same alternative in both is left to the do / do not check.
    """
    mine, theirs = new.choices.get(group), old.choices.get(group)
    if not mine or not theirs or len(mine) != 1 or len(theirs) != 1:
        return None
    pair = [label for label, _ in _CHOICES[group]]
    (a,), (b,) = mine, theirs
    if a == b:
        return None  # the same alternative, said or denied: a question of "do" against "do not"
    if len(pair) == 2:
        pick_a = a if not new.negated else next(x for x in pair if x != a)
        pick_b = b if not old.negated else next(x for x in pair if x != b)
        if pick_a == pick_b:
            return ("", "")  # "don't use tabs" and "use spaces" agree
    elif new.negated or old.negated:
        return None  # "not camelCase" says nothing about snake_case against PascalCase
    return (f"not {a}" if new.negated else a, f"not {b}" if old.negated else b)


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    """Same subject: most content terms shared, or one rule only adds a single qualifier."""
    if not a or not b:
        return False
    shared = len(a & b)
    small, large = sorted((a, b), key=len)
    return shared / len(a | b) >= 0.65 or (small <= large and len(large - small) <= 1 and len(small) >= 2)


def _related(a: frozenset[str], b: frozenset[str]) -> bool:
    """One rule's subject inside the other's, give or take a few qualifiers.

    Enough when the two also pick clashing alternatives or numbers, which are strong signals
    ("Use tabs for indentation" against "Use spaces for indentation, four per level").
    """
    if not a or not b:
        return False
    small, large = sorted((a, b), key=len)
    return small <= large and len(large - small) <= 3


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW_CHARS else text[: _PREVIEW_CHARS - 3].rstrip() + "..."


def contradicts(new_text: str, existing_text: str) -> str | None:
    """A one-line reason when `new_text` reverses a similar existing rule, else None.

    Checked in turn: the two pick different alternatives (tabs against spaces, camelCase against
    snake_case, enable against disable, ...); they prefer opposite things (X over Y against Y over
    X, or "use X, not Y" against "use Y"); one says do and the other do not (never, avoid, forbid
    against do, always, allow); they give different numbers ("max 80" against "max 120"). Each needs the rest of the two texts to be about the
    same thing, so unrelated rules never contradict, and same-meaning rules agree on each point.
    """
    new, old = _stance(new_text), _stance(existing_text)
    where = f'a similar rule ("{_preview(existing_text)}")'
    # "Use tabs." against "Use spaces.": nothing but the choice, and that is enough
    bare_choice = not new.subject and not old.subject and min(new.words, old.words) >= 2
    if bare_choice or _similar(new.subject, old.subject) or _related(new.subject, old.subject):
        for group in new.choices:
            clash = _choice_clash(group, new, old)
            if clash == ("", ""):
                return None
            if clash:
                return f'contradicts {where}: "{clash[0]}" against "{clash[1]}"'
    if (
        new.preference
        and old.preference
        and _similar(new.about, old.about)
        and new.wants & old.rejects
        and new.rejects & old.wants
    ):
        return (
            f"contradicts {where}: it prefers {new.preference[0]} over {new.preference[1]}, "
            f"the other {old.preference[0]} over {old.preference[1]}"
        )
    for pref, plain in ((new, old), (old, new)):
        if (
            pref.preference
            and not plain.preference
            and plain.about
            and plain.about <= pref.about
            and len(pref.about - plain.about) <= 3
        ):
            if plain.wants & pref.rejects and not plain.wants & pref.wants:
                return f"contradicts {where}: one prefers {pref.preference[0]} to {pref.preference[1]}"
            if plain.rejects & pref.wants and not plain.rejects & pref.rejects:
                return f"contradicts {where}: one rules out {pref.preference[0]}, the other prefers it"
    if new.preference or old.preference:
        return None
    if new.negated != old.negated and _similar(new.about, old.about):
        return f'contradicts {where}: "{new.sign}" against "{old.sign}"'
    if (
        new.numbers
        and old.numbers
        and _related(new.about, old.about)
        and max(len(new.numbers), len(old.numbers)) <= _MAX_NUMBERS
        and not (new.numbers <= old.numbers or old.numbers <= new.numbers)
    ):
        mine = ", ".join(sorted(new.numbers - old.numbers))
        theirs = ", ".join(sorted(old.numbers - new.numbers))
        return f"contradicts {where}: {mine} against {theirs}"
    return None
