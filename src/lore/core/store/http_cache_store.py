"""The SQL of the GitHub client's HTTP cache: one stored response per request key.

The client (`lore.core.github`) decides what is fresh and when to revalidate with the ETag;
this module only keeps and returns the responses as records.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from lore.core.store.base import Migration, Store
from lore.core.store.open import open_store_for

MIGRATIONS = [
    Migration(
        "core/github_0001_http_cache",
        """
CREATE TABLE github_http_cache (
    key TEXT PRIMARY KEY,
    method TEXT NOT NULL,
    url TEXT NOT NULL,
    status INTEGER NOT NULL,
    etag TEXT,
    link TEXT,
    body TEXT NOT NULL,
    fetched_at REAL NOT NULL
);
""",
        postgres="""
CREATE TABLE github_http_cache (
    key TEXT PRIMARY KEY,
    method TEXT NOT NULL,
    url TEXT NOT NULL,
    status BIGINT NOT NULL,
    etag TEXT,
    link TEXT,
    body TEXT NOT NULL,
    fetched_at DOUBLE PRECISION NOT NULL
);
""",
    )
]


@dataclass(frozen=True)
class CachedResponse:
    """A stored GET response: status, validators, pagination link and the JSON body as text."""

    status: int
    etag: str | None
    link: str | None
    body: str
    fetched_at: float


class HttpCacheStore:
    """The HTTP cache table of one Store."""

    def __init__(self, store: Store | None = None):
        self.store = store or open_store_for(MIGRATIONS)
        self.store.migrate(MIGRATIONS)

    def get(self, key: str) -> CachedResponse | None:
        row = (
            self.store.connect()
            .execute(
                "SELECT status, etag, link, body, fetched_at FROM github_http_cache WHERE key = ?",
                (key,),
            )
            .fetchone()
        )
        return CachedResponse(*row) if row else None

    def put(self, key: str, url: str, status: int, etag: str | None, link: str | None, data: Any) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO github_http_cache (key, method, url, status, etag, link, body, fetched_at)"
                " VALUES (?, 'GET', ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET"
                " method = excluded.method, url = excluded.url, status = excluded.status,"
                " etag = excluded.etag, link = excluded.link, body = excluded.body,"
                " fetched_at = excluded.fetched_at",
                (key, url, status, etag, link, json.dumps(data), time.time()),
            )

    def touch(self, key: str) -> None:
        """Mark a response fresh again (the server answered 304 Not Modified)."""
        with self.store.transaction() as conn:
            conn.execute("UPDATE github_http_cache SET fetched_at = ? WHERE key = ?", (time.time(), key))
