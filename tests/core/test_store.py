import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest

from lore.core.errors import StoreError
from lore.core.store.base import Migration
from lore.core.store.open import open_store
from lore.core.store.sqlite import SqliteStore

MIGRATIONS = [
    Migration("test/0001_items", "CREATE TABLE items (id INTEGER PRIMARY KEY, v TEXT);"),
    Migration("test/0002_index", "CREATE INDEX items_v ON items(v);"),
]


def test_wal_busy_timeout_and_migrations_applied_once(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db")
    store.migrate(MIGRATIONS)
    store.migrate(MIGRATIONS)
    conn = store.connect()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert store.applied_migrations() == ["test/0001_items", "test/0002_index"]
    # a new process (new Store object) sees them applied and adds only the new one
    again = SqliteStore(tmp_path / "a.db")
    again.migrate([*MIGRATIONS, Migration("test/0003_more", "ALTER TABLE items ADD COLUMN w TEXT;")])
    assert again.applied_migrations()[-1] == "test/0003_more"


def test_connection_per_thread(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "b.db")
    main = store.connect()
    seen = []
    t = threading.Thread(target=lambda: seen.append(store.connect()))
    t.start()
    t.join()
    assert seen[0] is not main and store.connect() is main


def test_failed_transaction_rolls_back(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "c.db")
    store.migrate(MIGRATIONS)
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.execute("INSERT INTO items (v) VALUES ('x')")
        raise RuntimeError("boom")
    assert store.connect().execute("SELECT COUNT(*) FROM items").fetchone()[0] == 0


def test_corrupt_file_gives_a_clear_error_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "bad.db"
    path.write_bytes(b"this is not a database at all" * 100)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a database"):
        SqliteStore(path).migrate(MIGRATIONS)
    assert path.read_bytes() == before


def _writer(path: str, n: int) -> None:
    store = SqliteStore(Path(path))
    store.migrate(MIGRATIONS)
    for i in range(n):
        with store.transaction() as tx:
            tx.execute("INSERT INTO items (v) VALUES (?)", (str(i),))


def test_concurrent_writer_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "d.db"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), 100)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT COUNT(*) FROM items").fetchone()[0] == 400


def test_open_store_is_shared_per_file(lore_home: Path) -> None:
    assert open_store() is open_store()
    assert open_store().path == (lore_home / "lore.db").resolve()
