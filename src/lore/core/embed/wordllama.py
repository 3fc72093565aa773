"""Lore's default embedder, semantic with no torch: WordLlama `l2_supercat` at 256 dimensions.

WordLlama is a static model: a table of token vectors (taken from a large language model's
input embeddings and trained further for sentence similarity) that is looked up and pooled, so it
needs only numpy and the `tokenizers` library, loads in a fraction of a second and embeds
thousands of passages a second on one core. Its wheel carries the 16 MB weight table and the
tokenizer, and `wordllama` is one of lore-mem's own dependencies, so a plain `pip install lore-mem`
searches by meaning with no network and nothing to download. `bench/embed.py` measured it against
the other candidates (docs/models.md has the table and why it won).

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

INSTALL_HINT = (
    "reinstall it with `pip install --force-reinstall 'wordllama>=0.4,<0.5'` (lore-mem depends on it),"
    " or choose another embedder (LORE_EMBED=hash for the offline one that knows spelling, not meaning)"
)
CONFIG = "l2_supercat"
DIM = 256
WEIGHTS = f"weights/{CONFIG}_{DIM}.safetensors"
TOKENIZER = f"tokenizers/{CONFIG}_tokenizer_config.json"
_lock = threading.Lock()
_model: Any = None


def wordllama_installed() -> bool:
    """True when wordllama can be imported (checked without importing it: start-up stays cheap)."""
    from importlib.util import find_spec

    return find_spec("wordllama") is not None


def package_folder() -> Path | None:
    """Where the installed wordllama package lives (found without importing it), or None."""
    from importlib.util import find_spec

    spec = find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def missing_files() -> list[str]:
    """The model files the package should carry but does not (all of them when it is absent).

    Asked by `lore model show` and before a load, so a broken install is named in one line
    instead of surfacing as a download attempt deep inside wordllama."""
    folder = package_folder()
    if folder is None:
        return [WEIGHTS, TOKENIZER]
    return [name for name in (WEIGHTS, TOKENIZER) if not (folder / name).is_file()]


def _load() -> Any:
    global _model
    with _lock:
        if _model is None:
            try:
                import wordllama
                from wordllama import WordLlama
            except ImportError as exc:
                raise NeedsModel(
                    f"the WordLlama embedder cannot be imported ({exc}): {INSTALL_HINT}"
                ) from exc
            package = Path(wordllama.__file__).parent
            missing = missing_files()
            if missing:
                raise NeedsModel(
                    f"the WordLlama model files {', '.join(missing)} are missing from {package}: {INSTALL_HINT}"
                )
            try:
                _model = WordLlama.load(config=CONFIG, dim=DIM, cache_dir=package, disable_download=True)
            except (FileNotFoundError, OSError, ValueError) as exc:
                raise NeedsModel(
                    f"the WordLlama model in {package} cannot be loaded ({exc}): {INSTALL_HINT}"
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
