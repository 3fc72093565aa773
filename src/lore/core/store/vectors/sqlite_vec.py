"""Nearest rows on SQLite, scanned in SQL by the sqlite-vec extension.

Used when a search asks for the `sqlite-vec` path on the embedded store (the default path keeps
the matrix in memory, `lore.core.vectors`). The extension loads where this Python's sqlite3 can
load extensions, or through the `sqlean.py` build of sqlite3 when it cannot
(`pip install 'lore-mem[vec]'`); each thread opens its own connection with it loaded.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from lore.core.errors import InvalidInput
from lore.core.store.vectors.filters import sqlite_where
from lore.core.store.vectors.records import Condition, ScoredRow


def scan(
    path: Path, collection: str, embedder: str, query: bytes, k: int, clauses: list[list[Condition]] | None
) -> list[ScoredRow]:
    """The k nearest rows by cosine distance, ties broken by row id; a vector without direction
    (all zeros) scores distance 1, as the in-memory path does."""
    where_sql, params = sqlite_where(clauses)
    rows = (
        sqlite_vec_connection(path)
        .execute(
            "SELECT item_key, meta, COALESCE(vec_distance_cosine(vector, ?), 1.0) AS distance"
            " FROM core_vectors"
            f" WHERE collection = ? AND embedder = ? AND {where_sql}"
            " ORDER BY distance, id LIMIT ?",
            (query, collection, embedder, *params, k),
        )
        .fetchall()
    )
    return [ScoredRow(r[0], r[1], float(r[2])) for r in rows]


_vec_local = threading.local()


def sqlite_vec_status() -> tuple[bool, str]:
    """Whether the sqlite-vec path can run here, and which sqlite3 build carries it (or why not)."""
    try:
        sqlite_vec_connection(None)
    except InvalidInput as exc:
        return False, str(exc)
    module = "sqlite3" if hasattr(sqlite3.Connection, "enable_load_extension") else "sqlean"
    return True, f"sqlite-vec loaded through {module}"


def sqlite_vec_connection(path: Path | None) -> Any:
    """A per-thread connection with sqlite-vec loaded (`path=None`: an in-memory probe)."""
    target = str(path) if path is not None else ":memory:"
    conns = getattr(_vec_local, "conns", None)
    if conns is None:
        conns = _vec_local.conns = {}
    if target in conns:
        return conns[target]
    try:
        import sqlite_vec
    except ImportError as exc:
        raise InvalidInput("the sqlite-vec path needs `pip install 'lore-mem[vec]'`") from exc
    module: Any = sqlite3
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        try:
            import sqlean

            module = sqlean
        except ImportError as exc:
            raise InvalidInput(
                "this Python's sqlite3 cannot load extensions; `pip install 'lore-mem[vec]'`"
                " brings the sqlean.py build that can"
            ) from exc
    try:
        conn = module.connect(target, timeout=30, check_same_thread=True)
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except Exception as exc:  # any build or loader failure means the path is unavailable
        raise InvalidInput(f"sqlite-vec could not be loaded: {exc}") from exc
    conns[target] = conn
    return conn
