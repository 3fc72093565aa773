"""What the model setup looks like, and a one-call check that it works (for `lore model`)."""

from __future__ import annotations

import time
from typing import Any

from lore.core.errors import LoreError, NeedsModel
from lore.core.llm import usage
from lore.core.llm.client import ModelClient
from lore.core.llm.keys import MissingKey
from lore.core.llm.runtime import runtime_options
from lore.core.llm.settings import resolve_model
from lore.core.llm.tasks import TASKS, check_task, task_env_var

PING = "Reply with the single word: pong"


def setup_overview(task: str | None = None) -> dict[str, Any]:
    """The chat model (key masked), task overrides, embedder, limits and prices, as plain data."""
    from lore.core.embed.factory import describe_embedder, describe_line
    from lore.core.vectors import sqlite_vec_status

    if task:
        check_task(task)
    out: dict[str, Any] = {}
    try:
        out["chat"] = resolve_model(task).describe()
    except MissingKey as exc:  # a model is chosen; only its key is missing
        out["chat"] = None
        out["needs_model"] = str(exc)
        out["missing_key"] = {"model": f"{exc.provider}:{exc.model}", "from": exc.where, "places": exc.places}
    except NeedsModel as exc:
        out["chat"] = None
        out["needs_model"] = str(exc)
    except LoreError as exc:  # e.g. an unknown provider name in config
        out["chat"] = None
        out["needs_model"] = str(exc)
    out["tasks"] = {}
    for name, about in TASKS.items():
        entry: dict[str, Any] = {"about": about, "model": None}
        try:
            spec = resolve_model(name)
        except NeedsModel:
            entry["from"] = "no model is configured"
        except LoreError as exc:
            entry["from"] = f"unusable: {exc}"
        else:
            where = spec.sources.get("model", "")
            own = where.endswith(task_env_var(name)) or where.startswith("config model.tasks")
            entry["model"], entry["from"] = spec.label, where if own else f"the default ({where})"
        out["tasks"][name] = entry
    out["embedder_info"] = describe_embedder()  # name, dim, where its weights are, where it came from
    out["embedder"] = describe_line(out["embedder_info"])
    ok, how = sqlite_vec_status()
    out["vector_search"] = "numpy (exact)" + (f"; {how}" if ok else "; sqlite-vec not available")
    out["limits"] = runtime_options().__dict__
    out["prices"] = {k: {"input": v[0], "output": v[1]} for k, v in usage.prices().items()}
    return out


def ping_model(task: str | None = None) -> dict[str, Any]:
    """One tiny real call (never from the cache): who answered, how fast, what it said."""
    client = ModelClient(task=task, no_cache=True)
    spec = client.spec()
    started = time.perf_counter()
    with usage.model_run("model test"):
        reply = client.complete_sync(PING)
    return {
        "model": spec.label,
        "reply_model": reply.reply_model or spec.model,
        "latency_ms": round((time.perf_counter() - started) * 1000, 1),
        "reply": reply.text.strip()[:200],
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "estimated_tokens": reply.estimated,
    }
