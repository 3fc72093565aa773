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
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from lore.core.errors import InvalidInput
from lore.core.store import Migration, Store, open_store

MIGRATIONS = [
    Migration(
        "core/llm_0001_cache",
        """
        CREATE TABLE llm_cache (
            key TEXT PRIMARY KEY,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            request TEXT NOT NULL,
            response TEXT NOT NULL,
            reply_model TEXT,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            estimated INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            hits INTEGER NOT NULL DEFAULT 0,
            last_hit_at REAL
        );
        CREATE TABLE llm_embed_cache (
            key TEXT PRIMARY KEY,
            embedder TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE INDEX llm_embed_cache_embedder ON llm_embed_cache (embedder);
        """,
    )
]

_CHUNK = 400  # keys per IN (...) lookup, well under SQLite's variable limit


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


def cache_store(store: Store | None = None) -> Store:
    store = store or open_store()
    store.migrate(MIGRATIONS)
    return store


def request_key(request: dict[str, Any]) -> str:
    """A stable hash of a request: canonical JSON (sorted keys), SHA-256."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedReply:
    text: str
    reply_model: str | None
    prompt_tokens: int
    completion_tokens: int
    estimated: bool


def get_reply(key: str, store: Store | None = None) -> CachedReply | None:
    store = cache_store(store)
    conn = store.connect()
    row = conn.execute(
        "SELECT response, reply_model, prompt_tokens, completion_tokens, estimated"
        " FROM llm_cache WHERE key = ?",
        (key,),
    ).fetchone()
    if row is None:
        return None
    with store.transaction() as tx:
        tx.execute("UPDATE llm_cache SET hits = hits + 1, last_hit_at = ? WHERE key = ?", (time.time(), key))
    return CachedReply(row[0], row[1], row[2], row[3], bool(row[4]))


def put_reply(
    key: str,
    provider: str,
    model: str,
    request: dict[str, Any],
    reply: CachedReply,
    store: Store | None = None,
) -> None:
    """Store (or refresh, after a `--no-cache` run) the reply to a request."""
    store = cache_store(store)
    with store.transaction() as tx:
        tx.execute(
            "INSERT INTO llm_cache (key, provider, model, request, response, reply_model,"
            " prompt_tokens, completion_tokens, estimated, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET response = excluded.response,"
            " reply_model = excluded.reply_model, prompt_tokens = excluded.prompt_tokens,"
            " completion_tokens = excluded.completion_tokens, estimated = excluded.estimated,"
            " created_at = excluded.created_at",
            (
                key,
                provider,
                model,
                json.dumps(request, sort_keys=True, ensure_ascii=False),
                reply.text,
                reply.reply_model,
                reply.prompt_tokens,
                reply.completion_tokens,
                int(reply.estimated),
                time.time(),
            ),
        )


def drop_reply(key: str, store: Store | None = None) -> None:
    """Forget one reply (a structured call that failed for good is asked afresh next time)."""
    store = cache_store(store)
    with store.transaction() as tx:
        tx.execute("DELETE FROM llm_cache WHERE key = ?", (key,))


def embed_key(embedder: str, text: str) -> str:
    return hashlib.sha256(f"{embedder}\x00{text}".encode()).hexdigest()


def get_vectors(embedder: str, texts: Sequence[str], store: Store | None = None) -> dict[int, np.ndarray]:
    """Cached vectors for `texts`, as {position in texts: vector}; misses are absent."""
    conn = cache_store(store).connect()
    keys = [embed_key(embedder, t) for t in texts]
    found: dict[str, np.ndarray] = {}
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT key, vector FROM llm_embed_cache WHERE embedder = ? AND key IN ({marks})",
            (embedder, *chunk),
        )
        for key, blob in rows:
            found[key] = np.frombuffer(blob, dtype="<f4")
    return {i: found[k] for i, k in enumerate(keys) if k in found}


def known_dim(embedder: str, store: Store | None = None) -> int | None:
    """The dimension of an embedder's cached vectors, if any are cached."""
    row = (
        cache_store(store)
        .connect()
        .execute("SELECT dim FROM llm_embed_cache WHERE embedder = ? LIMIT 1", (embedder,))
        .fetchone()
    )
    return int(row[0]) if row else None


def put_vectors(
    embedder: str,
    texts: Sequence[str],
    vectors: np.ndarray,
    store: Store | None = None,
) -> None:
    store = cache_store(store)
    now = time.time()
    dim = int(vectors.shape[1]) if vectors.ndim == 2 else 0
    rows = [
        (embed_key(embedder, t), embedder, dim, np.asarray(v, dtype="<f4").tobytes(), now)
        for t, v in zip(texts, vectors, strict=True)
    ]
    with store.transaction() as tx:
        tx.executemany(
            "INSERT OR REPLACE INTO llm_embed_cache (key, embedder, dim, vector, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            rows,
        )


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
    conn = cache_store(store).connect()
    chat = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(hits), 0),"
        " COALESCE(SUM(LENGTH(request) + LENGTH(response)), 0) FROM llm_cache"
    ).fetchone()
    embed = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(vector)), 0) FROM llm_embed_cache").fetchone()
    by_model = [
        {"kind": "chat", "model": f"{r[0]}:{r[1]}", "entries": r[2], "hits": r[3]}
        for r in conn.execute(
            "SELECT provider, model, COUNT(*), SUM(hits) FROM llm_cache"
            " GROUP BY provider, model ORDER BY provider, model"
        )
    ] + [
        {"kind": "embed", "model": r[0], "entries": r[1], "hits": None}
        for r in conn.execute(
            "SELECT embedder, COUNT(*) FROM llm_embed_cache GROUP BY embedder ORDER BY embedder"
        )
    ]
    return CacheStats(chat[0], chat[1], chat[2], embed[0], embed[1], by_model)


def clear_cache(kind: str | None = None, store: Store | None = None) -> int:
    """Delete cached replies (`chat`), vectors (`embed`) or both; returns the rows removed."""
    tables = {"chat": ["llm_cache"], "embed": ["llm_embed_cache"], None: ["llm_cache", "llm_embed_cache"]}
    if kind not in tables:
        raise InvalidInput(f"unknown cache kind {kind!r}: use chat, embed or leave it out for both")
    store = cache_store(store)
    removed = 0
    with store.transaction() as tx:
        for table in tables[kind]:
            removed += tx.execute(f"DELETE FROM {table}").rowcount
    return removed
