"""The content-hash cache: every completion and embedding, keyed by a hash of what was asked.

A re-run asks the store first, so it makes no network call and pays nothing; the cache is
also the frozen record that makes a past run reproducible. Chat replies are keyed by
(provider, server base URL, model, messages, parameters, schema); embeddings by (embedder
name, plus the server for remote ones, and text).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from lore.core.errors import InvalidInput
from lore.core.store.base import Store
from lore.core.store.llm_store import CachedReply, LlmStore

_bypassed: ContextVar[bool] = ContextVar("lore_no_cache", default=False)


def cache_bypassed() -> bool:
    """Whether calls made now ask the model again: inside `bypass_cache()`, or LORE_NO_CACHE=1.

    Asking again still stores the fresh reply, so the next run replays the new one.
    """
    if _bypassed.get():
        return True
    return os.environ.get("LORE_NO_CACHE", "").strip().lower() in ("1", "true", "yes", "on")


@contextmanager
def bypass_cache(on: bool = True) -> Iterator[None]:
    """Inside, every completion and embedding is asked afresh (what a command's `--no-cache`
    does); `bypass_cache(False)` changes nothing, so a flag can be passed straight in."""
    token = _bypassed.set(_bypassed.get() or on)
    try:
        yield
    finally:
        _bypassed.reset(token)


def request_key(request: dict[str, Any]) -> str:
    """A stable hash of a request: canonical JSON (sorted keys), SHA-256."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def get_reply(key: str, store: Store | None = None) -> CachedReply | None:
    return LlmStore(store).reply(key)


def put_reply(
    key: str,
    provider: str,
    model: str,
    request: dict[str, Any],
    reply: CachedReply,
    store: Store | None = None,
) -> None:
    """Store (or refresh, after a `--no-cache` run) the reply to a request."""
    LlmStore(store).put_reply(key, provider, model, request, reply)


def drop_reply(key: str, store: Store | None = None) -> None:
    """Forget one reply (a structured call that failed for good is asked afresh next time)."""
    LlmStore(store).drop_reply(key)


def embed_key(embedder: str, text: str) -> str:
    return hashlib.sha256(f"{embedder}\x00{text}".encode()).hexdigest()


def get_vectors(embedder: str, texts: Sequence[str], store: Store | None = None) -> dict[int, np.ndarray]:
    """Cached vectors for `texts`, as {position in texts: vector}; misses are absent."""
    keys = [embed_key(embedder, t) for t in texts]
    found = LlmStore(store).vectors(embedder, list(dict.fromkeys(keys)))
    return {i: np.frombuffer(found[k], dtype="<f4") for i, k in enumerate(keys) if k in found}


def known_dim(embedder: str, store: Store | None = None) -> int | None:
    """The dimension of an embedder's cached vectors, if any are cached."""
    return LlmStore(store).known_dim(embedder)


def put_vectors(
    embedder: str,
    texts: Sequence[str],
    vectors: np.ndarray,
    store: Store | None = None,
) -> None:
    dim = int(vectors.shape[1]) if vectors.ndim == 2 else 0
    items = [
        (embed_key(embedder, t), np.asarray(v, dtype="<f4").tobytes())
        for t, v in zip(texts, vectors, strict=True)
    ]
    LlmStore(store).put_vectors(embedder, dim, items)


@dataclass(frozen=True)
class CacheStats:
    chat_entries: int
    chat_hits: int
    chat_bytes: int
    embed_entries: int
    embed_bytes: int
    by_model: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "chat_entries": self.chat_entries,
            "chat_hits": self.chat_hits,
            "chat_bytes": self.chat_bytes,
            "embed_entries": self.embed_entries,
            "embed_bytes": self.embed_bytes,
            "by_model": self.by_model,
        }


def cache_stats(store: Store | None = None) -> CacheStats:
    c = LlmStore(store).counts()
    by_model = [
        {"kind": kind, "model": model, "entries": entries, "hits": hits}
        for kind, model, entries, hits in c.by_model
    ]
    return CacheStats(c.chat_entries, c.chat_hits, c.chat_bytes, c.embed_entries, c.embed_bytes, by_model)


def clear_cache(kind: str | None = None, store: Store | None = None) -> int:
    """Delete cached replies (`chat`), vectors (`embed`) or both; returns the rows removed."""
    kinds = {"chat": ["chat"], "embed": ["embed"], None: ["chat", "embed"]}
    if kind not in kinds:
        raise InvalidInput(f"unknown cache kind {kind!r}: use chat, embed or leave it out for both")
    return LlmStore(store).clear(kinds[kind])
