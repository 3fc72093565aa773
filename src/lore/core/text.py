"""The text pipeline shared by every keyword search in Lore.

Both sides of a match (a rule and a task, a passage and a question) go through the same steps:
lower-casing and identifier splitting, filler words dropped, file extensions glued to a name
ignored (a bare `.py` still means Python), aliases, a rough stem, and topic words that let
words of one area (a "column" and a "migration") meet.

Grounding (`lore.core.grounding`) compares a model's claim with its quote by a stricter stem
kept here beside the keyword one, `claim_stem`: no word is rewritten, only cut, so a claim's
word must meet nearly the same word in its source.

The word lists themselves are in `vocabulary`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from lore.core.config import TokenizerExtensions
from lore.core.vocabulary import ALIASES, NUMBER_WORDS, STOPWORDS, TOPICS

EXTENSIONS = (
    "py pyi js mjs cjs ts tsx jsx go rs java kt kts rb php cs cpp cc c h hpp m swift scala "
    "md mdx mdc json yaml yml toml ini cfg sql html htm css scss sass less sh bash zsh ps1 "
    "vue svelte ex exs erl hs lua dart r jl tf proto graphql gql xml txt lock"
).split()
_EXT = "|".join(sorted(EXTENSIONS, key=len, reverse=True))
_GLUED_EXT = re.compile(rf"(?<=[A-Za-z0-9_\-])\.(?:{_EXT})\b", re.I)
_BARE_EXT = re.compile(rf"(?<![A-Za-z0-9_])\*?\.({_EXT})\b", re.I)
_PIECES = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

_SUFFIXES = (
    ("izations", "iz"),
    ("ization", "iz"),
    ("isations", "is"),
    ("isation", "is"),
    ("ations", "at"),
    ("ation", "at"),
    ("ements", ""),
    ("ement", ""),
    ("ings", ""),
    ("ing", ""),
    ("ions", ""),
    ("ion", ""),
    ("ities", ""),
    ("ity", ""),
    ("ness", ""),
    ("ers", ""),
    ("er", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
    ("e", ""),
)
TOPIC_PREFIX = "#"


def stem(word: str) -> str:
    """A rough stem: validate/validation/validating meet, sanitize meets sanitization."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: len(word) - len(suffix)] + replacement
    return word


_CLAIM_SUFFIXES = ("ations", "ation", "ings", "ing", "ied", "ies", "ed", "es", "ly", "er", "s", "e")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")


def claim_stem(word: str) -> str:
    """A rough stem, enough that a claim's inflection meets its quote's ("wounded" meets
    "wound", "Holmes's" meets "Holmes"), numbers written as digits ("three" meets "3", "the 3rd"
    meets "3"). Stricter than `stem`: words of four letters or fewer stay whole and a suffix is
    only cut, so a claim cannot borrow a merely related word from its evidence."""
    word = word.casefold().replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    word = word.strip("'")
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    if _ORDINAL.fullmatch(word):
        return word[:-2]
    if word.isdigit() or len(word) <= 4:
        return word
    for suffix in _CLAIM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def split_words(text: str) -> list[str]:
    """Lower-cased words with identifiers split and glued file extensions removed."""
    text = _GLUED_EXT.sub(" ", text)
    text = _BARE_EXT.sub(r" \1 ", text)
    words: list[str] = []
    for piece in _PIECES.findall(text):
        words.extend(part.lower() for part in _CAMEL.findall(piece))
    return words


@dataclass(frozen=True)
class Tokenizer:
    """The pipeline with its vocabularies, built once per settings."""

    aliases: dict[str, str] = field(default_factory=lambda: dict(ALIASES))
    stopwords: frozenset[str] = STOPWORDS
    topic_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fingerprint: str = ""

    def tokens(self, text: str, topics: bool = True) -> list[str]:
        """Terms for BM25: stems, plus one `#topic` term per topic a word belongs to."""
        out: list[str] = []
        for word in split_words(text):
            if word in self.stopwords:
                continue
            word = self.aliases.get(word, word)
            if word in self.stopwords:
                continue
            term = stem(word)
            out.append(term)
            if topics:
                out.extend(TOPIC_PREFIX + t for t in self.topic_of.get(term, ()))
        return out


def build_tokenizer(ext: TokenizerExtensions | None = None) -> Tokenizer:
    ext = ext or TokenizerExtensions()
    return _build(
        json.dumps(
            [ext.aliases, {k: list(v) for k, v in ext.topics.items()}, list(ext.stopwords)], sort_keys=True
        )
    )


@lru_cache(maxsize=8)
def _build(spec: str) -> Tokenizer:
    aliases_ext, topics_ext, stop_ext = json.loads(spec)
    aliases = {**ALIASES, **aliases_ext}
    stopwords = STOPWORDS | frozenset(stop_ext)
    topics: dict[str, set[str]] = {k: set(v) for k, v in TOPICS.items()}
    for name, words in topics_ext.items():
        topics.setdefault(name, set()).update(w.lower() for w in words)
    topic_of: dict[str, set[str]] = {}
    for name, words in topics.items():
        for word in words:
            term = stem(aliases.get(word.lower(), word.lower()))
            topic_of.setdefault(term, set()).add(name)
    fingerprint = hashlib.sha1(spec.encode()).hexdigest()[:12]
    return Tokenizer(
        aliases=aliases,
        stopwords=stopwords,
        topic_of={k: tuple(sorted(v)) for k, v in topic_of.items()},
        fingerprint=fingerprint,
    )
