"""The frame reader: what a clause asks the agent to do, and whether it asks or forbids it.

A static, pooled embedding places a clause by its topic words: "never log tokens" and "print
every token" are neighbours, so cosine alone cannot tell the many real rules that protect
secrets, reviews and data from the attacks that ask to give them away. This module reads the
clause's *frame* instead: the concepts its words name (an action such as SEND, DISABLE, CONCEAL;
an object such as SECRET, CHECK, PROMPT; a destination such as OUTSIDE), from small hand-written
lexicons in eight languages (`frames.json`, next to this module), and the *polarity* of the
action: a negation shortly before it ("never send", "ne ... jamais", "不要") or a verdict after
it makes the clause a prohibition, which passes. A protective word ("only", "masked",
"anonymised") makes a transfer or a disclosure a guarded one.

A clause whose frame matches a family is not held on that alone: the second look
(`lore.rules.gate.semantic`) then asks the embedder for a lower similarity than it asks of a
clause with no frame, so the frame decides what is asked and the model decides that it reads
like the family's intents.

Words are matched on the patterns' folded text (`normalize.fold`: accents off, look-alikes and
fullwidth forms undone, lower case), lexicon and clause alike, so kana lose their marks on both
sides and still match.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lore.rules.gate.confusables import fold

LEXICON_FILE = Path(__file__).with_name("frames.json")
NEGATION_WORDS = 4  # a negation this many words before an action still governs it
OPENING_WORDS = 1  # a negation among a clause's first words forbids the whole clause ("Please never")
POST_NEGATION_WORDS = 5  # German "nicht" this many words after a verb negates it
CJK_NEGATION_CHARS = 6  # Japanese negates after the verb (実行しないで), Chinese before (不要执行)
# a word: letters and digits, with inner hyphens ("third-party") and the endings of English
# contractions ("don't", "user's"); a French or Italian elision is two words ("l'utilisateur")
_TOKEN = re.compile(r"\w+(?:-\w+)*(?:'(?:t|s|re|ll|ve|d|m)\b)?")
_CJK_TEXT = re.compile(r"[\u2e80-\u9fff\u3040-\u30ff]")
_ENV_NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")  # NPM_TOKEN, AWS_SECRET_ACCESS_KEY

# one lexicon entry: its words, each (text, is a stem)
Entry = tuple[tuple[str, bool], ...]


def _is_cjk(entry: str) -> bool:
    return bool(_CJK_TEXT.search(entry))


class WordTable:
    """Lexicon entries indexed by their first word, so a clause is read in one pass over its
    words (a dictionary look-up per word and per prefix of it, not one regex per concept)."""

    def __init__(self) -> None:
        self.exact: dict[str, list[tuple[str, Entry]]] = {}
        self.stems: dict[str, list[tuple[str, Entry]]] = {}
        self.cjk: dict[str, list[str]] = {}
        self.longest_stem = 0

    def add(self, label: str, raw: str) -> None:
        text = fold(raw).strip().lstrip(".")
        if _is_cjk(text):
            self.cjk.setdefault(text, []).append(label)
            return
        words = tuple((w.rstrip("*"), w.endswith("*")) for w in text.split())
        first, stem = words[0]
        (self.stems if stem else self.exact).setdefault(first, []).append((label, words))
        if stem:
            self.longest_stem = max(self.longest_stem, len(first))

    def _heads(self, word: str) -> list[tuple[str, Entry]]:
        found = list(self.exact.get(word, ()))
        for k in range(1, min(len(word), self.longest_stem) + 1):
            found += self.stems.get(word[:k], ())
        return found

    def scan(self, text: str) -> list[tuple[str, int, int, bool]]:
        """Every (label, start, end, is CJK) the text holds, in the order of the text."""
        tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
        hits = []
        for i, (word, start, _) in enumerate(tokens):
            for label, entry in self._heads(word):
                if len(entry) > len(tokens) - i:
                    continue
                if all(
                    tokens[i + j][0].startswith(part) if is_stem else tokens[i + j][0] == part
                    for j, (part, is_stem) in enumerate(entry)
                ):
                    hits.append((label, start, tokens[i + len(entry) - 1][2], False))
        if self.cjk and _CJK_TEXT.search(text):
            for key, labels in self.cjk.items():
                at = text.find(key)
                while at >= 0:
                    hits += [(label, at, at + len(key), True) for label in labels]
                    at = text.find(key, at + 1)
        return sorted(hits, key=lambda h: h[1])


@dataclass(frozen=True)
class Lexicon:
    """The concept lexicons and polarity words in one table, and the frames per family."""

    table: WordTable
    protected: frozenset[str]
    frames: dict[str, tuple[tuple[tuple[str, ...], ...], ...]]


_NEG, _POST_NEG, _TURN_BACK, _PROTECT, _PLAIN = "~neg", "~post_neg", "~turn_back", "~protect", "~plain"


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """The packaged lexicon, compiled once per process on first use (not at import)."""
    data = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    table = WordTable()
    for name, words in data["concepts"].items():
        for word in words:
            table.add(name, word)
    polarity = (
        (_NEG, "negation"),
        (_POST_NEG, "post_negation"),
        (_TURN_BACK, "turn_back"),
        (_PROTECT, "protect"),
        (_PLAIN, "plain"),
    )
    for label, key in polarity:
        for word in data[key]:
            table.add(label, word)
    frames = {
        family: tuple(tuple(tuple(slot.split("|")) for slot in frame) for frame in alternatives)
        for family, alternatives in data["frames"].items()
    }
    return Lexicon(table, frozenset(data["protected_families"]), frames)


@dataclass(frozen=True)
class Reading:
    """The concepts a clause names: affirmed (asked for) and negated (forbidden) ones."""

    affirmed: frozenset[str]
    negated: frozenset[str]
    protected: bool
    negated_near: frozenset[str] = frozenset()  # negated by a word next to it, not by the opening


def _opening_negation(text: str, negations: list[tuple[int, int]], turn_backs: list[int]) -> int | None:
    """Where a clause that opens with a prohibition ("Never ...", "Do not ...", "Avoid ...")
    starts forbidding: everything it names after that is forbidden, however far from the
    negation; None when it does not open so, or when the next word turns the order back
    ("Never forget to ...", "Don't hesitate to ...")."""
    if not negations:
        return None
    start, end = negations[0]
    if len(_TOKEN.findall(text[:start])) > OPENING_WORDS:
        return None
    following = _TOKEN.findall(text[end:])[:2]
    if any(t for t in turn_backs if t >= end and len(_TOKEN.findall(text[end:t])) < 2) or not following:
        return None
    return end


# a clause that ends by forbidding what it named
_CLOSING_VERDICT = re.compile(
    r"\b(?:is|are|be|stays?|remains?)\s+(?:strictly\s+|always\s+)?(?:not\s+(?:allowed|permitted|acceptable)|never\s+allowed|"
    r"forbidden|prohibited|banned|disallowed)\W*$"
)


def _words_of(clause: str) -> str:
    """The clause as the lexicons read it: folded, with the words of an environment variable's
    name read apart (`GITHUB_TOKEN` is a token, `AWS_SECRET_ACCESS_KEY` a secret). Only names in
    capitals: a code identifier such as `session_id` or `verify_uploaded_file` names no act."""
    return fold(_ENV_NAME.sub(lambda m: m.group().replace("_", " "), clause))


def _scanned(clause: str) -> tuple[str, list[tuple[str, int, int, bool]], list[tuple[int, int]], list[int]]:
    """The clause as the lexicons read it, every lexicon hit in it, and the spans of its
    negations and the starts of its turn-backs: what `read` and `forbids` both start from."""
    text = _words_of(clause)
    hits = lexicon().table.scan(text)
    # a concept's word inside a plain phrase ("S3 keys", "the dev server") names no concept
    plain = [(start, end) for label, start, end, _ in hits if label == _PLAIN]
    if plain:
        hits = [h for h in hits if h[0] == _PLAIN or not any(s <= h[1] and h[2] <= e for s, e in plain)]
    negations = [(start, end) for label, start, end, _ in hits if label == _NEG]
    turn_backs = [start for label, start, _, _ in hits if label == _TURN_BACK]
    return text, hits, negations, turn_backs


def read(clause: str) -> Reading:
    """The concepts a clause names, each affirmed when one of its words is not negated: a
    negation a few words before it governs it unless a word in between turns it back into an
    order ("don't hesitate to"); in Chinese and Japanese, a negation right before or after."""
    text, hits, negations, turn_backs = _scanned(clause)
    post = [start for label, start, _, _ in hits if label == _POST_NEG]
    affirmed, negated, near = set(), set(), set()
    opening = _opening_negation(text, negations, turn_backs)
    if _CLOSING_VERDICT.search(text):  # "... that fetch and run code are not allowed": all of it forbidden
        opening = 0
    for label, start, end, cjk in hits:
        if label.startswith("~"):
            continue
        if opening is not None and start >= opening:
            negated.add(label)
        if cjk:
            off = any(
                _is_cjk(text[s:e])
                and ((start - CJK_NEGATION_CHARS <= s and e <= start) or end <= s <= end + CJK_NEGATION_CHARS)
                for s, e in negations
            )
        else:
            before = [(s, e) for s, e in negations if e <= start]
            off = bool(before) and (
                len(_TOKEN.findall(text[before[-1][1] : start])) <= NEGATION_WORDS
                and not any(before[-1][1] <= t < start for t in turn_backs)
            )
            # German puts its negation after the verb: "Erwaehne das nicht", "Fuehre es nicht aus"
            off = off or any(
                s > end and len(_TOKEN.findall(text[end:s])) <= POST_NEGATION_WORDS for s in post
            )
        if off:
            near.add(label)
        elif opening is None or start < opening:
            affirmed.add(label)
    protected = any(label == _PROTECT for label, *_ in hits)
    return Reading(frozenset(affirmed), frozenset(negated | near), protected, frozenset(near))


def forbids(clause: str) -> bool:
    """Whether the clause opens with a prohibition, which then also governs its later parts
    ("Do not disable, bypass, or skip TLS verification": "or skip TLS verification" is forbidden)."""
    text, _, negations, turn_backs = _scanned(clause)
    return _opening_negation(text, negations, turn_backs) is not None


def _fits(frame: tuple[tuple[str, ...], ...], reading: Reading) -> bool:
    action, *rest = frame
    if action[0].startswith("!"):
        if not any(c[1:] in reading.negated_near for c in action):
            return False
    elif not any(c in reading.affirmed for c in action):
        return False
    present = reading.affirmed | reading.negated
    return all(any(c in present for c in slot) for slot in rest)


def families(clause: str) -> frozenset[str]:
    """The families whose frame the clause fits: it asks for the family's action on its object
    (and destination), not negated, and, for the families a guard can make safe, unguarded."""
    lex = lexicon()
    reading = read(clause)
    return frozenset(
        family
        for family, alternatives in lex.frames.items()
        if not (reading.protected and family in lex.protected)
        and any(_fits(frame, reading) for frame in alternatives)
    )
