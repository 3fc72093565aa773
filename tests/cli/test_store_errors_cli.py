"""The real `lore` command on a damaged, empty, truncated or read-only store: exit 4, one line
on stderr, no traceback, and the file's bytes exactly as they were."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import make_repo
from lore.rules import service
from support.damage import digest, pending_wal_bytes, scramble_table, settle, truncate


def lore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lore.cli.entry", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )


@pytest.fixture
def db(tmp_path: Path, lore_home: Path) -> Path:
    """A store with one project and 120 rules (so the rules table spans pages)."""
    repo = make_repo(tmp_path / "shop", {"src/api/orders.py": "x = 1\n"})
    project, _ = service.register_project(repo)
    for i in range(120):
        service.add_rule(project, f"Rule number {i}: keep handler {i} small and tested.", title=f"r{i}")
    path = lore_home / "lore.db"
    settle(path)
    return path


def _refused(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert result.returncode == 4, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("error: the store at "), lines[0]
    for word in words:
        assert word in lines[0]
    return lines[0]


def test_damaged_rules_table_exit_4_and_other_domains_never_migrate_into_it(db: Path) -> None:
    scramble_table(db, "rules")
    before = digest(db)
    line = _refused(lore("review", "--name", "shop", "list"), "is damaged", "restore a backup")
    assert str(db) in line
    # books and history have not created their tables yet: their migrations must not be written
    _refused(lore("books", "list"), "is damaged")
    _refused(lore("history", "repos"), "is damaged")
    _refused(lore("review", "--name", "shop", "add", "Use spaces", "--title", "Spaces"), "is damaged")
    assert digest(db) == before and pending_wal_bytes(db) == 0


def test_truncated_and_empty_stores_exit_4(db: Path) -> None:
    truncate(db, 0.3)
    before = digest(db)
    _refused(lore("review", "--name", "shop", "list"), "is damaged")
    _refused(lore("books", "list"), "is damaged")
    assert digest(db) == before
    db.write_bytes(b"")
    for wal in (db.with_name("lore.db-wal"), db.with_name("lore.db-shm")):
        wal.unlink(missing_ok=True)
    _refused(lore("projects"), "is damaged (the file is empty)")
    assert db.read_bytes() == b""


def test_read_only_store_reads_and_says_why_it_cannot_write(db: Path, lore_home: Path) -> None:
    assert lore("books", "list").returncode == 0  # every domain's tables exist before it turns read-only
    settle(db)
    (lore_home / "config.json").write_text(json.dumps({"store": {"read_only": True}}))
    before = digest(db)
    listed = lore("review", "--name", "shop", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) == 120
    assert lore("books", "list").returncode == 0
    _refused(lore("review", "--name", "shop", "add", "Use spaces", "--title", "Spaces"), "is read-only")
    assert digest(db) == before
