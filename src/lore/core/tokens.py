"""A rough token count for when a provider does not report usage (about four characters a token)."""

from __future__ import annotations

from collections.abc import Iterable


def estimate_tokens(text: str) -> int:
    """Tokens in `text`, estimated as characters / 4 (never below 1 for non-empty text)."""
    if not text:
        return 0
    return max(1, (len(text) + 3) // 4)


def estimate_many(texts: Iterable[str]) -> int:
    return sum(estimate_tokens(t) for t in texts)
