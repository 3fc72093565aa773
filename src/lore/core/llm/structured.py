"""Structured output: ask for JSON that fits a pydantic model, read it forgivingly, say what failed.

Models wrap JSON in code fences or a sentence of prose more often than they break it, so the
reader looks past those; what still does not validate goes back to the model once, with the
validation error, before the call gives up.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_MAX_ERROR = 1200


class ReplyInvalid(ValueError):
    """The reply is not JSON, or not the JSON the schema asks for; the message says which."""


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def schema_name(model: type[BaseModel]) -> str:
    """A name providers accept for a schema or tool: letters, digits, `_` and `-`, at most 64."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", model.__name__)[:64] or "answer"


def instructions(schema: dict[str, Any]) -> str:
    """The request in words, for providers without a JSON mode (and as a guard for those with)."""
    return (
        "Reply with one JSON object and nothing else: no prose, no code fences. "
        "It must match this JSON schema:\n" + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def repair_request(error: str) -> str:
    return (
        "That reply could not be used: "
        + error
        + "\nReply again with only the corrected JSON object, matching the schema."
    )


def _candidates(text: str) -> list[str]:
    """The reply itself, any fenced block in it, and the span from the first { to the last }."""
    out = [text.strip()]
    out += [m.group(1).strip() for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        out.append(text[start : end + 1])
    return list(dict.fromkeys(c for c in out if c))


def parse_reply(text: str, model: type[T]) -> T:
    """The reply as a `model` instance, or ReplyInvalid saying exactly what is wrong."""
    parsed: Any = None
    found = False
    for candidate in _candidates(text):
        try:
            parsed = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        found = True
        break
    if not found:
        raise ReplyInvalid("the reply is not valid JSON" + (" (it is empty)" if not text.strip() else ""))
    try:
        return model.model_validate(parsed)
    except ValidationError as exc:
        lines = [
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors(include_url=False)
        ]
        message = f"the JSON does not match the schema ({len(lines)} problem(s)): " + "; ".join(lines)
        raise ReplyInvalid(message[:_MAX_ERROR]) from None
