"""The stores' SQL, as written for SQLite, rewritten for PostgreSQL.

The store modules keep one text per statement wherever the two engines mean the same thing, so
a reader sees one query, not two. What differs only in spelling is rewritten here, once per
distinct statement (the result is cached):

- placeholders: `?` becomes `%s`, `:name` becomes `%(name)s`, and every `%` is doubled, in
  string literals too (`LIKE '%x%'`): psycopg reads the whole text for placeholders;
- `INSERT OR IGNORE INTO` becomes `INSERT INTO ... ON CONFLICT DO NOTHING`;
- `INSERT OR REPLACE INTO t (cols)` becomes an upsert on the table's primary key, which the
  caller looks up (`replace_keys`), so every non-key column named is overwritten;
- `LIKE` becomes `ILIKE`: SQLite's `LIKE` ignores ASCII case and the stores rely on it;
- a bare `BEGIN` (a read snapshot in SQLite) becomes `BEGIN ISOLATION LEVEL REPEATABLE READ`, so
  the statements inside it see one snapshot as they do in SQLite.

Where the engines truly differ (full-text search, vector search, `PRAGMA`), the store module
holds both texts and picks one by `store.dialect`; this module never guesses at those.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

# string literals and quoted names are copied as they are; `::` is a cast, not a parameter
_TOKENS = re.compile(
    r"""
    (?P<literal>'(?:[^']|'')*')
  | (?P<quoted>"(?:[^"]|"")*")
  | (?P<comment>--[^\n]*)
  | (?P<cast>::)
  | (?P<named>(?<![:\w]):(?P<name>[A-Za-z_]\w*))
  | (?P<positional>\?)
  | (?P<percent>%)
  | (?P<like>\bLIKE\b)
    """,
    re.VERBOSE,
)
_OR_IGNORE = re.compile(r"^\s*INSERT\s+OR\s+IGNORE\s+INTO\b", re.IGNORECASE)
_OR_REPLACE = re.compile(r"^\s*INSERT\s+OR\s+REPLACE\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.IGNORECASE)
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)
_BARE_BEGIN = re.compile(r"^\s*BEGIN(?:\s+DEFERRED)?\s*;?\s*$", re.IGNORECASE)


def _placeholders(sql: str) -> str:
    def swap(match: re.Match[str]) -> str:
        kind = match.lastgroup
        if kind == "name":  # the inner group of `named`
            kind = "named"
        if kind == "named":
            return f"%({match.group('name')})s"
        if kind == "positional":
            return "%s"
        if kind == "percent":
            return "%%"
        if kind == "like":
            return "ILIKE"
        return match.group(0).replace("%", "%%")  # a literal, quoted name or comment

    return _TOKENS.sub(swap, sql)


def _before_returning(sql: str, clause: str) -> str:
    """Put an `ON CONFLICT` clause where PostgreSQL wants it: before `RETURNING`, if any."""
    body = sql.rstrip().rstrip(";")
    found = _RETURNING.search(body)
    if found is None:
        return f"{body} {clause}"
    return f"{body[: found.start()]}{clause} {body[found.start() :]}"


@lru_cache(maxsize=256)
def _rewrite(sql: str, keys: tuple[str, ...] | None) -> str:
    if _BARE_BEGIN.match(sql):
        return "BEGIN ISOLATION LEVEL REPEATABLE READ"
    if _OR_IGNORE.match(sql):
        sql = _before_returning(_OR_IGNORE.sub("INSERT INTO", sql, count=1), "ON CONFLICT DO NOTHING")
    elif (found := _OR_REPLACE.match(sql)) is not None:
        if not keys:
            raise ValueError(f"INSERT OR REPLACE into {found.group(1)}, which has no primary key")
        columns = [c.strip() for c in found.group(2).split(",") if c.strip()]
        updates = [f"{c} = EXCLUDED.{c}" for c in columns if c not in keys]
        action = f"DO UPDATE SET {', '.join(updates)}" if updates else "DO NOTHING"
        sql = _before_returning(
            "INSERT INTO " + sql[found.start(1) :],
            f"ON CONFLICT ({', '.join(keys)}) {action}",
        )
    return _placeholders(sql)


def replaced_table(sql: str) -> str | None:
    """The table an `INSERT OR REPLACE` writes, whose primary key the rewrite needs."""
    found = _OR_REPLACE.match(sql)
    return found.group(1) if found else None


_done: dict[str, str] = {}


def to_postgres(sql: str, replace_keys: Callable[[str], tuple[str, ...]]) -> str:
    """The PostgreSQL text of one statement the stores wrote for SQLite."""
    text = _done.get(sql)
    if text is None:
        table = replaced_table(sql)
        text = _rewrite(sql, replace_keys(table) if table else None)
        if table is None:  # an upsert's text depends on the table's key, which a migration may change
            if len(_done) > 20_000:  # statements built per call (IN lists) stay bounded
                _done.clear()
            _done[sql] = text
    return text
