"""A semantic embedder with no torch: WordLlama `l2_supercat` at 256 dimensions.

WordLlama is a static model: a table of token vectors (taken from a large language model's
input embeddings and trained further for sentence similarity) that is looked up and pooled, so it
needs only numpy and the `tokenizers` library, loads in a fraction of a second and embeds
thousands of passages a second on one core. Its wheel carries the 16 MB weight table and the
tokenizer, so after `pip install 'lore-mem[semantic]'` it works with no network.

One trap, and why `_load` passes `cache_dir`: wordllama 0.4 looks for its bundled tokenizer under
`wordllama/tokenizer/` while the wheel ships it in `wordllama/tokenizers/`, misses it, and tries to
download it from Hugging Face. Its cache lookup does use `tokenizers/`, so naming the package's
own folder as the cache finds both files, and `disable_download=True` turns any future miss into
an error instead of a network call.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from lore.core.embed.base import Embedder
from lore.core.errors import NeedsModel

INSTALL_HINT = "pip install 'lore-mem[semantic]'"
CONFIG = "l2_supercat"
DIM = 256
_lock = threading.Lock()
_model: Any = None


def wordllama_installed() -> bool:
    """True when wordllama can be imported (checked without importing it: start-up stays cheap)."""
    from importlib.util import find_spec

    return find_spec("wordllama") is not None


def _load() -> Any:
    global _model
    with _lock:
        if _model is None:
            try:
                import wordllama
                from wordllama import WordLlama
            except ImportError as exc:
                raise NeedsModel(f"the WordLlama embedder is not installed: {INSTALL_HINT}") from exc
            package = Path(wordllama.__file__).parent
            try:
                _model = WordLlama.load(config=CONFIG, dim=DIM, cache_dir=package, disable_download=True)
            except FileNotFoundError as exc:
                raise NeedsModel(
                    f"the WordLlama weights are missing from {package}: reinstall with {INSTALL_HINT}"
                ) from exc
        return _model


class WordLlamaEmbedder(Embedder):
    """WordLlama l2_supercat (256-d), from the weights inside its wheel, numpy only."""

    name = f"wordllama-{CONFIG}-{DIM}"
    batch_size = 256
    cacheable = False  # a table lookup and a mean: cheaper than reading a cache (and not counted)

    @property
    def dim(self) -> int:
        return DIM

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        # a text with no tokens pools to 0/0 (NaN) inside wordllama: it stays a zero row here,
        # like empty text in every other embedder, and the base class normalises the rest
        rows = [i for i, text in enumerate(texts) if text.strip()]
        if rows:
            vectors = _load().embed([texts[i] for i in rows], norm=False, batch_size=self.batch_size)
            out[rows] = np.nan_to_num(np.asarray(vectors, dtype=np.float32).reshape(len(rows), DIM))
        return out
