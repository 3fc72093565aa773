"""Whether a sentence a model wrote is carried by the evidence it cites, decided in code.

A model can quote real words and still say something they do not: a quote from the right
passage under a claim about the ending, a real commit's subject under an invented decision, the
word "the" as the whole quote. The quote checks (`lore.core.quotes`) only prove the words are
there; this check asks whether the sentence's own content is. A sentence is *grounded* when:

1. its quote is informative on its own: at least `MIN_QUOTE_WORDS` content words (not stop
   words, not a few characters), and not text of the prompt's own headers;
2. what it asserts appears in its evidence (the quote, or the unit the quote is cut from: a
   book's passage, a commit message, a comment):
   - every *name* (a capitalised word inside the sentence, an identifier such as `SQLAlchemy`
     or `user_id`, a path) and every *number* (digits, or a number word), allowing inflection
     ("Holmes's"), and the aliases the caller knows (the forms a book's store gives one person);
   - most of its *content words* (at least `CONTENT_SHARE`, by a rough stem, so "wounded"
     meets "wound" and "validation" meets "validate");
3. no name it uses is one the caller says the reader has not met (a book's names first seen
   past the reader's position): those sentences are cut and their text withheld;
4. its meaning is close to its quote's: the cosine of the two by the given embedder (the
   default one in use) is at least `MIN_SIMILARITY`.

What it cannot catch: a false sentence made only of words its evidence holds ("Stangerson
killed Drebber" where the passage names both and a killing). The model's own verdicts still run
after this check, as a second filter; they never replace it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from lore.core.quotes import comparable, find_quote
from lore.core.text import claim_stem
from lore.core.vocabulary import CLAIM_STOPWORDS, NUMBER_WORDS

MIN_QUOTE_WORDS = 3  # words in all, at least one of them a content word
MIN_QUOTE_CHARS = 12
CONTENT_SHARE = 0.2  # of a sentence's content words, at least this share near its quote
MIN_SIMILARITY = 0.2  # cosine of a sentence and its quote by the default embedder
WORD_SIMILARITY = 0.5  # a content word is carried by a near synonym at least this close

GROUNDED = "grounded"
THIN_QUOTE = "its quote says too little on its own"
HEADER_QUOTE = "its quote is the prompt's own wording, not the source's"
UNMET = "it names what the reader has not reached"

Embed = Callable[[list[str]], np.ndarray]

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'’./\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"“(\[]\s*)$")


@dataclass(frozen=True)
class Anchors:
    """What a sentence asserts, as the words that must be found in its evidence."""

    names: tuple[str, ...]  # stems that must all be found
    numbers: tuple[str, ...]
    content: tuple[str, ...]  # stems of which at least CONTENT_SHARE must be found


@dataclass(frozen=True)
class Grounding:
    grounded: bool
    reason: str = GROUNDED
    missing: tuple[str, ...] = ()
    similarity: float | None = None
    withhold: bool = False  # the sentence's text must not be shown (it names what is unread)

    def as_dict(self) -> dict[str, object]:
        return {
            "grounded": self.grounded,
            "reason": self.reason,
            "missing": list(self.missing),
            "similarity": None if self.similarity is None else round(self.similarity, 3),
        }


def _is_identifier(token: str) -> bool:
    """A word of code or a path: inner capitals, underscores, dots or slashes."""
    inner = token[1:]
    return (
        any(c.isupper() for c in inner)
        or any(c in token for c in "_/")
        or ("." in token.strip(".") and any(c.isalpha() for c in token))
    )


def anchors(sentence: str) -> Anchors:
    """The names, numbers and content words of a sentence."""
    names: list[str] = []
    numbers: list[str] = []
    content: list[str] = []
    tokens = list(_TOKEN.finditer(sentence))
    for match in tokens:
        raw = match.group(0).strip(".")
        lowered = raw.casefold().replace("’", "'").removesuffix("'s")
        if not raw:
            continue
        if any(c.isdigit() for c in raw) or lowered in NUMBER_WORDS:
            numbers.append(claim_stem(raw).replace(",", ""))
            continue
        if lowered in CLAIM_STOPWORDS:
            continue
        starts = bool(_SENTENCE_START.search(sentence[: match.start()]))
        capital = raw[0].isupper()
        # a capital that opens a sentence is the sentence's ("Use JWT tokens", "According to"):
        # the word counts as a content word, unless the caller knows it as a name (a book's
        # names); a name that follows ("Hope" in "Jefferson Hope") is still a name
        if _is_identifier(raw) or (capital and not starts):
            names.append(claim_stem(raw))
        elif len(lowered) >= 3:
            content.append(claim_stem(raw))
    return Anchors(tuple(dict.fromkeys(names)), tuple(dict.fromkeys(numbers)), tuple(dict.fromkeys(content)))


@dataclass(frozen=True)
class Held:
    """The stems a sentence may draw on: every word, and the words written with a capital (a
    name must meet a capitalised word: "Hope" is not carried by "I hope")."""

    words: frozenset[str]
    capitalised: frozenset[str]


def evidence_words(texts: Iterable[str], aliases: Iterable[Iterable[str]] = ()) -> Held:
    """Every word of the evidence and each word's parts (an identifier's pieces, a hyphenated
    word's halves), plus every form of an alias group one of whose forms the evidence holds."""
    words: set[str] = set()
    capitals: set[str] = set()
    for text in texts:
        for match in _TOKEN.finditer(text):
            raw = match.group(0).strip(".")
            pieces = [
                raw,
                *(p for p in re.split(r"[/.:]", raw) if p),  # `_compat.get_encoding` holds `get_encoding`
                *(p for p in re.split(r"[-_/.'’]", raw) if p),
            ]
            for piece in pieces:
                stemmed = claim_stem(piece).replace(",", "")
                words.add(stemmed)
                if piece[:1].isupper() or _is_identifier(piece):
                    capitals.add(stemmed)
    for group in aliases:
        forms = [tuple(claim_stem(w) for w in _TOKEN.findall(form)) for form in group]
        if any(form and all(w in capitals for w in form) for form in forms):
            every = {w for form in forms for w in form}
            words.update(every)
            capitals.update(every)
    return Held(frozenset(words), frozenset(capitals))


