"""Lore's default embedder, semantic with no torch: WordLlama `l2_supercat` at 256 dimensions.

WordLlama is a static model: a table of token vectors (taken from a large language model's
input embeddings and trained further for sentence similarity) that is looked up and pooled, so it
needs only numpy and the `tokenizers` library, loads in a fraction of a second and embeds
thousands of passages a second on one core. Its wheel carries the 16 MB weight table and the
tokenizer, and `wordllama` is one of lore-mem's own dependencies, so a plain `pip install lore-mem`
searches by meaning with no network and nothing to download. `bench/embed.py` measured it against
the other candidates (docs/models.md has the table and why it won).

Lore reads the two files itself rather than through the `wordllama` package: the model is a
table lookup and a mean, and importing the package (pydantic configs, requests, toml) cost more
than the rest of a `lore review resolve`. The text is split with `tokenizers`, exactly as
WordLlama's own inference does (no special tokens, no truncation, the mean of the token vectors);
`tests/core/test_embed_wordllama.py` holds the two equal. The weight table (16 MB of float16) is
memory-mapped, not read: a lookup touches only the rows of the tokens it uses, each converted to
float32 as it is gathered (the same numbers as converting the whole table first), so a process
that embeds one task sentence never reads or copies the rest. Nothing here can reach the
network."""

from __future__ import annotations

import json
import struct
import threading
from dataclasses import dataclass
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
_model: _Model | None = None


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


@dataclass(frozen=True)
class _Model:
    table: np.ndarray  # (vocabulary, DIM), float16 or float32, memory-mapped
    tokenizer: Any


_DTYPES = {"F16": np.float16, "F32": np.float32}


def map_table(path: Path, name: str = "embedding.weight") -> np.ndarray:
    """One 2-D tensor of a safetensors file, memory-mapped read-only (ValueError when the file is
    not what it says: a header that does not parse, an unknown dtype, offsets past its end).

    The format is an 8-byte little-endian header length, a JSON header naming each tensor's
    dtype, shape and byte offsets, then the data."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        if not 2 <= length <= min(size - 8, 1 << 20):
            raise ValueError(f"a header of {length} bytes in a file of {size}")
        entry = json.loads(handle.read(length))[name]
    dtype = _DTYPES.get(entry["dtype"])
    rows, cols = (int(n) for n in entry["shape"])
    start, end = (int(n) for n in entry["data_offsets"])
    if dtype is None or end - start != rows * cols * np.dtype(dtype).itemsize or 8 + length + end > size:
        raise ValueError(f"{name} is {entry['dtype']} {entry['shape']} at bytes {start}-{end} of {size}")
    return np.memmap(path, dtype=dtype, mode="r", offset=8 + length + start, shape=(rows, cols))


def _load() -> _Model:
    global _model
    with _lock:
        if _model is None:
            folder = package_folder()
            missing = missing_files()
            if folder is None or missing:
                where = f" from {folder}" if folder else ""
                raise NeedsModel(
                    f"the WordLlama model files {', '.join(missing)} are missing{where}: {INSTALL_HINT}"
                )
            try:
                from tokenizers import Tokenizer

                table = map_table(folder / WEIGHTS)
                if table.shape[1] != DIM:
                    raise ValueError(f"its table has {table.shape[1]} columns, not {DIM}")
                tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
            except Exception as exc:  # a damaged file: safetensors and tokenizers raise their own kinds
                raise NeedsModel(
                    f"the WordLlama model in {folder} cannot be loaded ({exc}): {INSTALL_HINT}"
                ) from exc
            tokenizer.no_padding()
            tokenizer.no_truncation()
            _model = _Model(table, tokenizer)
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
            model = _load()
            last = len(model.table) - 1
            for i, encoding in zip(
                rows,
                model.tokenizer.encode_batch([texts[i] for i in rows], add_special_tokens=False),
                strict=True,
            ):
                if encoding.ids:
                    ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, last)
                    out[i] = model.table[ids].astype(np.float32).mean(axis=0)
        return out
