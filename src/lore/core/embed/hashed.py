"""A deterministic offline embedder: hashed words, word pairs and character n-grams.

No model and no download, the same vector for the same text on every machine and run, which
makes it the fallback when nothing better is installed and the embedder every test can rely
on. It captures shared vocabulary and spelling variants ("detective", "detectives"), not
meaning; a real model does better, and the index keeps the two apart by name.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from functools import lru_cache
from itertools import pairwise

import numpy as np

from lore.core.embed.base import Embedder
from lore.core.errors import InvalidInput
from lore.core.vocabulary import FREQUENT_WORDS

VERSION = "hash-ngram-v1"
DEFAULT_DIM = 384
_WORD = re.compile(r"[^\W_]+")
_WORD_WEIGHT = 1.0
_FILLER_WEIGHT = 0.15  # frequent words say little: they count, lightly and without n-grams
_PAIR_WEIGHT = 0.5
_NGRAM_SHARE = 0.8  # a word's character n-grams together weigh this much
_NGRAM_SIZES = (3, 4, 5)


def _slot(feature: str, dim: int) -> tuple[int, float]:
    """The bucket and sign of a feature (stable across processes, unlike `hash`)."""
    h = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
    return h % dim, (1.0 if (h >> 63) & 1 else -1.0)


@lru_cache(maxsize=1 << 17)
def _word_features(word: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Buckets and weights for one word: the word itself plus its character n-grams."""
    if word in FREQUENT_WORDS:
        slot, sign = _slot("w:" + word, dim)
        return np.array([slot], dtype=np.int64), np.array([sign * _FILLER_WEIGHT], dtype=np.float32)
    marked = f"<{word}>"
    grams = [marked[i : i + n] for n in _NGRAM_SIZES for i in range(len(marked) - n + 1)] or [marked]
    slots = [_slot("w:" + word, dim)] + [_slot("c:" + g, dim) for g in grams]
    each = _NGRAM_SHARE / len(grams)
    weights = [_WORD_WEIGHT] + [each] * len(grams)
    return (
        np.array([s for s, _ in slots], dtype=np.int64),
        np.array([sign * w for (_, sign), w in zip(slots, weights, strict=True)], dtype=np.float32),
    )


@lru_cache(maxsize=1 << 17)
def _pair_slot(first: str, second: str, dim: int) -> tuple[int, float]:
    slot, sign = _slot(f"p:{first} {second}", dim)
    return slot, sign * _PAIR_WEIGHT


def _damp(count: int) -> float:
    """Sub-linear term frequency: the tenth mention adds less than the second."""
    return 1.0 + math.log(count)


class HashEmbedder(Embedder):
    """Feature hashing of words, adjacent word pairs and 3-5 character n-grams."""

    cacheable = False  # hashing is faster than a cache lookup
    batch_size = 512

    def __init__(self, dim: int = DEFAULT_DIM):
        if dim < 16:
            raise InvalidInput(f"the hash embedder needs at least 16 dimensions, not {dim}")
        self._dim = dim
        self.name = VERSION if dim == DEFAULT_DIM else f"{VERSION}-{dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            self._embed_one(text, out[row])
        return out

    def _embed_one(self, text: str, into: np.ndarray) -> None:
        words = _WORD.findall(text.casefold())
        if not words:
            return
        slots: list[np.ndarray] = []
        weights: list[np.ndarray] = []
        for word, count in Counter(words).items():
            s, w = _word_features(word, self._dim)
            slots.append(s)
            weights.append(w * _damp(count))
        content = [w for w in words if w not in FREQUENT_WORDS]
        pairs = Counter(pairwise(content))
        if pairs:
            pair_slots = [(_pair_slot(a, b, self._dim), c) for (a, b), c in pairs.items()]
            slots.append(np.array([s for (s, _), _ in pair_slots], dtype=np.int64))
            weights.append(np.array([w * _damp(c) for (_, w), c in pair_slots], dtype=np.float32))
        into += np.bincount(
            np.concatenate(slots), weights=np.concatenate(weights), minlength=self._dim
        ).astype(np.float32)
