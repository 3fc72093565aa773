"""Placeholders for psycopg: the one change a statement goes through on its way to PostgreSQL.

The store modules write each statement once, in SQL both engines accept, with the placeholders
of sqlite3's DB-API paramstyles (`?` and `:name`). psycopg speaks another paramstyle (`%s` and
`%(name)s`, where a literal `%` is written `%%`), so this module swaps the placeholders and
doubles every `%`, in string literals too (`LIKE '%x%'`): psycopg reads the whole text for
placeholders. Nothing else is touched: a keyword, a clause or a function name reaches the server
as the store module wrote it, and where the engines differ the store module holds both texts.
"""

from __future__ import annotations

import re
from functools import lru_cache

# string literals, quoted names and comments are copied as they are (their `%` doubled);
# `::` is a cast, not a named parameter
_TOKENS = re.compile(
    r"""
    (?P<literal>'(?:[^']|'')*')
  | (?P<quoted>"(?:[^"]|"")*")
  | (?P<comment>--[^\n]*)
  | (?P<cast>::)
  | (?P<named>(?<![:\w]):(?P<name>[A-Za-z_]\w*))
  | (?P<positional>\?)
  | (?P<percent>%)
    """,
    re.VERBOSE,
)


def _swap(match: re.Match[str]) -> str:
    kind = match.lastgroup
    if kind in ("named", "name"):  # `name` is the inner group of `named`
        return f"%({match.group('name')})s"
    if kind == "positional":
        return "%s"
    if kind == "percent":
        return "%%"
    return match.group(0).replace("%", "%%")  # a literal, a quoted name, a comment or a cast


@lru_cache(maxsize=4096)
def pyformat(sql: str) -> str:
    """`sql` with sqlite3's placeholders written as psycopg's; cached per distinct text (a
    statement built per call, such as an `IN (...)` list, ages out of the cache)."""
    return _TOKENS.sub(_swap, sql)
