"""Vector filters and metadata: what a search may be limited by, checked before any work.

Filter syntax (`where`): a mapping `{field: value}` (equality) or `{field: (op, value)}` with
op one of `= != < <= > >= in "not in"`; all conditions of a mapping must hold. A list of
mappings matches when any one of them does, e.g. per-book chapter caps:
`[{"book": "a"}, {"book": "b", "chapter_seq": ("<=", 6)}]`. Numbers compare with numbers and
text with text; a row without the field (or with the other type) never matches.

Kept apart from the index so the in-memory path, the SQL paths and the index read one parse
of a filter, and a bad field name or operator is refused the same way everywhere.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeGuard

from lore.core.errors import InvalidInput
from lore.core.store.vectors.records import Condition as _Cond

_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_OPS = {
    "=": "=",
    "==": "=",
    "!=": "!=",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "in": "IN",
    "not in": "NOT IN",
}

Where = Mapping[str, Any] | Sequence[Mapping[str, Any]] | None


def is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float)  # bools count as 0/1, as JSON stores them here


def parse_where(where: Where) -> list[list[_Cond]] | None:
    """The filter as OR-of-ANDs, validated; None for no filter."""
    if where is None:
        return None
    clauses = [where] if isinstance(where, Mapping) else list(where)
    parsed: list[list[_Cond]] = []
    for clause in clauses:
        if not isinstance(clause, Mapping):
            raise InvalidInput("a vector filter is a mapping {field: value or (op, value)}")
        conds = []
        for name, spec in clause.items():
            if not _FIELD.match(str(name)):
                raise InvalidInput(f"bad filter field name {name!r}")
            op, value = ("=", spec) if not isinstance(spec, tuple | list) else _op_value(name, spec)
            sql_op = _OPS.get(str(op).lower())
            if sql_op is None:
                raise InvalidInput(f"unknown filter operator {op!r}: use one of {', '.join(_OPS)}")
            conds.append(_Cond(name, sql_op, *_checked_value(name, sql_op, value)))
        parsed.append(conds)
    return parsed


def _op_value(name: str, spec: Sequence[Any]) -> tuple[Any, Any]:
    if len(spec) != 2:
        raise InvalidInput(f"filter on {name!r} must be a value or an (op, value) pair")
    return spec[0], spec[1]


def _checked_value(name: str, op: str, value: Any) -> tuple[Any, bool]:
    if op in ("IN", "NOT IN"):
        if isinstance(value, str | bytes) or not isinstance(value, Iterable):
            raise InvalidInput(f"filter {name!r} {op.lower()} needs a list of values")
        values = list(value)
        if all(is_number(v) for v in values):
            return tuple(float(v) for v in values), True
        if all(isinstance(v, str) for v in values):
            return tuple(values), False
        raise InvalidInput(f"filter {name!r} {op.lower()} needs all numbers or all text")
    if is_number(value):
        return float(value), True
    if isinstance(value, str):
        return value, False
    raise InvalidInput(f"filter value for {name!r} must be a number or text, not {value!r}")


def clean_meta(key: str, meta: Mapping[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in (meta or {}).items():
        if not _FIELD.match(str(name)):
            raise InvalidInput(f"bad metadata field name {name!r} for {key!r}")
        if isinstance(value, bool):
            value = int(value)
        if value is not None and not isinstance(value, int | float | str):
            raise InvalidInput(f"metadata {name!r} of {key!r} must be a number or text")
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidInput(f"metadata {name!r} of {key!r} must be finite")
        out[str(name)] = value
    return out
