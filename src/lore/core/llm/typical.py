"""What a typical use of each model-calling command sends, for `lore model setup` to price.

The figures are sizes, not measurements of a day: each follows from how the feature builds its
prompts (the caps named below), with a JSON schema and instructions of a few hundred tokens on
top, and a token taken as four characters. A dollar figure needs `model.prices` in config.json,
since Lore ships no price list (providers change theirs). `lore model usage` reports what real
runs cost.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class TypicalUse:
    """One command's typical model use: calls, tokens in and out, and the unit they are per."""

    command: str
    per: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    basis: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


TYPICAL_USE: tuple[TypicalUse, ...] = (
    TypicalUse(
        "lore history why",
        "question",
        1,
        800,
        200,
        "one call with the best evidence: up to 8 items of at most 1,500 characters each",
    ),
    TypicalUse(
        "lore books ask",
        "question",
        7,
        4_000,
        1_000,
        "one call for claims over up to 8 passages, one support check per claim (about 5), one to write",
    ),
    TypicalUse(
        "lore books extract",
        "book of 100,000 words",
        84,
        176_000,
        34_000,
        "one call per 1,200-word chunk of text",
    ),
    TypicalUse(
        "lore history extract",
        "call (--max-calls caps them)",
        1,
        4_000,
        300,
        "threads and commit messages in chunks of up to 14,000 characters",
    ),
)
