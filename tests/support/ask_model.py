"""A scripted model for `lore books ask` tests: it reads what the fake server RECEIVED.

The claims stage is answered from the passages in the prompt (so a quote is real only when the
test says so), the check stage by a verdict function of the statement, and the writer restates
each claim as one sentence citing it, unless told otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from support.fake_llm import FakeLLM, Request

_BLOCK = re.compile(r"\[P(\d+)\] \((.*?), chapter (\d+)\) (.*?)(?=\n\n\[P\d+\] |\n</book_text>)", re.S)
_STATEMENT = re.compile(r"Statement: (.*)\n")


def stage(request: Request) -> str:
    system = next((m.get("content", "") for m in request.messages if m.get("role") == "system"), "")
    found = re.match(r"STAGE (\w+)\.", str(system))
    return found.group(1) if found else ""


def passages(request: Request) -> dict[int, tuple[int, str]]:
    """The passages a prompt holds: number -> (chapter, text)."""
    return {int(m.group(1)): (int(m.group(3)), m.group(4)) for m in _BLOCK.finditer(request.last_user)}


def statement(request: Request) -> str:
    found = _STATEMENT.search(request.last_user)
    return found.group(1) if found else ""


def writer_echo(request: Request) -> dict[str, Any]:
    claims = re.findall(r"^\[C(\d+)\] (.*?) \(chapter", request.last_user, re.M)
    return {"sentences": [{"text": text, "claims": [int(n)]} for n, text in claims]}


def script(
    fake: FakeLLM,
    claims: Callable[[dict[int, tuple[int, str]]], list[dict[str, Any]]],
    verdict: Callable[[Request], dict[str, Any]] | None = None,
    writer: Callable[[Request], dict[str, Any]] = writer_echo,
) -> None:
    def check(request: Request) -> dict[str, Any]:
        if verdict is not None:
            return verdict(request)
        return supported()

    fake.reply(lambda r: stage(r) == "claims", lambda r: {"claims": claims(passages(r))})
    fake.reply(lambda r: stage(r) == "check", check)
    fake.reply(lambda r: stage(r) == "write", writer)


def supported(reason: str = "The passage says so.") -> dict[str, Any]:
    return {"reason": reason, "reason_finds": "supports", "verdict": "supported"}


def unsupported(reason: str = "The passage does not say this.") -> dict[str, Any]:
    return {"reason": reason, "reason_finds": "does_not_support", "verdict": "unsupported"}


def quoting(
    needle: str, text: str, quote: str | None = None
) -> Callable[[dict[int, tuple[int, str]]], list[dict[str, Any]]]:
    """A claims stage that states `text` on the passage holding `needle`, quoting `quote` (or the needle)."""

    def claims(held: dict[int, tuple[int, str]]) -> list[dict[str, Any]]:
        for n, (_, passage) in held.items():
            if needle in passage:
                return [{"text": text, "passage": n, "quote": quote or needle}]
        return []

    return claims
