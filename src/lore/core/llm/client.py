"""The model client: cached, accounted calls, with structured output and a sync face.

Every call goes: resolve the model for its task, look in the cache, else ask the provider
(with retries), store the reply, count it (that path is `chat`; the shapes of prompts and
replies are in `replies`). Async methods let a domain run many calls at once
under the concurrency limit; the `*_sync` methods are for the (mostly sync) domains and CLI,
and work whether or not an event loop is already running in the calling thread.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np

from lore.core.config import warn
from lore.core.llm import cache
from lore.core.llm.chat import chat
from lore.core.llm.errors import ModelCallError, StructuredOutputError
from lore.core.llm.providers import ModelSpec
from lore.core.llm.replies import Completion, Prompt, StructuredResult, T, to_messages
from lore.core.llm.runtime import RuntimeOptions, runtime_options
from lore.core.llm.settings import resolve_model
from lore.core.llm.sources import model_config
from lore.core.llm.structured import (
    ReplyInvalid,
    instructions,
    parse_reply,
    repair_request,
    schema_name,
    schema_of,
)
from lore.core.llm.transport import Transport
from lore.core.llm.wire import ChatRequest, build_embed, parse_embed

R = TypeVar("R")


def run_sync(make: Callable[[], Awaitable[R]]) -> R:
    """Run a coroutine to completion from sync code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())  # type: ignore[arg-type]
    context = contextvars.copy_context()  # keep the run and subject being counted
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, asyncio.run, make()).result()  # type: ignore[arg-type]


