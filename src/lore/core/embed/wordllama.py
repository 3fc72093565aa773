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
from collections.abc import Iterable
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
_table: np.ndarray | None = None  # (vocabulary, DIM), float16, memory-mapped
_tokenizer: Any = None


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


def _files() -> Path:
    """The package folder, or NeedsModel naming the files a broken install lacks."""
    folder = package_folder()
    missing = missing_files()
    if folder is None or missing:
        where = f" from {folder}" if folder else ""
        raise NeedsModel(f"the WordLlama model files {', '.join(missing)} are missing{where}: {INSTALL_HINT}")
    return folder


def _broken(folder: Path, exc: Exception) -> NeedsModel:
    return NeedsModel(f"the WordLlama model in {folder} cannot be loaded ({exc}): {INSTALL_HINT}")


def _load_table() -> np.ndarray:
    """The (vocabulary, DIM) table, memory-mapped once per process."""
    global _table
    with _lock:
        if _table is None:
            folder = _files()
            try:
                table = map_table(folder / WEIGHTS)
                if table.shape[1] != DIM:
                    raise ValueError(f"its table has {table.shape[1]} columns, not {DIM}")
            except Exception as exc:  # a damaged file: one line that says so
                raise _broken(folder, exc) from exc
            _table = table
        return _table


def _load_tokenizer() -> Any:
    """The tokenizer, read once per process: the costly part of a first embedding (its 61,000 BPE
    merges take tens of milliseconds to build), which `WordIds` spares short texts."""
    global _tokenizer
    with _lock:
        if _tokenizer is None:
            folder = _files()
            try:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
            except Exception as exc:  # tokenizers raises its own kinds for a damaged file
                raise _broken(folder, exc) from exc
            tokenizer.no_padding()
            tokenizer.no_truncation()
            _tokenizer = tokenizer
        return _tokenizer


def tokenizer_loaded() -> bool:
    """Whether this process has read the tokenizer (tests check that short texts need not)."""
    return _tokenizer is not None


class WordIds:
    """Token ids of single words, remembered in `$LORE_HOME/cache/wordllama-words.jsonl`, so that a
    short text whose words were all seen before is tokenised without the tokenizer.

    Exact by construction: the tokenizer only prepends `▁` and turns each space into `▁` (no
    pre-tokenizer), and no token of its vocabulary holds a `▁` after its first character except
    runs of `▁` alone; so in a text of single-space-separated words no merge crosses a word, and
    the text's ids are its words' ids, each word tokenised on its own. Texts that could break
    that (doubled, leading or trailing spaces, the special tokens) are left to the tokenizer;
    `tests/core/test_embed_wordllama.py` checks the equality on real rule texts.

    The file is a header line naming the model, then one `[word, ids]` line per word: new words
    are appended (a few bytes, whatever the size of the memo), a damaged line is skipped, and past
    LIMIT words it starts afresh."""

    LIMIT = 50_000
    SPECIAL = ("<unk>", "<s>", "</s>")

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self.ids: dict[str, list[int]] = {}
        self._header_ok = False
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):  # absent or unreadable: a cache, start empty
            return
        if not lines or lines[0] != self._header():
            return
        self._header_ok = True
        for line in lines[1:]:
            try:
                word, ids = json.loads(line)
            except ValueError:  # a line cut short by a crash: skip it
                continue
            if isinstance(word, str) and isinstance(ids, list):
                self.ids[word] = ids

    @staticmethod
    def _header() -> str:
        return json.dumps({"model": WordLlamaEmbedder.name, "kind": "word token ids"})

    @classmethod
    def fits(cls, text: str) -> bool:
        return (
            bool(text)
            and text == text.strip(" ")
            and "  " not in text
            and not any(s in text for s in cls.SPECIAL)
        )

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """The ids of each text (every text must `fit`), tokenising only words never seen."""
        words = [text.split(" ") for text in texts]
        with self._lock:  # MCP tools run in worker threads; the memo is shared
            new = sorted({w for ws in words for w in ws if w not in self.ids})
            if new:
                tokenizer = _load_tokenizer()
                fresh = len(self.ids) + len(new) > self.LIMIT
                if fresh:
                    self.ids = {}
                encodings = tokenizer.encode_batch(new, add_special_tokens=False)
                for word, encoding in zip(new, encodings, strict=True):
                    self.ids[word] = list(encoding.ids)
                self._save(new, fresh)
            return [[i for w in ws for i in self.ids[w]] for ws in words]

    def _save(self, new: list[str], fresh: bool) -> None:
        from lore.core.files import write_atomic

        def lines(words: Iterable[str]) -> str:
            return "".join(json.dumps([w, self.ids[w]], ensure_ascii=False) + "\n" for w in words)

        try:
            if fresh or not self._header_ok or not self.path.exists():  # the whole memo, once
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(self.path, self._header() + "\n" + lines(self.ids))
                self._header_ok = True
            else:  # only the new words
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(lines(new))
        except OSError:  # a read-only home: the memo lives for this process only
            pass


_words: WordIds | None = None
_words_home: str | None = None  # the LORE_HOME the memo was opened for
MEMO_CHARS = 2_000  # batches up to this size go through WordIds; bulk embedding loads the tokenizer


def use_memo(texts: list[str]) -> bool:
    """Whether a batch is tokenised through `WordIds`: every text must fit, and the batch be short
    or made of single words (what hybrid selection's word-by-word match embeds, hundreds at a
    time: a known word is a lookup, so the tokenizer is read only for words never seen)."""
    if not all(map(WordIds.fits, texts)):
        return False
    return sum(map(len, texts)) <= MEMO_CHARS or not any(" " in text for text in texts)


def _word_ids() -> WordIds:
    """The process's memo, opened again only when LORE_HOME changes (tests switch it)."""
    global _words, _words_home
    import os

    home = os.environ.get("LORE_HOME", "")
    with _lock:
        if _words is None or _words_home != home:
            from lore.core.home import lore_home

            _words, _words_home = WordIds(lore_home() / "cache" / "wordllama-words.jsonl"), home
        return _words


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
            table = _load_table()
            last = len(table) - 1
            chosen = [texts[i] for i in rows]
            if use_memo(chosen):
                token_ids = _word_ids().token_ids(chosen)
            else:
                encodings = _load_tokenizer().encode_batch(chosen, add_special_tokens=False)
                token_ids = [e.ids for e in encodings]
            for i, found in zip(rows, token_ids, strict=True):
                if found:
                    ids = np.clip(np.asarray(found, dtype=np.int64), 0, last)
                    out[i] = table[ids].astype(np.float32).mean(axis=0)
        return out
