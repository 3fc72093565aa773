"""How model calls are made whatever the provider: timeout, retries and concurrency, from
`LORE_LLM_<NAME>` variables or the `model` section of `config.json`."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from lore.core.config import warn
from lore.core.llm.sources import model_config


@dataclass(frozen=True)
class RuntimeOptions:
    """How calls are made: limits that apply to every provider."""

    timeout: float = 60.0
    max_retries: int = 4
    max_concurrency: int = 4
    retry_base: float = 0.5  # seconds; doubled each retry, with jitter
    retry_cap: float = 30.0
    # how a retry waits: a test passes one that records the wait and returns at once, so the
    # retry path runs end to end against a real server without the test taking that long
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False, repr=False)


def runtime_options(config: dict[str, Any] | None = None) -> RuntimeOptions:
    """Timeouts, retries and concurrency: `LORE_LLM_<NAME>` variables, else config `model.*`.

    Bad values fall back to the defaults with a warning.
    """
    conf = model_config(config)
    defaults = RuntimeOptions()
    values: dict[str, Any] = {}
    for key, kind in (
        ("timeout", float),
        ("max_retries", int),
        ("max_concurrency", int),
        ("retry_base", float),
        ("retry_cap", float),
    ):
        raw: Any = os.environ.get(f"LORE_LLM_{key.upper()}")
        where = f"LORE_LLM_{key.upper()}"
        if raw is not None:
            with contextlib.suppress(ValueError):
                raw = float(raw)
        elif key in conf:
            raw, where = conf[key], f"config model.{key}"
        else:
            continue
        if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < 0:
            warn(f"{where}={raw!r} is invalid (a number >= 0); using the default")
            continue
        values[key] = kind(raw)
    if values.get("max_concurrency") == 0:
        values["max_concurrency"] = 1
    return RuntimeOptions(**{**defaults.__dict__, **values})