class ModelClient:
    """Calls language models for Lore; one per job is plenty (it is cheap to make)."""

    def __init__(
        self,
        *,
        model: str | None = None,
        task: str | None = None,
        subject: str | None = None,
        no_cache: bool | None = None,
        options: RuntimeOptions | None = None,
        config: dict[str, Any] | None = None,
        spec: ModelSpec | None = None,
    ):
        """`spec` fixes the model outright (`lore model setup` tests a choice before any setting
        names it); otherwise each task's model is resolved from the settings when first used."""
        self._config = model_config(config)
        self.model = model
        self.task = task
        self.subject = subject
        self._no_cache = no_cache
        self.options = options or runtime_options(self._config)
        self._specs: dict[str | None, ModelSpec] = {task: spec} if spec is not None else {}
        self._transports: dict[int, Transport] = {}

    # -- configuration ---------------------------------------------------------------------

    @property
    def no_cache(self) -> bool:
        """Ask afresh: as the client was made, else as the run says (`bypass_cache`, LORE_NO_CACHE)."""
        return cache.cache_bypassed() if self._no_cache is None else self._no_cache

    def spec(self, task: str | None = None) -> ModelSpec:
        """The model a task goes to (raises NeedsModel, saying how to set one up, if none)."""
        task = task or self.task
        if task not in self._specs:
            self._specs[task] = resolve_model(task, config=self._config, model=self.model)
        return self._specs[task]

    def _transport(self) -> Transport:
        loop = asyncio.get_running_loop()
        transport = self._transports.get(id(loop))
        if transport is None:
            transport = self._transports[id(loop)] = Transport(self.options)
        return transport

    async def aclose(self) -> None:
        """Close this event loop's HTTP client (the sync methods do it for you)."""
        await self._close_loop_transport()

    async def _close_loop_transport(self) -> None:
        transport = self._transports.pop(id(asyncio.get_running_loop()), None)
        if transport is not None:
            await transport.aclose()

    # -- chat ------------------------------------------------------------------------------

    async def complete(
        self,
        prompt: Prompt,
        *,
        system: str | None = None,
        task: str | None = None,
        subject: str | None = None,
        **params: Any,
    ) -> Completion:
        """A free-text reply. `params` (temperature, max_tokens, seed...) go to the provider."""
        spec = self.spec(task)
        request = ChatRequest(tuple(to_messages(prompt, system)), tuple(sorted(params.items())))
        return await self._chat(spec, request, task or self.task, subject)

    async def structured_result(
        self,
        prompt: Prompt,
        schema: type[T],
        *,
        system: str | None = None,
        task: str | None = None,
        subject: str | None = None,
        **params: Any,
    ) -> StructuredResult[T]:
        """A reply validated as `schema`; repaired once with the validation error if needed.

        Raises StructuredOutputError (carrying the raw reply) when the repair fails too; the
        failed replies are dropped from the cache so a later run asks afresh.
        """
        spec = self.spec(task)
        task = task or self.task
        json_schema = schema_of(schema)
        messages = to_messages(prompt, system)
        request = self._structured_request(
            messages, json_schema, schema_name(schema), spec.structured, params
        )
        try:
            first = await self._chat(spec, request, task, subject)
        except ModelCallError as exc:
            if exc.status != 400 or spec.structured not in ("json_schema", "json_object"):
                raise
            warn(f"{spec.label} refused a JSON-schema request ({exc}); asking in plain words instead")
            request = self._structured_request(
                messages, json_schema, schema_name(schema), "instructions", params
            )
            first = await self._chat(spec, request, task, subject)
        try:
            return StructuredResult(parse_reply(first.text, schema), first, repaired=False)
        except ReplyInvalid as problem:
            repair = replace(
                request,
                messages=(
                    *request.messages,
                    ("assistant", first.text),
                    ("user", repair_request(str(problem))),
                ),
            )
        second = await self._chat(spec, repair, task, subject)
        try:
            return StructuredResult(parse_reply(second.text, schema), second, repaired=True)
        except ReplyInvalid as problem:
            cache.drop_reply(first.key)
            cache.drop_reply(second.key)
            raise StructuredOutputError(
                f"{spec.label} did not return a valid {schema.__name__} even after a repair: {problem}",
                raw=second.text,
            ) from None

    async def structured(self, prompt: Prompt, schema: type[T], **kwargs: Any) -> T:
        return (await self.structured_result(prompt, schema, **kwargs)).value

    @staticmethod
    def _structured_request(
        messages: list[tuple[str, str]],
        json_schema: dict[str, Any],
        name: str,
        mode: str,
        params: dict[str, Any],
    ) -> ChatRequest:
        if mode in ("instructions", "json_object"):
            messages = [*messages, ("system", instructions(json_schema))]
            messages.sort(key=lambda m: m[0] != "system")  # systems first, order kept
        return ChatRequest(tuple(messages), tuple(sorted(params.items())), json_schema, name, mode)

    async def _chat(
        self, spec: ModelSpec, request: ChatRequest, task: str | None, subject: str | None
    ) -> Completion:
        return await chat(
            self._transport,
            spec,
            request,
            task=task,
            subject=subject if subject is not None else self.subject,
            no_cache=self.no_cache,
        )

    # -- embeddings (the Embedder base class caches and counts them) -------------------------

    async def embed_vectors(self, spec: ModelSpec, texts: list[str]) -> tuple[np.ndarray, int | None]:
        url, headers, payload = build_embed(spec, texts)
        data = await self._transport().post_json(url, headers, payload, spec.label)
        vectors, tokens = parse_embed(spec, data, len(texts))
        return np.asarray(vectors, dtype=np.float32), tokens

    # -- sync faces ------------------------------------------------------------------------

    def _sync(self, make: Callable[[], Awaitable[R]]) -> R:
        async def main() -> R:
            try:
                return await make()
            finally:
                await self._close_loop_transport()

        return run_sync(main)

    def complete_sync(self, prompt: Prompt, **kwargs: Any) -> Completion:
        return self._sync(lambda: self.complete(prompt, **kwargs))

    def structured_sync(self, prompt: Prompt, schema: type[T], **kwargs: Any) -> T:
        return self._sync(lambda: self.structured(prompt, schema, **kwargs))

    def structured_result_sync(self, prompt: Prompt, schema: type[T], **kwargs: Any) -> StructuredResult[T]:
        return self._sync(lambda: self.structured_result(prompt, schema, **kwargs))

    def structured_many_sync(
        self,
        prompts: Sequence[Prompt],
        schema: type[T],
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[StructuredResult[T] | BaseException]:
        """Many structured calls at once (up to the concurrency limit), results in order.

        With `return_exceptions=True` a failed call leaves its error in its slot instead of
        stopping the others.
        """

        async def many() -> list[Any]:
            calls = [self.structured_result(p, schema, **kwargs) for p in prompts]
            return await asyncio.gather(*calls, return_exceptions=return_exceptions)

        return self._sync(many)

    def embed_vectors_sync(self, spec: ModelSpec, texts: list[str]) -> tuple[np.ndarray, int | None]:
        return self._sync(lambda: self.embed_vectors(spec, texts))


# -- module-level shortcuts --------------------------------------------------------------------


def complete_sync(prompt: Prompt, **kwargs: Any) -> Completion:
    """One free-text reply. Client options (`model`, `task`, `subject`, `no_cache`) may be given."""
    client, rest = _client_and_rest(kwargs)
    return client.complete_sync(prompt, **rest)


def complete_structured_sync(prompt: Prompt, schema: type[T], **kwargs: Any) -> T:
    """One reply validated as `schema` (see `ModelClient.structured_result`)."""
    client, rest = _client_and_rest(kwargs)
    return client.structured_sync(prompt, schema, **rest)


async def complete_structured(prompt: Prompt, schema: type[T], **kwargs: Any) -> T:
    client, rest = _client_and_rest(kwargs)
    return await client.structured(prompt, schema, **rest)


def _client_and_rest(kwargs: dict[str, Any]) -> tuple[ModelClient, dict[str, Any]]:
    own = {k: kwargs.pop(k) for k in ("model", "no_cache", "options", "config") if k in kwargs}
    return ModelClient(**own), kwargs
