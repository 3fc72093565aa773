"""Counting the statements a piece of work sends to the store, on either backend.

On PostgreSQL each statement is a round trip to the server: libpq's own trace of the connection
shows one Sync message per statement sent. On SQLite the connection's trace callback sees each
statement (those FTS5 runs inside another are left out). Used by the tests that hold `why` to
its batched reads and by `bench/store_backends.py`, which prints statements per question.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def statements(store: Any) -> Iterator[list[str]]:
    """The statements this thread's connection of `store` sends while the block runs (on
    PostgreSQL, filled in when the block ends)."""
    conn = store.connect()
    seen: list[str] = []
    if isinstance(conn, sqlite3.Connection):
        # a line starting "--" is a statement run inside another (FTS5's own reads), not one sent
        conn.set_trace_callback(lambda sql: None if sql.startswith("--") else seen.append(sql))
        try:
            yield seen
        finally:
            conn.set_trace_callback(None)
        return
    pgconn = conn.raw.pgconn
    fd, name = tempfile.mkstemp(prefix="lore-trace-")
    pgconn.trace(fd)
    try:
        yield seen
    finally:
        pgconn.untrace()
        os.close(fd)
        seen.extend(line for line in Path(name).read_text().splitlines() if "\tSync" in line)
        os.unlink(name)
