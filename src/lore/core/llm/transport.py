"""One async HTTP client for every provider: a concurrency limit, timeouts, and polite retries.

429 and 5xx answers (and timeouts, dropped connections) are retried with exponential backoff
and jitter; a `Retry-After` header, in seconds or as a date, is honoured instead. Other 4xx
answers are final: retrying a bad key or an unknown model only wastes time.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from typing import Any

import httpx

from lore.core.errors import NeedsModel
from lore.core.llm.errors import ModelCallError
from lore.core.llm.runtime import RuntimeOptions

RETRY_STATUS = frozenset({408, 409, 425, 429})
MAX_RETRY_AFTER = 120.0  # seconds; a server asking for longer is treated as failing


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (a number, or an HTTP date), if it says."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))


def _error_text(response: httpx.Response) -> str:
    """The provider's own message when it gives one (OpenAI and Anthropic shapes), else the body."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:300] or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
        if isinstance(error, str):
            return error[:300]
    return str(body)[:300]


class Transport:
    """Async POSTs of JSON with retries; one httpx client and semaphore per event loop."""

    def __init__(self, options: RuntimeOptions):
        self.options = options
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: httpx.AsyncClient | None = None
        self._limit: asyncio.Semaphore | None = None

    def _resources(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._client is None or self._limit is None:
            self._loop = loop
            self._client = httpx.AsyncClient(timeout=self.options.timeout)
            self._limit = asyncio.Semaphore(max(1, self.options.max_concurrency))
        return self._client, self._limit

    async def aclose(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.aclose()
        self._client, self._limit, self._loop = None, None, None

    async def post_json(
        self, url: str, headers: dict[str, str], payload: dict[str, Any], label: str
    ) -> dict[str, Any]:
        """The JSON body of a successful POST, after retrying what is worth retrying."""
        client, limit = self._resources()
        attempts = self.options.max_retries + 1
        for attempt in range(attempts):
            wait: float | None = None
            try:
                async with limit:
                    response = await client.post(url, json=payload, headers=headers)
            except httpx.TimeoutException:
                error = ModelCallError(f"{label} did not answer within {self.options.timeout:g}s ({url})")
            except httpx.TransportError as exc:
                error = ModelCallError(f"cannot reach {label} at {url}: {exc or type(exc).__name__}")
            else:
                if response.status_code < 400:
                    try:
                        data = response.json()
                    except ValueError as exc:
                        raise ModelCallError(
                            f"{label} answered with a body that is not JSON: {response.text[:200]!r}"
                        ) from exc
                    if not isinstance(data, dict):
                        raise ModelCallError(f"{label} answered with unexpected JSON: {str(data)[:200]}")
                    return data
                status = response.status_code
                message = f"{label} answered {status}: {_error_text(response)}"
                if status in (401, 403):
                    raise NeedsModel(f"{message} (check the API key)")
                if status not in RETRY_STATUS and status < 500:
                    raise ModelCallError(message, status)
                error = ModelCallError(message, status)
                wait = retry_after_seconds(response.headers.get("retry-after"))
                if wait is not None and wait > MAX_RETRY_AFTER:
                    raise ModelCallError(f"{message} (asked to wait {wait:.0f}s)", status)
            if attempt == attempts - 1:
                if attempts > 1:
                    error.args = (f"{error.args[0]} (gave up after {attempts} attempts)",)
                raise error
            if wait is None:
                backoff = min(self.options.retry_cap, self.options.retry_base * 2**attempt)
                wait = backoff * (0.5 + random.random() / 2)
            await self.options.sleep(wait)
        raise AssertionError("unreachable")
