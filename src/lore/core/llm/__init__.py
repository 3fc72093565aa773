"""Language models for Lore: providers, structured output, the content-hash cache and accounting.

    from lore.core.llm import BOOKS_EXTRACT, complete_structured_sync, model_run, totals

    with model_run("books extract", subject="book:3") as run:
        facts = complete_structured_sync(prompt, Facts, task=BOOKS_EXTRACT)
    print(totals(run_id=run).line())

Without a configured model every call raises `NeedsModel`, whose message says how to set one.
The names below are imported on first use (`__getattr__`), so importing one light module of the
package (`settings`, `errors`) does not load the client.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lore.core.llm.cache import bypass_cache, cache_bypassed
    from lore.core.llm.client import (
        ModelClient,
        complete_structured,
        complete_structured_sync,
        complete_sync,
        run_sync,
    )
    from lore.core.llm.errors import ModelCallError, StructuredOutputError
    from lore.core.llm.providers import ModelSpec
    from lore.core.llm.replies import Completion, StructuredResult
    from lore.core.llm.settings import model_configured, resolve_model
    from lore.core.llm.tasks import BOOKS_EXTRACT, TASKS
    from lore.core.llm.usage import (
        Totals,
        current_run,
        model_run,
        model_subject,
        totals,
        totals_by_model,
        totals_by_subject,
    )

_HOMES: dict[str, str] = {  # name -> the module that defines it
    "BOOKS_EXTRACT": "lore.core.llm.tasks",
    "Completion": "lore.core.llm.replies",
    "ModelCallError": "lore.core.llm.errors",
    "ModelClient": "lore.core.llm.client",
    "ModelSpec": "lore.core.llm.providers",
    "StructuredOutputError": "lore.core.llm.errors",
    "StructuredResult": "lore.core.llm.replies",
    "TASKS": "lore.core.llm.tasks",
    "Totals": "lore.core.llm.usage",
    "bypass_cache": "lore.core.llm.cache",
    "cache_bypassed": "lore.core.llm.cache",
    "complete_structured": "lore.core.llm.client",
    "complete_structured_sync": "lore.core.llm.client",
    "complete_sync": "lore.core.llm.client",
    "current_run": "lore.core.llm.usage",
    "model_configured": "lore.core.llm.settings",
    "model_run": "lore.core.llm.usage",
    "model_subject": "lore.core.llm.usage",
    "resolve_model": "lore.core.llm.settings",
    "run_sync": "lore.core.llm.client",
    "totals": "lore.core.llm.usage",
    "totals_by_model": "lore.core.llm.usage",
    "totals_by_subject": "lore.core.llm.usage",
}

__all__ = [
    "BOOKS_EXTRACT",
    "TASKS",
    "Completion",
    "ModelCallError",
    "ModelClient",
    "ModelSpec",
    "StructuredOutputError",
    "StructuredResult",
    "Totals",
    "bypass_cache",
    "cache_bypassed",
    "complete_structured",
    "complete_structured_sync",
    "complete_sync",
    "current_run",
    "model_configured",
    "model_run",
    "model_subject",
    "resolve_model",
    "run_sync",
    "totals",
    "totals_by_model",
    "totals_by_subject",
]


def __getattr__(name: str) -> Any:
    """Each name imported from its module on first use: the client (httpx, the cache) loads
    only for a command that calls a model, not for one that only asks whether one is set."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
