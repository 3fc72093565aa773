"""Checks that what a store returns is made of plain records, never driver objects."""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import Any

DRIVER_TYPES = (sqlite3.Row, sqlite3.Connection, sqlite3.Cursor)


def driver_objects(value: Any, path: str = "result") -> list[str]:
    """Where in `value` (records, dicts, lists, tuples, sets) a driver object sits."""
    if isinstance(value, DRIVER_TYPES):
        return [f"{path}: {type(value).__name__}"]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            hit
            for f in dataclasses.fields(value)
            for hit in driver_objects(getattr(value, f.name), f"{path}.{f.name}")
        ]
    if isinstance(value, dict):
        return [hit for k, v in value.items() for hit in driver_objects(v, f"{path}[{k!r}]")]
    if isinstance(value, list | tuple | set | frozenset):
        return [hit for i, v in enumerate(value) for hit in driver_objects(v, f"{path}[{i}]")]
    return []


def records_only(**results: Any) -> None:
    """Assert every named result is free of driver objects and not empty (so it was checked)."""
    found = [hit for name, value in results.items() for hit in driver_objects(value, name)]
    assert not found, f"driver objects returned: {found}"
    empty = [name for name, value in results.items() if value in (None, [], {}, ())]
    assert not empty, f"these calls returned nothing, so they checked nothing: {empty}"
