"""A search's filter as SQL, on each engine, and the vector as pgvector's text.

The same filter means the same rows on both engines: a field of the other JSON type, or a
missing one, never matches; numbers compare as numbers, text byte-wise. SQLite reads the
metadata JSON with `json_extract`; PostgreSQL reads its JSONB copy (`meta_doc`), spelling each
value exactly as the indexes built on it do (`pg_value`), so the planner can use them.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from lore.core.store.binding import in_marks
from lore.core.store.vectors.records import Condition

# what a b-tree on a field's value narrows by
INDEXABLE = ("=", "IN", "<", "<=", ">", ">=")


def sqlite_where(clauses: list[list[Condition]] | None) -> tuple[str, list[Any]]:
    """The filter as SQLite SQL and its parameters; no filter: every row."""
    if clauses is None:
        return "1", []
    parts, params = [], []
    for clause in clauses:
        terms = []
        for c in clause:
            path = f"'$.{c.field}'"
            kind = "IN ('integer', 'real')" if c.numeric else "= 'text'"
            if c.op in ("IN", "NOT IN"):
                test = f"json_extract(meta, {path}) {c.op} ({in_marks(c.value)})"
                params += list(c.value)
            else:
                test = f"json_extract(meta, {path}) {c.op} ?"
                params.append(c.value)
            terms.append(f"(json_type(meta, {path}) {kind} AND {test})")
        parts.append("(" + (" AND ".join(terms) or "1") + ")")
    return "(" + (" OR ".join(parts) or "0") + ")", params


def pg_value(field: str, numeric: bool) -> str:
    """A metadata field's value as SQL, NULL where the JSON type is not the one asked: a
    number is cast only under the CASE that checked it (an AND may run its terms in any order),
    and text compares byte-wise (`COLLATE "C"`), as SQLite's does. One spelling for the
    filter and for the index on it (`indexes.filter_index`), so PostgreSQL matches the two."""
    if numeric:
        return (
            f"(CASE WHEN jsonb_typeof(meta_doc -> '{field}') = 'number'"
            f" THEN CAST(meta_doc ->> '{field}' AS DOUBLE PRECISION) END)"
        )
    return f"(CASE WHEN jsonb_typeof(meta_doc -> '{field}') = 'string' THEN meta_doc ->> '{field}' END) COLLATE \"C\""


def pg_where(clauses: list[list[Condition]] | None) -> tuple[str, list[Any]]:
    """`sqlite_where` for PostgreSQL: the same meaning over the JSONB copy of the metadata (a
    field of the other type, or missing, is NULL, so its comparison never holds)."""
    if clauses is None:
        return "TRUE", []
    parts, params = [], []
    for clause in clauses:
        terms = []
        for c in clause:
            marks = f"({in_marks(c.value)})" if c.op in ("IN", "NOT IN") else "?"
            params += list(c.value) if c.op in ("IN", "NOT IN") else [c.value]
            terms.append(f"({pg_value(c.field, c.numeric)} {c.op} {marks})")
        parts.append("(" + (" AND ".join(terms) or "TRUE") + ")")
    return "(" + (" OR ".join(parts) or "FALSE") + ")", params


def index_fields(clause: list[Condition]) -> tuple[tuple[str, bool], ...]:
    """The columns of the b-tree that narrows this clause to its rows: equalities first (by
    name), then the ranges, at most three."""
    eq = sorted({(c.field, c.numeric) for c in clause if c.op in ("=", "IN")})
    ranges = sorted({(c.field, c.numeric) for c in clause if c.op in INDEXABLE} - set(eq))
    return tuple([*eq, *ranges][:3])


def pg_narrowed(clauses: list[list[Condition]] | None) -> tuple[str, list[Any]]:
    """The filter as PostgreSQL SQL with its implied containment first (`pg_contains`), so the
    GIN index on `meta_doc` narrows a selective filter to its rows; no filter: every row."""
    if clauses is None:
        return "TRUE", []
    where_sql, params = pg_where(clauses)
    implied = pg_contains(clauses)
    if implied is None:
        return where_sql, params
    return f"{implied[0]} AND {where_sql}", [*implied[1], *params]


def pg_contains(clauses: list[list[Condition]]) -> tuple[str, list[Any]] | None:
    """A condition implied by the filter that the GIN index on `meta_doc` answers: per clause,
    its equalities as one `meta_doc @> {...}`. None when a clause has no equality to index
    (that clause alone could keep any row).

    Only text and whole numbers below 2**53 go in: for those, jsonb's numeric equality and the
    filter's double-precision one agree on every stored value, so the containment never drops a
    row the filter keeps (a larger or fractional number stays in the filter only)."""
    parts, params = [], []
    for clause in clauses:
        doc = {
            c.field: (int(c.value) if c.numeric else c.value)
            for c in clause
            if c.op == "=" and (not c.numeric or (float(c.value).is_integer() and abs(c.value) < 2**53))
        }
        if not doc:
            return None
        parts.append("meta_doc @> CAST(? AS jsonb)")
        params.append(json.dumps(doc, separators=(",", ":")))
    return "(" + (" OR ".join(parts) or "FALSE") + ")", params


def pg_vector(blob: bytes) -> str:
    """Little-endian float32 bytes as pgvector's text form; each float32 prints exactly."""
    return "[" + ",".join(map(str, np.frombuffer(blob, dtype="<f4").tolist())) + "]"
