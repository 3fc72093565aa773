"""Forgiving tool inputs: agents send lists, comma strings, JSON strings or single values."""

from __future__ import annotations

import json
from typing import Any

from lore.core.errors import InvalidInput


def as_list(value: Any) -> list[str]:
    """A list of strings from a list, a JSON list string, or a comma/newline separated string."""
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    text = str(value).strip()
    if text.startswith("["):
        try:
            loaded = json.loads(text)
            if isinstance(loaded, list):
                return as_list(loaded)
        except json.JSONDecodeError:
            pass
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


def as_objects(value: Any, what: str) -> list[dict[str, Any]]:
    """A list of objects from a list, a single object, or their JSON text."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{what} must be a list of objects (JSON): {exc.msg}") from None
        if isinstance(value, str):
            raise InvalidInput(f"{what} must be a list of objects")
    if isinstance(value, (dict, str)):
        value = [value]
    if not isinstance(value, list):
        raise InvalidInput(f"{what} must be a list of objects")
    items = [{"text": v} if isinstance(v, str) else v for v in value]  # a bare rule is its text
    if not all(isinstance(v, dict) for v in items):
        raise InvalidInput(f"{what} must be a list of objects")
    return items
