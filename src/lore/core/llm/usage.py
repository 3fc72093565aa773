"""Accounting: what each run and each domain object (a book, a repository) cost in model use.

Every chat call and embedding batch leaves one row: run, subject (a free-form name such as
`book:3` or `repo:owner/name`), task, provider, model, whether the cache answered, and the
tokens (the provider's count, else an estimate at four characters a token). Cost is worked
out when asked, from the user's price table in `config.json` (`model.prices`, dollars per
million tokens), so prices added later apply to past runs too; cache hits cost nothing.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.core.config import warn
from lore.core.errors import InvalidInput
from lore.core.llm.sources import model_config
from lore.core.store.base import Store
from lore.core.store.llm_store import LlmStore

_PROCESS_RUN = f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
_run: ContextVar[tuple[str, str | None]] = ContextVar("lore_model_run", default=(_PROCESS_RUN, None))
_subject: ContextVar[str | None] = ContextVar("lore_model_subject", default=None)


def current_run() -> str:
    """The run id calls are counted under: the innermost `model_run`, else this process."""
    return _run.get()[0]


@contextmanager
def model_run(label: str | None = None, subject: str | None = None) -> Iterator[str]:
    """Count the calls made inside under a new run (and a default subject); yields the run id.

    Inside another run it joins that one (one command is one run, whatever it calls) and only
    sets the subject.
    """
    outer = _run.get()
    run_id = (
        outer[0] if outer[0] != _PROCESS_RUN else (f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}")
    )
    run_token = _run.set((run_id, outer[1] if run_id == outer[0] else label))
    subject_token = _subject.set(subject) if subject is not None else None
    try:
        yield run_id
    finally:
        _run.reset(run_token)
        if subject_token is not None:
            _subject.reset(subject_token)


@contextmanager
def model_subject(subject: str) -> Iterator[None]:
    """Count the calls made inside against `subject` (e.g. `book:3`): chat calls and embedding
    batches alike, whoever makes them."""
    token = _subject.set(subject)
    try:
        yield
    finally:
        _subject.reset(token)


def record(
    *,
    kind: str,
    provider: str,
    model: str,
    cached: bool,
    prompt_tokens: int,
    completion_tokens: int,
    estimated: bool,
    items: int = 1,
    task: str | None = None,
    subject: str | None = None,
    latency_ms: float | None = None,
    store: Store | None = None,
) -> None:
    run_id, label = _run.get()
    row = {
        "subject": subject if subject is not None else _subject.get(),
        "task": task,
        "kind": kind,
        "provider": provider,
        "model": model,
        "cached": cached,
        "items": items,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "estimated": estimated,
        "latency_ms": latency_ms,
    }
    LlmStore(store).record_usage(run_id, label, row)


# -- queries -----------------------------------------------------------------------------------


@dataclass
class Totals:
    """Model use added up; `cost` is None when no price is known for any model used."""

    calls: int = 0  # requests a model answered: chat requests and embedding batches
    cache_hits: int = 0  # chat requests the cache answered
    prompt_tokens: int = 0  # spent (cache hits excluded)
    completion_tokens: int = 0
    estimated_tokens: bool = False  # some counts are estimates
    embed_calls: int = 0  # of the calls, embedding batches
    embedded_texts: int = 0
    embed_cache_hits: int = 0  # texts whose vectors came from the cache
    cost: float | None = None
    unpriced: list[str] = field(default_factory=list)  # models used without a price

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One human line, e.g. for the end of a run."""
        parts = [
            f"{self.calls} model call{'s' if self.calls != 1 else ''} ({self.cache_hits} from cache)",
            f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens"
            + (" (some estimated)" if self.estimated_tokens else ""),
        ]
        if self.embed_calls or self.embed_cache_hits:
            parts.append(
                f"{self.embedded_texts:,} texts embedded in {self.embed_calls:,}"
                f" call{'s' if self.embed_calls != 1 else ''} ({self.embed_cache_hits:,} from cache)"
            )
        if self.cost is not None:
            parts.append(f"${self.cost:.4f}" + (" (some models unpriced)" if self.unpriced else ""))
        elif self.unpriced:
            parts.append("cost unknown (add model.prices to config.json)")
        return ", ".join(parts)


