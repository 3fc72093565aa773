"""What counts as delivered: only replies handed back, and never waiting on another writer."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from conftest import make_repo
from lore.core.store.base import DB_NAME
from lore.mcp.server import build_server
from lore.rules import service
from lore.rules.serve.index import project_index
from lore.rules.store.rules import rules_store
from support.mcp_client import lore_command

FILES = {"src/api/orders.py": "x", "src/db/models.py": "x", "README.md": "x"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", FILES)


def test_a_cancelled_get_rules_is_not_delivered(repo: Path) -> None:
    project, _ = service.register_project(repo)
    rules_store().mark_setup_pending(project.id)
    rule = service.add_rule(project, "Validate request bodies", scope="src/api")
    index = project_index(rules_store(), project.id, service.tokenizer())
    server = build_server(repo)
    seen: list[str] = []

    async def run() -> None:
        async with Client(server) as client:
            with index.lock:  # the server's reply cannot be finished while the test holds this
                async with anyio.create_task_group() as tg:

                    async def doomed() -> None:
                        await client.call_tool("get_rules", {"paths": ["src/api/orders.py"]})
                        seen.append("answered")  # never: the call is cancelled below

                    tg.start_soon(doomed)
                    await client.list_tools()  # the request has reached the server
                    tg.cancel_scope.cancel()  # the client gives up: notifications/cancelled
                await client.list_tools()  # ...and the server has read the cancellation
            result = await client.call_tool("get_rules", {"paths": ["src/api/orders.py"]})
            seen.append(result.content[0].text)

    anyio.run(run)
    assert len(seen) == 1
    reply = seen[0]
    assert "- [section] Validate request bodies" in reply and "already sent" not in reply
    assert "was just registered. Set it up" in reply  # the set-up note was not lost either
    assert service.get_rule(rule.id).served_count == 1


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_get_rules_cancelled_after_its_reply_was_built_is_not_delivered(repo: Path, mode: str) -> None:
    """The client gives up once the server has built the reply but before it is handed back
    (legacy: a JSON-RPC `notifications/cancelled`; auto: the in-process call's scope). The
    agent never read those rules, so the next call sends them, not "already sent"."""
    project, _ = service.register_project(repo)
    rule = service.add_rule(project, "Validate request bodies", scope="src/api")
    built, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def hold_first_reply() -> None:
        calls.append(1)
        if len(calls) == 1:  # the doomed call: its reply exists, and waits here to be returned
            built.set()
            release.wait()

    server = build_server(repo, reply_built=hold_first_reply)
    seen: list[str] = []

    async def run() -> None:
        async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
            scope, gave_up = anyio.CancelScope(), anyio.Event()
            async with anyio.create_task_group() as tg:

                async def doomed() -> None:
                    try:
                        with scope:
                            await client.call_tool("get_rules", {"paths": ["src/api/orders.py"]})
                            seen.append("answered")  # never: the call is cancelled below
                    finally:
                        gave_up.set()

                tg.start_soon(doomed)
                await anyio.to_thread.run_sync(built.wait)  # the reply is built, not yet sent
                scope.cancel()  # the client gives up
                if mode == "legacy":
                    # its call ends by sending notifications/cancelled, and the server reads
                    # that before the next request (in-process, the cancel reaches the
                    # handler's own scope at once)
                    await gave_up.wait()
                    await client.list_tools()
                release.set()  # the worker thread hands its reply back to a cancelled call
            result = await client.call_tool("get_rules", {"paths": ["src/api/orders.py"]})
            seen.append(result.content[0].text)

    anyio.run(run)
    assert len(calls) == 2 and len(seen) == 1
    assert "- [section] Validate request bodies" in seen[0] and "already sent" not in seen[0]
    assert service.get_rule(rule.id).served_count == 1


HOLD_WRITE = textwrap.dedent(
    """
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('test/long-writer', 0)")
    print("holding", flush=True)
    sys.stdin.readline()
    conn.execute("ROLLBACK")
    print("released", flush=True)
    """
)


def test_get_rules_answers_while_another_process_holds_a_long_write(repo: Path, lore_home: Path) -> None:
    project, _ = service.register_project(repo)
    rules_store().take_setup_pending(project.id)
    api = service.add_rule(project, "Validate request bodies", scope="src/api")
    unjudged, _ = service.register_project(make_repo(repo.parent / "other", {"b.py": "x"}))
    rules_store().take_setup_pending(unjudged.id)
    service.add_rule(unjudged, "Name scripts after what they do")
    db = service.add_rule(project, "Keep queries in repositories", scope="src/db")
    command = lore_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], cwd=str(repo), env={**os.environ, "LORE_HOME": str(lore_home)}
    )
    replies: list[str] = []
    writers: list[subprocess.Popen] = []

    async def run() -> None:
        async with Client(params, mode="legacy") as client, Client(params, mode="legacy") as fresh:
            first = await client.call_tool("get_rules", {"paths": ["src/api/orders.py"]})
            replies.append(first.content[0].text)
            writer = subprocess.Popen(
                [sys.executable, "-c", HOLD_WRITE, str(lore_home / DB_NAME)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            writers.append(writer)
            assert await anyio.to_thread.run_sync(writer.stdout.readline) == "holding\n"
            # a book import (or anything) now holds the store's write lock until told to stop
            second = await client.call_tool(
                "get_rules", {"paths": ["src/db/models.py"], "task": "add a column"}
            )
            replies.append(second.content[0].text)
            other = await fresh.call_tool("get_rules", {"paths": ["src/api/orders.py"]})  # a new session
            replies.append(other.content[0].text)
            # a repository never judged yet: its trust verdict is remembered behind the writer too
            unseen = await fresh.call_tool("get_rules", {"paths": [str(unjudged.path / "b.py")]})
            replies.append(unseen.content[0].text)
            assert writer.poll() is None  # the writer still holds its transaction
            writer.stdin.write("\n")
            writer.stdin.flush()
            assert await anyio.to_thread.run_sync(writer.stdout.readline) == "released\n"

    anyio.run(run)
    writers[0].wait()
    assert "- [section] Validate request bodies" in replies[0]
    assert "- [section] Keep queries in repositories" in replies[1]
    assert "- [section] Validate request bodies" in replies[2] and "already sent" not in replies[2]
    assert "- [global] Name scripts after what they do" in replies[3]
    # what was sent under the lock was recorded once the writer let go (at the latest as the
    # servers stopped: a server saves what it queued before it exits)
    assert service.get_rule(api.id).served_count == 2
    assert service.get_rule(db.id).served_count == 1
