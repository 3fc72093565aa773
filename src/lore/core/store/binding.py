"""Placeholders for an SQL `IN (...)` list, built in one place.

Every store module that filters by a list of ids or names needs one placeholder per value;
written by hand each time it drifted (`",".join("?" * n)`, `", ".join("?" for _ in ids)`, an
empty list producing the invalid `IN ()`). Both the positional and the named style live here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any


def in_marks(values: Collection[Any]) -> str:
    """`?, ?, ?`: one positional placeholder per value (callers pass the values alongside).

    An empty list gives `NULL`, so `x IN (NULL)` matches nothing instead of being a syntax error.
    """
    return ", ".join("?" for _ in values) or "NULL"


def bind_named(params: dict[str, Any], prefix: str, values: Sequence[Any]) -> str:
    """Bind each value as a named parameter `:{prefix}{i}`; the placeholders for an `IN (...)`."""
    for i, value in enumerate(values):
        params[f"{prefix}{i}"] = value
    return ", ".join(f":{prefix}{i}" for i in range(len(values))) or "NULL"
