"""Ways a real store file gets hurt, done to real SQLite files: a scrambled table page, a
truncated file, an emptied file. Each first closes Lore's connections, so the WAL is folded
into the file and the damage lands where SQLite will read it."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from lore.core.store.open import forget_stores


def settle(db: Path) -> None:
    """Close every cached connection and fold the WAL into the main file."""
    forget_stores()
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def scramble_table(db: Path, table: str) -> None:
    """Overwrite the cell pointers of a table's root page (past the file header)."""
    settle(db)
    conn = sqlite3.connect(db)
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()[0]
    finally:
        conn.close()
    assert root > 1, "the root page of a table is never page 1, which holds the file header"
    with db.open("r+b") as handle:
        handle.seek((root - 1) * page_size + 3)  # cell count, content start, then the pointers
        handle.write(b"\xff" * 64)


def truncate(db: Path, fraction: float = 0.5) -> None:
    settle(db)
    size = db.stat().st_size
    with db.open("r+b") as handle:
        handle.truncate(int(size * fraction))


def digest(db: Path) -> str:
    """The file's bytes, hashed: a damaged store must be exactly as it was after a refusal."""
    return hashlib.sha256(db.read_bytes()).hexdigest()


def pending_wal_bytes(db: Path) -> int:
    """Bytes waiting in the WAL: a refused write must leave none there either."""
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0