def informative(quote: str, headers: Iterable[str] = ()) -> str | None:
    """Why a quote cannot carry a claim on its own, or None when it can."""
    text = " ".join(quote.split())
    every = _TOKEN.findall(text)
    words = [w for w in every if w.casefold() not in CLAIM_STOPWORDS and len(w) > 1]
    if len(text) < MIN_QUOTE_CHARS or len(every) < MIN_QUOTE_WORDS or not words:
        return THIN_QUOTE
    key = comparable(text)[0].strip(" .")
    if any(key and key in comparable(h)[0] for h in headers):
        return HEADER_QUOTE
    return None


def _carried(name: str, pool: frozenset[str]) -> bool:
    """A name is carried whole, or part by part when it is joined ("Server-Sent", `a_b`)."""
    if name in pool:
        return True
    parts = [claim_stem(p) for p in re.split(r"[-_/.]", name) if p]
    return len(parts) > 1 and all(p in pool for p in parts)


_SENTENCE_END = re.compile(r"[.!?]\s|\n\s*\n")


def _around(quote: str, unit: str) -> str:
    """The sentences of `unit` that hold `quote` (the quote alone when it is not found there)."""
    span = find_quote(quote, unit)
    if span is None:
        return ""
    ends = [m.end() for m in _SENTENCE_END.finditer(unit)]
    start = max((e for e in ends if e <= span.start), default=0)
    end = min((e for e in ends if e >= span.end), default=len(unit))
    return unit[start:end]


def _name_words(text: str) -> str:
    """A text's words as a name matcher sees them: case kept (the name "Hope" is not the word
    "hope"), possessives and curly apostrophes folded."""
    return " ".join(w.replace("’", "'").removesuffix("'s") for w in _TOKEN.findall(text))


def _names_unmet(sentence: str, unmet: Iterable[str]) -> list[str]:
    said = f" {_name_words(sentence)} "
    return [form for form in unmet if (words := _name_words(form)) and f" {words} " in said]


_PRONOUNS = frozenset("i me my he him his she her they them their we us our".split())


