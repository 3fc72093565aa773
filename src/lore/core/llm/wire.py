"""The two wire formats Lore speaks: OpenAI-compatible chat/embeddings and Anthropic messages.

Each function turns a wire-independent request into (url, headers, JSON body), or a response
body into a `WireReply`. Nothing here does I/O, so the shapes are easy to read and to test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lore.core.errors import InvalidInput
from lore.core.llm.errors import ModelCallError
from lore.core.llm.providers import ModelSpec

ANTHROPIC_VERSION = "2023-06-01"
ANTHROPIC_MAX_TOKENS = 4096  # the Messages API requires a cap
TOOL_NAME = "answer"


@dataclass(frozen=True)
class ChatRequest:
    """What a caller asks for, whatever the provider: messages, parameters, an optional schema."""

    messages: tuple[tuple[str, str], ...]  # (role, content); roles: system, user, assistant
    params: tuple[tuple[str, Any], ...] = ()
    schema: dict[str, Any] | None = None
    schema_name: str = TOOL_NAME
    mode: str = "instructions"  # how the schema is asked for (see settings.STRUCTURED_MODES)


@dataclass(frozen=True)
class WireReply:
    text: str
    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


def _openai_headers(spec: ModelSpec) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if spec.api_key:
        headers["Authorization"] = f"Bearer {spec.api_key}"
    return headers


def build_chat(spec: ModelSpec, request: ChatRequest) -> tuple[str, dict[str, str], dict[str, Any]]:
    if spec.wire == "anthropic":
        return _anthropic_chat(spec, request)
    payload: dict[str, Any] = {
        "model": spec.model,
        "messages": [{"role": r, "content": c} for r, c in request.messages],
        **dict(request.params),
    }
    if request.schema is not None and request.mode == "json_schema":
        payload["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": request.schema_name, "schema": request.schema, "strict": False},
        }
    elif request.schema is not None and request.mode == "json_object":
        payload["response_format"] = {"type": "json_object"}
    return f"{spec.base_url}/chat/completions", _openai_headers(spec), payload


def _anthropic_chat(spec: ModelSpec, request: ChatRequest) -> tuple[str, dict[str, str], dict[str, Any]]:
    system = "\n\n".join(c for r, c in request.messages if r == "system")
    params = dict(request.params)
    payload: dict[str, Any] = {
        "model": spec.model,
        "max_tokens": params.pop("max_tokens", ANTHROPIC_MAX_TOKENS),
        "messages": [{"role": r, "content": c} for r, c in request.messages if r != "system"],
        **params,
    }
    if system:
        payload["system"] = system
    if request.schema is not None and request.mode == "tool":
        payload["tools"] = [
            {
                "name": request.schema_name,
                "description": "Give the answer in exactly this structure.",
                "input_schema": request.schema,
            }
        ]
        payload["tool_choice"] = {"type": "tool", "name": request.schema_name}
    base = spec.base_url.removesuffix("/v1")
    headers = {
        "Content-Type": "application/json",
        "anthropic-version": ANTHROPIC_VERSION,
    }
    if spec.api_key:
        headers["x-api-key"] = spec.api_key
    return f"{base}/v1/messages", headers, payload


def parse_chat(spec: ModelSpec, data: dict[str, Any]) -> WireReply:
    """The reply text (a forced tool call's input as JSON text), model name and usage."""
    try:
        if spec.wire == "anthropic":
            return _anthropic_reply(data)
        choice = data["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content")
        if text is None and message.get("refusal"):
            raise ModelCallError(f"{spec.label} refused: {message['refusal']}")
        if isinstance(text, list):  # some servers send content parts
            text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
        usage = data.get("usage") or {}
        return WireReply(
            text=text or "",
            model=data.get("model"),
            prompt_tokens=_int(usage.get("prompt_tokens")),
            completion_tokens=_int(usage.get("completion_tokens")),
        )
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ModelCallError(f"{spec.label} sent a reply Lore cannot read: {str(data)[:200]}") from exc


def _anthropic_reply(data: dict[str, Any]) -> WireReply:
    blocks = data["content"]
    tool = next((b for b in blocks if b.get("type") == "tool_use"), None)
    if tool is not None:
        text = json.dumps(tool.get("input"), ensure_ascii=False)
    else:
        text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    usage = data.get("usage") or {}
    return WireReply(
        text=text,
        model=data.get("model"),
        prompt_tokens=_int(usage.get("input_tokens")),
        completion_tokens=_int(usage.get("output_tokens")),
    )


def build_embed(spec: ModelSpec, texts: list[str]) -> tuple[str, dict[str, str], dict[str, Any]]:
    if spec.wire == "anthropic":
        raise InvalidInput(f"{spec.provider} offers no embeddings; use ollama, openai or gemini")
    payload = {"model": spec.model, "input": texts}
    return f"{spec.base_url}/embeddings", _openai_headers(spec), payload


def parse_embed(spec: ModelSpec, data: dict[str, Any], count: int) -> tuple[list[list[float]], int | None]:
    try:
        rows = sorted(data["data"], key=lambda r: r.get("index", 0))
        vectors = [list(r["embedding"]) for r in rows]
    except (KeyError, TypeError) as exc:
        raise ModelCallError(f"{spec.label} sent embeddings Lore cannot read: {str(data)[:200]}") from exc
    if len(vectors) != count:
        raise ModelCallError(f"{spec.label} returned {len(vectors)} embeddings for {count} texts")
    usage = data.get("usage") or {}
    return vectors, _int(usage.get("prompt_tokens"))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
