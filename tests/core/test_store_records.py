"""Core store modules hand out records, never driver objects."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lore.core.store.http_cache_store import HttpCacheStore
from lore.core.store.llm_store import CachedReply, LlmStore
from lore.core.store.open import open_store
from lore.core.store.vectors.store import VectorStore
from support.records import records_only


def test_core_stores_return_records(tmp_path: Path) -> None:
    store = open_store(tmp_path / "core.db")
    llm = LlmStore(store)
    llm.put_reply("k", "openai", "m", {"q": 1}, CachedReply("hi", "m", 3, 1, False))
    llm.put_vectors("e", 2, [("v", np.ones(2, dtype="<f4").tobytes())])
    llm.record_usage(
        "run",
        None,
        {
            "kind": "chat",
            "provider": "openai",
            "model": "m",
            "cached": False,
            "prompt_tokens": 3,
            "completion_tokens": 1,
            "estimated": False,
        },
    )
    vectors = VectorStore(store)
    vectors.upsert("c", "e", 2, [("a", np.ones(2, dtype="<f4").tobytes(), "{}")])
    http = HttpCacheStore(store)
    http.put("key", "https://example.invalid/x", 200, '"etag"', None, {"a": 1})
    records_only(
        reply=llm.reply("k"),
        vectors=llm.vectors("e", ["v"]),
        counts=llm.counts(),
        usage=llm.usage("model", None, None, None),
        runs=llm.recent_runs(5),
        loaded=vectors.load("c", "e"),
        collections=vectors.collections(),
        cached=http.get("key"),
    )