@dataclass
class GroundingCheck:
    """The check for one answer's evidence: what it knows of names, and how it compares meaning.

    `aliases`: groups of forms naming one thing the reader may meet (a book's visible names),
    so "Lizzy" is carried by a passage saying "Elizabeth"; a name in this list is also carried
    by a pronoun in the evidence ("I was struck..." in a passage Watson narrates). `unmet`: the
    names the reader has not reached. `headers`: the prompt's own wording, which a quote must not
    be. `embed`: the embedder in use (texts to unit vectors), for closeness of meaning and for a
    content word the evidence has only as a near synonym ("murdered" by "killed"). `given`: what
    the context itself names for every piece of evidence, so no single quote has to (the
    repository a decision is about: its comments rarely say "click", yet "Click's parser" names
    nothing they do not stand for); its words count as held, by name and by word."""

    aliases: list[list[str]] = field(default_factory=list)
    unmet: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    embed: Embed | None = None
    given: list[str] = field(default_factory=list)
    keep_case: bool = True  # a name must meet a capitalised word (prose); False for code and commits

    def __post_init__(self) -> None:
        self._known = frozenset(
            claim_stem(w) for group in self.aliases for form in group for w in _TOKEN.findall(form)
        )
        self._given_words = frozenset(
            claim_stem(piece) for text in self.given for piece in re.split(r"[^A-Za-z0-9]+", text) if piece
        )
        # a later short form of a name already met ("Hope" after "Jefferson Hope") names no one new
        met = {w for group in self.aliases for form in group for w in _name_words(form).split()}
        self.unmet = [form for form in self.unmet if not set(_name_words(form).split()) <= met]

    def unread(self, text: str) -> bool:
        """Whether a text names something the reader has not met."""
        return bool(_names_unmet(text, self.unmet))

    def check(self, sentence: str, quote: str, unit: str = "") -> Grounding:
        """Whether `sentence`, citing `quote` (cut from `unit`), is carried by them."""
        unread = _names_unmet(sentence, self.unmet)
        if unread:
            return Grounding(False, UNMET, tuple(unread), withhold=True)
        thin = informative(quote, self.headers)
        if thin is not None:
            return Grounding(False, thin)
        said = anchors(sentence)
        have = evidence_words([quote, unit], self.aliases)
        if self.given:
            have = Held(have.words | self._given_words, have.capitalised | self._given_words)
        pronoun = not _PRONOUNS.isdisjoint(w.casefold() for w in _TOKEN.findall(f"{quote} {unit}"))
        pool = have.capitalised if self.keep_case else have.words
        names = [n for n in said.names if not _carried(n, pool)]
        names += [w for w in said.content if w in self._known and w not in pool]
        names = [n for n in names if not (pronoun and n in self._known)]
        if names:
            return Grounding(False, f"it names {', '.join(names)}, which its evidence does not", tuple(names))
        around = _around(quote, unit)  # the unit's sentences holding the quote
        near = evidence_words([quote, around]).words  # numbers and content words are read here
        numbers = tuple(n for n in said.numbers if n not in near)
        if numbers:
            return Grounding(False, f"its number {', '.join(numbers)} is not in its evidence", numbers)
        content = [w for w in said.content if w not in self._known]
        local = near | {w for w in have.words if w in self._given_words}
        absent = self._absent([w for w in content if w not in local], f"{quote} {around}")
        if absent and len(absent) > int((1 - CONTENT_SHARE) * len(content)):
            return Grounding(False, f"its words are not in its evidence ({', '.join(absent[:5])})", absent)
        score = self._similarity(sentence, quote)
        if score is not None and score < MIN_SIMILARITY:
            return Grounding(False, f"its meaning is far from its quote's ({score:.2f})", (), score)
        return Grounding(True, GROUNDED, (), score)

    def _absent(self, missing: list[str], evidence: str) -> tuple[str, ...]:
        """The missing content words that no word of the evidence is a near synonym of."""
        if not missing or self.embed is None:
            return tuple(missing)
        pool = sorted(
            {
                w.casefold()
                for w in _TOKEN.findall(evidence)
                if w.casefold() not in CLAIM_STOPWORDS and len(w) > 2
            }
        )
        if not pool:
            return tuple(missing)
        vectors = self.embed(missing + pool)
        near = vectors[: len(missing)] @ vectors[len(missing) :].T
        return tuple(w for w, row in zip(missing, near, strict=True) if float(row.max()) < WORD_SIMILARITY)

    def _similarity(self, a: str, b: str) -> float | None:
        if self.embed is None:
            return None
        vectors = self.embed([a, b])
        return float(vectors[0] @ vectors[1])


def default_embed() -> Embed | None:
    """The embedder in use, as texts to unit vectors, or None when none loads (a broken
    install): the word checks still stand without it."""
    try:
        from lore.core.embed import get_embedder

        embedder = get_embedder()
    except Exception:
        return None
    return lambda texts: embedder.embed(list(texts))
