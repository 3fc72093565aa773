"""A damaged, emptied, truncated or read-only store: one clear StoreError, never a write.

Every case hurts a real SQLite file and then checks the file's bytes are exactly as they were.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import threading
from pathlib import Path

import pytest

from lore.core.errors import StoreError
from lore.core.store.base import Migration
from lore.core.store.sqlite import SqliteStore
from support.damage import digest, pending_wal_bytes, scramble_table, settle, truncate

MIGRATIONS = [
    Migration("test/0001_items", "CREATE TABLE items (id INTEGER PRIMARY KEY, v TEXT);"),
    Migration("test/0002_notes", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"),
]
LATER = [*MIGRATIONS, Migration("test/0003_more", "CREATE TABLE more (id INTEGER PRIMARY KEY);")]


def _filled(path: Path) -> Path:
    store = SqliteStore(path)
    store.migrate(MIGRATIONS)
    with store.transaction() as tx:
        tx.executemany("INSERT INTO items (v) VALUES (?)", [(f"item {i} " * 20,) for i in range(400)])
        tx.execute("INSERT INTO notes (body) VALUES ('kept')")
    store.close()
    return path


def _one_line(exc: pytest.ExceptionInfo[StoreError]) -> str:
    message = str(exc.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_a_damaged_table_page_refuses_reads_of_it_and_every_write(tmp_path: Path) -> None:
    db = _filled(tmp_path / "lore.db")
    scramble_table(db, "items")
    before = digest(db)
    store = SqliteStore(db)
    # what does not touch the damage still reads
    assert store.connect().execute("SELECT body FROM notes").fetchone()[0] == "kept"
    with pytest.raises(StoreError) as read:
        store.connect().execute("SELECT v FROM items").fetchall()
    message = _one_line(read)
    assert message.startswith(f"the store at {db} is damaged (")
    assert "nothing was written; restore a backup or move it aside" in message
    with pytest.raises(StoreError, match="is damaged"), store.transaction() as tx:
        tx.execute("INSERT INTO notes (body) VALUES ('lost')")
    # another thread (its own connection, as web and MCP workers have) still reads what it can
    seen: list[str] = []
    reader = threading.Thread(
        target=lambda: seen.append(store.connect().execute("SELECT body FROM notes").fetchone()[0])
    )
    reader.start()
    reader.join()
    assert seen == ["kept"]
    store.close()
    assert digest(db) == before and pending_wal_bytes(db) == 0


def test_damage_is_found_before_any_write_even_in_an_untouched_table(tmp_path: Path) -> None:
    """A new process checks the file once before its first write, so a write to a healthy page
    of a damaged file is refused too, and so is a bare statement outside a transaction."""
    db = _filled(tmp_path / "lore.db")
    scramble_table(db, "items")
    before = digest(db)
    for write in ("transaction", "bare"):
        store = SqliteStore(db)
        with pytest.raises(StoreError, match="is damaged") as refused:
            if write == "transaction":
                with store.transaction() as tx:
                    tx.execute("INSERT INTO notes (body) VALUES ('lost')")
            else:
                store.connect().execute("INSERT INTO notes (body) VALUES ('lost')")
        _one_line(refused)
        store.close()
    assert digest(db) == before and pending_wal_bytes(db) == 0


def test_pending_migrations_are_never_written_into_a_damaged_file(tmp_path: Path) -> None:
    db = _filled(tmp_path / "lore.db")
    scramble_table(db, "items")
    before = digest(db)
    with pytest.raises(StoreError, match="is damaged"):
        SqliteStore(db).migrate(LATER)
    settle(db)
    assert digest(db) == before
    names = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert "more" not in names


def test_a_truncated_file_is_damage(tmp_path: Path) -> None:
    db = _filled(tmp_path / "lore.db")
    truncate(db, 0.4)
    before = digest(db)
    store = SqliteStore(db)
    with pytest.raises(StoreError, match="is damaged") as refused:
        store.migrate(LATER)
        store.connect().execute("SELECT COUNT(*), MAX(v) FROM items").fetchall()
    _one_line(refused)
    store.close()
    assert digest(db) == before


def test_a_zero_byte_file_is_refused_and_only_a_missing_file_is_a_new_store(tmp_path: Path) -> None:
    db = tmp_path / "lore.db"
    db.write_bytes(b"")
    with pytest.raises(StoreError, match=r"is damaged \(the file is empty\)"):
        SqliteStore(db).migrate(MIGRATIONS)
    assert db.read_bytes() == b""
    fresh = tmp_path / "new" / "lore.db"
    SqliteStore(fresh).migrate(MIGRATIONS)
    assert fresh.stat().st_size > 0
    assert not [p.name for p in fresh.parent.iterdir() if p.name.endswith(".new")]


def _open_and_write(path: str, tag: int) -> None:
    store = SqliteStore(Path(path))
    store.migrate(MIGRATIONS)
    with store.transaction() as tx:
        tx.execute("INSERT INTO notes (body) VALUES (?)", (str(tag),))


def test_processes_creating_the_store_at_once_all_get_it_whole(tmp_path: Path) -> None:
    """No process may see the new file before it has a header (it would refuse it as empty)."""
    path = tmp_path / "race" / "lore.db"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_open_and_write, args=(str(path), i)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 4


def test_a_store_asked_to_be_read_only_reads_and_refuses_writes(tmp_path: Path, lore_home: Path) -> None:
    db = _filled(tmp_path / "lore.db")
    settle(db)
    before = digest(db)
    lore_home.mkdir(parents=True, exist_ok=True)
    (lore_home / "config.json").write_text(json.dumps({"store": {"read_only": True}}))
    store = SqliteStore(db)
    assert store.read_only
    store.migrate(MIGRATIONS)  # all applied: nothing to write, so it works
    assert store.connect().execute("SELECT COUNT(*) FROM items").fetchone()[0] == 400
    with pytest.raises(StoreError) as refused, store.transaction() as tx:
        tx.execute("INSERT INTO notes (body) VALUES ('lost')")
    assert _one_line(refused) == (
        f"the store at {db} is read-only; this command needs to write to it "
        "(make the file and its folder writable, or unset store.read_only in config.json)"
    )
    with pytest.raises(StoreError, match="read-only and needs 1 schema update"):
        SqliteStore(db).migrate(LATER)
    store.close()
    assert digest(db) == before


def test_the_driver_refusing_a_write_reads_as_read_only(tmp_path: Path) -> None:
    """The same message when SQLite itself refuses (what a 0444 file gives a normal user)."""
    db = _filled(tmp_path / "lore.db")
    settle(db)
    store = SqliteStore(db, read_only=True)
    conn = store.connect()
    with pytest.raises(StoreError, match="is read-only"):
        conn.execute("WITH x AS (SELECT 1) INSERT INTO notes (body) SELECT 'lost' FROM x")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through file modes, so 0444 stops nothing")
def test_a_0444_file_and_a_read_only_folder_open_read_only(tmp_path: Path) -> None:
    db = _filled(tmp_path / "ro" / "lore.db")
    settle(db)
    before = digest(db)
    db.chmod(0o444)
    try:
        store = SqliteStore(db)
        assert store.read_only
        assert store.connect().execute("SELECT COUNT(*) FROM items").fetchone()[0] == 400
        with pytest.raises(StoreError, match="is read-only"), store.transaction() as tx:
            tx.execute("INSERT INTO notes (body) VALUES ('lost')")
        store.close()
        db.chmod(0o644)
        db.parent.chmod(0o555)
        store = SqliteStore(db)
        assert store.read_only
        assert store.connect().execute("SELECT COUNT(*) FROM items").fetchone()[0] == 400
        store.close()
    finally:
        db.parent.chmod(0o755)
        db.chmod(0o644)
    assert digest(db) == before


def test_constraint_failures_still_reach_the_domain_as_integrity_errors(tmp_path: Path) -> None:
    """A duplicate is an answer the domain asks for (e.g. a name taken), not a broken store."""
    store = SqliteStore(tmp_path / "lore.db")
    store.migrate(MIGRATIONS)
    with store.transaction() as tx:
        tx.execute("INSERT INTO items (id, v) VALUES (1, 'a')")
    with pytest.raises(sqlite3.IntegrityError), store.transaction() as tx:
        tx.execute("INSERT INTO items (id, v) VALUES (1, 'b')")
    assert store.connect().execute("SELECT v FROM items").fetchall()[0][0] == "a"
