"""Duplicate, contradiction and limit checks hold across processes and parallel calls (issue 10.7).

Real processes on one LORE_HOME: `lore mcp` stdio servers, or spawned workers calling the agent
session; every round asserts exact counts.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from conftest import make_repo
from lore.core.config import update_settings
from lore.mcp.server import build_server
from lore.rules import service
from support.mcp_client import lore_command

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")

NATO = (
    "alfa bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu"
).split()
TEXTS = [f"Keep the {word} package free of import cycles" for word in NATO]


def test_four_servers_saving_the_same_rules_keep_one_each(tmp_path: Path, lore_home: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"a.py": "x"})
    service.register_project(repo)
    command = lore_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], cwd=str(repo), env={**os.environ, "LORE_HOME": str(lore_home)}
    )
    replies: list[str] = []

    async def server(seed: int, ready: anyio.Event, go: anyio.Event, count: list[int]) -> None:
        order = TEXTS[:]
        random.Random(seed).shuffle(order)
        async with Client(params, mode="legacy") as client:
            count.append(1)
            if len(count) == 4:
                ready.set()
            await go.wait()  # all four connected: now they race
            for text in order:
                result = await client.call_tool("propose_rules", {"rules": [text], "paths": ["a.py"]})
                replies.append(result.content[0].text)

    async def run() -> None:
        ready, go, count = anyio.Event(), anyio.Event(), []
        async with anyio.create_task_group() as tg:
            for seed in range(4):
                tg.start_soon(server, seed, ready, go, count)
            await ready.wait()
            go.set()

    anyio.run(run)
    rules = service.list_rules(service.find_project("shop"))
    assert sorted(r.text for r in rules) == sorted(TEXTS)
    assert sum(("- activated" in r) or ("- waiting" in r) for r in replies) == 26
    assert sum("already known as" in r for r in replies) == 3 * 26


def _contradicting_worker(repos: list[str], home: str, text: str, barrier, results) -> None:
    os.environ["LORE_HOME"] = home
    from lore.rules.agent import AgentSession

    for repo in repos:
        session = AgentSession(repo)
        session.get_rules(["a.py"])  # warm: the session works on this project, the store is open
        barrier.wait()
        results.put(session.propose_rules([{"text": text}], ["a.py"]))


def test_contradicting_rules_saved_at_once_by_two_sessions_activate_one(
    tmp_path: Path, lore_home: Path
) -> None:
    rounds = 10
    repos = [str(make_repo(tmp_path / f"shop{n}", {"a.py": "x"})) for n in range(rounds)]
    for repo in repos:
        service.register_project(repo)
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    texts = ("Use tabs for indentation", "Use spaces for indentation")
    workers = [
        ctx.Process(target=_contradicting_worker, args=(repos, str(lore_home), t, barrier, results))
        for t in texts
    ]
    for w in workers:
        w.start()
    replies = [results.get(timeout=300) for _ in range(2 * rounds)]
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    for repo in repos:
        project = service.project_for_path(repo)
        statuses = sorted(r.status for r in service.list_rules(project))
        assert statuses == ["active", "pending"], repo  # every round: exactly one of the pair wins
    assert sum("- activated" in r for r in replies) == rounds
    assert sum("contradicts rule" in r for r in replies) == rounds


def test_parallel_proposals_in_one_session_respect_auto_limit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"a.py": "x"})
    update_settings({"auto_limit": 25})
    server = build_server(repo)
    replies: list[str] = []

    async def run() -> None:
        async with Client(server) as client:
            await client.call_tool("get_rules", {"paths": ["a.py"]})

            async def propose(n: int) -> None:
                rules = [f"Keep the {NATO[n]} helpers private in layer {layer}" for layer in "abcde"]
                result = await client.call_tool("propose_rules", {"rules": rules, "paths": ["a.py"]})
                replies.append(result.content[0].text)

            async with anyio.create_task_group() as tg:
                for n in range(12):
                    tg.start_soon(propose, n)

    anyio.run(run)
    rules = service.list_rules(service.find_project("shop"))
    assert len(rules) == 60
    assert sum(r.status == "active" for r in rules) == 25
    assert sum(r.count("session limit") for r in replies) == 35
