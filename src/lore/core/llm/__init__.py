"""Language models for Lore: providers, structured output, the content-hash cache and accounting.

    from lore.core.llm import BOOKS_EXTRACT, complete_structured_sync, model_run, totals

    with model_run("books extract", subject="book:3") as run:
        facts = complete_structured_sync(prompt, Facts, task=BOOKS_EXTRACT)
    print(totals(run_id=run).line())

Without a configured model every call raises `NeedsModel`, whose message says how to set one.
"""

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
