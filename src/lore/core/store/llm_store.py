"""The SQL of model use: the content-hash cache (replies and vectors) and the usage ledger.

`lore.core.llm.cache` and `lore.core.llm.usage` hold the logic (keys, bypass, prices, totals);
this module only stores and fetches, returning plain records, so another backend replaces
this file and nothing above it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lore.core.store.binding import in_marks
from lore.core.store.sqlite import Migration, Store, open_store_for

CACHE_MIGRATIONS = [
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

USAGE_MIGRATIONS = [
    Migration(
        "core/llm_0002_usage",
        """
        CREATE TABLE llm_runs (
            run_id TEXT PRIMARY KEY,
            label TEXT,
            started_at REAL NOT NULL
        );
        CREATE TABLE llm_usage (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            subject TEXT,
            task TEXT,
            kind TEXT NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            cached INTEGER NOT NULL,
            items INTEGER NOT NULL DEFAULT 1,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            estimated INTEGER NOT NULL,
            latency_ms REAL,
            created_at REAL NOT NULL
        );
        CREATE INDEX llm_usage_run ON llm_usage (run_id);
        CREATE INDEX llm_usage_subject ON llm_usage (subject);
        """,
    )
]

_CHUNK = 400  # keys per IN (...) lookup, well under SQLite's variable limit
_CACHE_TABLES = {"chat": "llm_cache", "embed": "llm_embed_cache"}
# how usage rows can be grouped: a name the logic layer uses -> its SQL expression
_GROUPS = {"all": "'all'", "subject": "subject", "model": "provider || ':' || model", "run": "run_id"}


@dataclass(frozen=True)
class CachedReply:
    """A stored chat reply and what it cost when it was first asked."""

    text: str
    reply_model: str | None
    prompt_tokens: int
    completion_tokens: int
    estimated: bool


@dataclass(frozen=True)
class CacheCounts:
    """Sizes of both caches, and entries per model (`kind` chat or embed)."""

    chat_entries: int
    chat_hits: int
    chat_bytes: int
    embed_entries: int
    embed_bytes: int
    by_model: tuple[tuple[str, str, int, int | None], ...]  # (kind, model, entries, hits)


@dataclass(frozen=True)
class UsageRow:
    """Usage summed over one group, kind, provider, model and cache outcome."""

    group: Any
    kind: str
    provider: str
    model: str
    cached: bool
    count: int
    items: int
    prompt_tokens: int
    completion_tokens: int
    estimated: bool


@dataclass(frozen=True)
class RunRow:
    run_id: str
    label: str | None
    started_at: float
    rows: int


class LlmStore:
    """The cache and usage tables of one Store."""

    def __init__(self, store: Store | None = None):
        self.store = store or open_store_for(CACHE_MIGRATIONS + USAGE_MIGRATIONS)
        self.store.migrate(CACHE_MIGRATIONS + USAGE_MIGRATIONS)

    # -- chat replies -----------------------------------------------------------------------
    def reply(self, key: str) -> CachedReply | None:
        """The stored reply for a request key, counted as a hit."""
        row = (
            self.store.connect()
            .execute(
                "SELECT response, reply_model, prompt_tokens, completion_tokens, estimated"
                " FROM llm_cache WHERE key = ?",
                (key,),
            )
            .fetchone()
        )
        if row is None:
            return None
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE llm_cache SET hits = hits + 1, last_hit_at = ? WHERE key = ?", (time.time(), key)
            )
        return CachedReply(row[0], row[1], row[2], row[3], bool(row[4]))

    def put_reply(
        self, key: str, provider: str, model: str, request: dict[str, Any], reply: CachedReply
    ) -> None:
        with self.store.transaction() as tx:
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

    def drop_reply(self, key: str) -> None:
        with self.store.transaction() as tx:
            tx.execute("DELETE FROM llm_cache WHERE key = ?", (key,))

    # -- vectors ----------------------------------------------------------------------------
    def vectors(self, embedder: str, keys: Sequence[str]) -> dict[str, bytes]:
        """The stored vector bytes (little-endian float32) of those keys that are cached."""
        conn = self.store.connect()
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start : start + _CHUNK]
            rows = conn.execute(
                f"SELECT key, vector FROM llm_embed_cache WHERE embedder = ? AND key IN ({in_marks(chunk)})",
                (embedder, *chunk),
            )
            for key, blob in rows:
                found[key] = bytes(blob)
        return found

    def known_dim(self, embedder: str) -> int | None:
        row = (
            self.store.connect()
            .execute("SELECT dim FROM llm_embed_cache WHERE embedder = ? LIMIT 1", (embedder,))
            .fetchone()
        )
        return int(row[0]) if row else None

    def put_vectors(self, embedder: str, dim: int, items: Sequence[tuple[str, bytes]]) -> None:
        """(key, vector bytes) pairs, replacing any stored under the same key."""
        now = time.time()
        with self.store.transaction() as tx:
            tx.executemany(
                "INSERT OR REPLACE INTO llm_embed_cache (key, embedder, dim, vector, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [(key, embedder, dim, blob, now) for key, blob in items],
            )

    # -- both caches ------------------------------------------------------------------------
    def counts(self) -> CacheCounts:
        conn = self.store.connect()
        chat = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(hits), 0),"
            " COALESCE(SUM(LENGTH(request) + LENGTH(response)), 0) FROM llm_cache"
        ).fetchone()
        embed = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(vector)), 0) FROM llm_embed_cache"
        ).fetchone()
        by_model = [
            ("chat", f"{r[0]}:{r[1]}", int(r[2]), int(r[3]))
            for r in conn.execute(
                "SELECT provider, model, COUNT(*), SUM(hits) FROM llm_cache"
                " GROUP BY provider, model ORDER BY provider, model"
            )
        ] + [
            ("embed", r[0], int(r[1]), None)
            for r in conn.execute(
                "SELECT embedder, COUNT(*) FROM llm_embed_cache GROUP BY embedder ORDER BY embedder"
            )
        ]
        return CacheCounts(chat[0], chat[1], chat[2], embed[0], embed[1], tuple(by_model))

    def clear(self, kinds: Sequence[str]) -> int:
        """Delete every entry of the named caches (`chat`, `embed`); returns the rows removed."""
        removed = 0
        with self.store.transaction() as tx:
            for kind in kinds:
                removed += tx.execute(f"DELETE FROM {_CACHE_TABLES[kind]}").rowcount
        return removed

    # -- usage ------------------------------------------------------------------------------
    def record_usage(self, run_id: str, label: str | None, row: dict[str, Any]) -> None:
        """One call's usage (keys as the llm_usage columns), under its run."""
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT OR IGNORE INTO llm_runs (run_id, label, started_at) VALUES (?, ?, ?)",
                (run_id, label, time.time()),
            )
            tx.execute(
                "INSERT INTO llm_usage (run_id, subject, task, kind, provider, model, cached, items,"
                " prompt_tokens, completion_tokens, estimated, latency_ms, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    row.get("subject"),
                    row.get("task"),
                    row["kind"],
                    row["provider"],
                    row["model"],
                    int(row["cached"]),
                    row.get("items", 1),
                    row["prompt_tokens"],
                    row["completion_tokens"],
                    int(row["estimated"]),
                    row.get("latency_ms"),
                    time.time(),
                ),
            )

    def usage(
        self, group: str, run_id: str | None, subject: str | None, prefix: str | None
    ) -> list[UsageRow]:
        """Usage summed per `group` (all, subject, model or run), filtered by run and subject."""
        terms, params = ["1"], []
        if run_id is not None:
            terms.append("run_id = ?")
            params.append(run_id)
        if subject is not None:
            terms.append("subject = ?")
            params.append(subject)
        if prefix is not None:
            terms.append("subject LIKE ? ESCAPE '\\'")
            params.append(prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        column = _GROUPS[group]
        rows = self.store.connect().execute(
            f"SELECT {column}, kind, provider, model, cached, COUNT(*), SUM(items),"
            " SUM(prompt_tokens), SUM(completion_tokens), MAX(estimated)"
            f" FROM llm_usage WHERE {' AND '.join(terms)} GROUP BY {column}, kind, provider, model, cached",
            params,
        )
        return [
            UsageRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7], r[8], bool(r[9])) for r in rows
        ]

    def recent_runs(self, limit: int) -> list[RunRow]:
        rows = self.store.connect().execute(
            "SELECT r.run_id, r.label, r.started_at, COUNT(u.id) FROM llm_runs r"
            " LEFT JOIN llm_usage u ON u.run_id = r.run_id GROUP BY r.run_id"
            " ORDER BY r.started_at DESC LIMIT ?",
            (limit,),
        )
        return [RunRow(r[0], r[1], r[2], r[3]) for r in rows]
