"""One chat call as Lore makes it: looked up in the content-hash cache, else sent to the provider,
stored, and counted in the usage accounts.

Kept apart from the client, which chooses the model, shapes structured requests and offers the
sync faces; this module is the one path every reply takes, so a reply is cached and counted the
same way whichever face asked for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from lore.core.llm import cache, usage
from lore.core.llm.providers import ModelSpec, normalize_base_url
from lore.core.llm.replies import Completion
from lore.core.llm.transport import Transport
from lore.core.llm.wire import ChatRequest, build_chat, parse_chat
from lore.core.tokens import estimate_many, estimate_tokens


async def chat(
    transport: Callable[[], Transport],
    spec: ModelSpec,
    request: ChatRequest,
    *,
    task: str | None,
    subject: str | None,
    no_cache: bool,
) -> Completion:
    """The reply to `request` from the cache, else from the provider (through the transport
    `transport()` gives, made only when the provider is asked); counted either way."""
    identity = {
        "provider": spec.provider,
        "model": spec.model,
        "base_url": normalize_base_url(spec.base_url),  # two servers may share a model name
        "messages": [list(m) for m in request.messages],
        "params": dict(request.params),
        "schema": request.schema,
        "mode": request.mode if request.schema is not None else None,
    }
    key = cache.request_key(identity)
    if not no_cache:
        hit = cache.get_reply(key)
        if hit is not None:
            usage.record(
                kind="chat",
                provider=spec.provider,
                model=spec.model,
                cached=True,
                prompt_tokens=hit.prompt_tokens,
                completion_tokens=hit.completion_tokens,
                estimated=hit.estimated,
                task=task,
                subject=subject,
            )
            return Completion(
                hit.text,
                spec.provider,
                spec.model,
                hit.reply_model,
                hit.prompt_tokens,
                hit.completion_tokens,
                hit.estimated,
                cached=True,
                latency_ms=None,
                key=key,
            )
    url, headers, payload = build_chat(spec, request)
    started = time.perf_counter()
    data = await transport().post_json(url, headers, payload, spec.label)
    latency = (time.perf_counter() - started) * 1000
    reply = parse_chat(spec, data)
    estimated = reply.prompt_tokens is None or reply.completion_tokens is None
    prompt_tokens = reply.prompt_tokens
    if prompt_tokens is None:
        prompt_tokens = estimate_many(c for _, c in request.messages) + (
            estimate_tokens(str(request.schema)) if request.schema else 0
        )
    completion_tokens = reply.completion_tokens
    if completion_tokens is None:
        completion_tokens = estimate_tokens(reply.text)
    cache.put_reply(
        key,
        spec.provider,
        spec.model,
        identity,
        cache.CachedReply(reply.text, reply.model, prompt_tokens, completion_tokens, estimated),
    )
    usage.record(
        kind="chat",
        provider=spec.provider,
        model=spec.model,
        cached=False,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        estimated=estimated,
        task=task,
        subject=subject,
        latency_ms=latency,
    )
    return Completion(
        reply.text,
        spec.provider,
        spec.model,
        reply.model,
        prompt_tokens,
        completion_tokens,
        estimated,
        cached=False,
        latency_ms=latency,
        key=key,
    )
