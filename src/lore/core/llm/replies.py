"""What a model call is given and what it hands back: a prompt in the forms callers write it,
a reply with how it was obtained, and a structured reply with whether it needed a repair.

Kept apart from the client so the chat call, the client and its callers share these shapes
without importing one another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from lore.core.llm.errors import ModelCallError

T = TypeVar("T", bound=BaseModel)
Prompt = str | Sequence[Mapping[str, str]] | Sequence[tuple[str, str]]


@dataclass(frozen=True)
class Completion:
    """One reply and how it was obtained."""

    text: str
    provider: str
    model: str  # the model asked for
    reply_model: str | None  # the model the provider says answered
    prompt_tokens: int
    completion_tokens: int
    estimated: bool  # token counts are estimates (the provider sent none)
    cached: bool
    latency_ms: float | None
    key: str  # the cache key

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"


@dataclass(frozen=True)
class StructuredResult(Generic[T]):
    value: T
    completion: Completion
    repaired: bool  # the first reply failed validation and the repair succeeded


def to_messages(prompt: Prompt, system: str | None = None) -> list[tuple[str, str]]:
    """A prompt (text, or role/content messages) as (role, content) pairs, system first."""
    messages: list[tuple[str, str]] = [("system", system)] if system else []
    if isinstance(prompt, str):
        return [*messages, ("user", prompt)]
    for item in prompt:
        if isinstance(item, Mapping):
            role, content = str(item.get("role", "user")), str(item.get("content", ""))
        else:
            role, content = str(item[0]), str(item[1])
        if role not in ("system", "user", "assistant"):
            raise ModelCallError(f"unknown message role {role!r}: use system, user or assistant")
        messages.append((role, content))
    if not any(r == "user" for r, _ in messages):
        raise ModelCallError("a prompt needs at least one user message")
    return messages
