"""The SQLite file itself: made whole before it appears, opened writable or read-only.

What `SqliteStore` decides about the file before it connects: whether to open it read-only
(asked for in config.json, or a file or folder this user cannot write), what sqlite3.connect is
given for that, and how a new store is created so no other process ever sees it half made.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import suppress
from pathlib import Path

from lore.core.config import read_raw
from lore.core.errors import StoreError


def wants_read_only(path: Path, forced: bool | None) -> bool:
    if forced is not None:
        return forced
    section = read_raw().get("store")
    if isinstance(section, dict) and section.get("read_only") is True:
        return True
    if not path.exists():
        return False
    # os.access, not the mode bits: it answers for this user (root may write a 0444 file)
    return not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)


def connect_target(path: Path, read_only: bool) -> tuple[str | Path, bool]:
    """What sqlite3.connect is given: the path, or a read-only URI.

    In a folder Lore cannot write, SQLite cannot create the WAL index (`-shm`) it needs even to
    read, so a file with no `-wal` beside it is opened as immutable: nobody can be writing it.
    """
    if not read_only:
        return path, False
    query = "mode=ro"
    wal = path.with_name(path.name + "-wal")
    if not os.access(path.parent, os.W_OK) and not wal.exists():
        query += "&immutable=1"
    return f"{path.resolve().as_uri()}?{query}", True


def create_file(path: Path) -> None:
    """Make a new, empty store whole before it appears under its name.

    SQLite creates a zero-byte file and fills in its header later, so another process opening
    the name in between would see an empty file; an empty file is treated as damage (a truncated
    store must not silently become a new one), so the new file is built under a temporary name
    and linked into place, which fails if someone else got there first.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.new")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it meanwhile: use theirs
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(tmp, path)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot create the store at {path} ({exc})") from None
    except OSError as exc:  # e.g. a folder Lore may not write
        raise StoreError(f"cannot create the store at {path} ({exc.strerror or exc})") from None
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
            with suppress(FileNotFoundError):
                leftover.unlink()
