"""MCP tools on a damaged or read-only store answer with a reason the model can read, in memory
and over stdio, and leave the file's bytes as they were."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from conftest import make_repo
from lore.cli.store import domain_migrations
from lore.core.store.base import DB_NAME
from lore.core.store.open import open_store
from lore.mcp.server import build_server
from lore.rules import service
from support.damage import digest, scramble_table, settle
from support.mcp_client import call

FILES = {"src/api/orders.py": "x = 1\n"}


def lore_command() -> list[str]:
    exe = shutil.which("lore", path=str(Path(sys.executable).parent))
    return [exe, "mcp"] if exe else [sys.executable, "-m", "lore.cli.entry", "mcp"]


@pytest.fixture
def shop(tmp_path: Path, lore_home: Path) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "shop", FILES)
    project, _ = service.register_project(repo)
    for i in range(200):
        service.add_rule(project, f"Keep handler {i} small and tested.", title=f"r{i}", scope="src/api")
    call(build_server(repo), "get_rules", {"paths": ["src/api/orders.py"]})  # sessions tables exist
    db = lore_home / "lore.db"
    settle(db)
    return repo, db


def test_damaged_store_gives_the_reason_in_memory(shop: tuple[Path, Path]) -> None:
    repo, db = shop
    scramble_table(db, "rules")
    before = digest(db)
    text, is_error = call(build_server(repo), "get_rules", {"paths": ["src/api/orders.py"], "task": "x"})
    assert is_error and f"the store at {db} is damaged (" in text
    # the SDK's prefix, then our line: not the bare "Error executing tool" of a crash
    assert text.startswith("Error executing tool get_rules: the store at") and "Traceback" not in text
    text, is_error = call(
        build_server(repo), "record_feedback", {"rule": "Use httpx", "paths": ["src/api/orders.py"]}
    )
    assert is_error and "is damaged" in text
    settle(db)
    assert digest(db) == before


def test_read_only_store_answers_reads_and_says_why_it_cannot_save(
    shop: tuple[Path, Path], lore_home: Path
) -> None:
    """Reading tools still answer from a read-only store (their bookkeeping has nowhere to go
    and is skipped); tools that save say why they cannot, and the file stays as it was."""
    repo, db = shop
    (lore_home / "config.json").write_text(json.dumps({"store": {"read_only": True}}))
    before = digest(db)
    server = build_server(repo)
    text, is_error = call(server, "get_rules", {"paths": ["src/api/orders.py"], "task": "keep handler small"})
    assert not is_error and "Keep handler" in text, text
    text, is_error = call(server, "search_rules", {"query": "handler", "paths": ["src/api/orders.py"]})
    assert not is_error and "Keep handler" in text, text
    text, is_error = call(server, "record_feedback", {"rule": "Use httpx", "paths": ["src/api/orders.py"]})
    assert f"the store at {db} is read-only" in text, text
    settle(db)
    assert digest(db) == before


def test_damaged_store_over_stdio(shop: tuple[Path, Path], lore_home: Path) -> None:
    repo, db = shop
    scramble_table(db, "rules")
    before = digest(db)
    command = lore_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], cwd=str(repo), env={**os.environ, "LORE_HOME": str(lore_home)}
    )

    async def run() -> None:
        async with Client(params, mode="legacy") as client:
            reply = await client.call_tool("get_rules", {"paths": ["src/api/orders.py"]})
            assert reply.is_error and "is damaged" in reply.content[0].text
            assert "restore a backup or move it aside" in reply.content[0].text

    anyio.run(run)
    assert digest(db) == before


@pytest.mark.parametrize("made_by", ["cli", "every_migration"])
def test_a_read_only_store_made_by_this_version_serves_get_rules(
    tmp_path: Path, lore_home: Path, made_by: str
) -> None:
    """A store this version made, never opened by a server (the CLI makes the rules tables; the
    session and history tables come with their first use), or with every domain's migrations
    applied, then made read-only: `lore mcp` over stdio serves get_rules from it, and the file
    stays as it was."""
    repo = make_repo(tmp_path / "shop", FILES)
    env = {**os.environ, "LORE_HOME": str(lore_home)}
    lore = lore_command()[:-1]
    for args in (
        ["projects", "add", str(repo)],
        ["review", "add", "Validate request bodies", "--scope", "src/api"],
    ):
        done = subprocess.run([*lore, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    db = lore_home / DB_NAME
    if made_by == "every_migration":
        store = open_store(db)
        for steps in domain_migrations().values():
            store.migrate(steps)
    settle(db)
    if os.geteuid() == 0:  # root writes through file modes: the setting stands in for them
        (lore_home / "config.json").write_text(json.dumps({"store": {"read_only": True}}))
    before = digest(db)
    db.chmod(0o444)
    lore_home.chmod(0o555)
    params = StdioServerParameters(command=lore_command()[0], args=lore_command()[1:], cwd=str(repo), env=env)
    replies: list[tuple[str, bool]] = []

    async def run() -> None:
        async with Client(params, mode="legacy") as client:
            for task in ("validate the request body", None):
                args = {"paths": ["src/api/orders.py"], **({"task": task} if task else {})}
                reply = await client.call_tool("get_rules", args)
                replies.append((reply.content[0].text, bool(reply.is_error)))

    try:
        anyio.run(run)
    finally:
        lore_home.chmod(0o755)
        db.chmod(0o644)
    first, is_error = replies[0]
    assert not is_error and "- [section] Validate request bodies" in first, first
    # bookkeeping had nowhere to go: the second call in the session still knows what it sent
    assert "already sent" in replies[1][0] and not replies[1][1]
    assert digest(db) == before