def prices(config: dict[str, Any] | None = None) -> dict[str, tuple[float, float]]:
    """The user's price table: model -> (input, output) dollars per million tokens."""
    conf = model_config(config)
    table = conf.get("prices") or {}
    out: dict[str, tuple[float, float]] = {}
    if not isinstance(table, dict):
        warn("config model.prices must map model names to {input, output}; ignoring it")
        return out
    for model, price in table.items():
        if isinstance(price, dict) and all(
            isinstance(price.get(k, 0), int | float) for k in ("input", "output")
        ):
            out[str(model)] = (float(price.get("input", 0)), float(price.get("output", 0)))
        else:
            warn(f'config model.prices.{model} must be {{"input": n, "output": n}}; ignoring it')
    return out


def _grouped(
    group: str, run_id: str | None, subject: str | None, prefix: str | None, store: Store | None
) -> dict[Any, Totals]:
    table = prices()
    out: dict[Any, Totals] = {}
    for r in LlmStore(store).usage(group, run_id, subject, prefix):
        t = out.setdefault(r.group, Totals())
        if r.kind == "chat":
            if r.cached:
                t.cache_hits += r.count
                continue
            t.calls += r.count
        else:
            if r.cached:
                t.embed_cache_hits += r.items
                continue
            t.calls += r.count
            t.embed_calls += r.count
            t.embedded_texts += r.items
        t.prompt_tokens += r.prompt_tokens
        t.completion_tokens += r.completion_tokens
        t.estimated_tokens = t.estimated_tokens or r.estimated
        price = table.get(f"{r.provider}:{r.model}") or table.get(r.model)
        if price is None:
            if r.provider != "local" and r.model not in t.unpriced:
                t.unpriced.append(r.model)
            continue
        t.cost = (t.cost or 0.0) + (r.prompt_tokens * price[0] + r.completion_tokens * price[1]) / 1_000_000
    return out


def totals(
    *,
    run_id: str | None = None,
    subject: str | None = None,
    subject_prefix: str | None = None,
    store: Store | None = None,
) -> Totals:
    """Everything matching the filters added up (no filter: all use ever recorded)."""
    return _grouped("all", run_id, subject, subject_prefix, store).get("all", Totals())


def totals_by_subject(
    prefix: str | None = None, *, run_id: str | None = None, store: Store | None = None
) -> dict[str, Totals]:
    """Totals per subject (`book:3`, `repo:owner/name`), optionally those starting with `prefix`."""
    grouped = _grouped("subject", run_id, None, prefix, store)
    return {k if k is not None else "": v for k, v in sorted(grouped.items(), key=lambda kv: kv[0] or "")}


def totals_by_model(*, run_id: str | None = None, store: Store | None = None) -> dict[str, Totals]:
    return dict(sorted(_grouped("model", run_id, None, None, store).items()))


def usage_report(
    by: str = "subject",
    *,
    subject_prefix: str | None = None,
    run_id: str | None = None,
    store: Store | None = None,
) -> dict[str, Totals]:
    """Totals grouped `by` subject, model or run, for `lore model usage`."""
    if by not in ("subject", "model", "run"):
        raise InvalidInput(f"cannot group usage by {by!r}: use subject, model or run")
    grouped = _grouped(by, run_id, None, subject_prefix, store)
    return {k if k is not None else "": v for k, v in sorted(grouped.items(), key=lambda kv: kv[0] or "")}


def recent_runs(limit: int = 10, store: Store | None = None) -> list[dict[str, Any]]:
    return [
        {"run_id": r.run_id, "label": r.label, "started_at": r.started_at, "rows": r.rows}
        for r in LlmStore(store).recent_runs(limit)
    ]
