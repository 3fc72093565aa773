"""Benchmark: `lore mcp` start-up and get_rules round trips over stdio.

Start-up is timed from spawning the process to a completed initialize, for `lore mcp` and for
a minimal server written with the same SDK (the floor: importing the SDK), in the same run.
The first get_rules of a session is timed against the calls after it in the same sessions: sent
the moment initialize completes (the worst case: the server is still loading the semantic model
and the project's rules in the background), and sent after `--pause` seconds (an agent's first
turn: the model reads the instructions and the task before it edits), with the size of the first
reply (tokens, estimated as characters / 4). Round trips: get_rules over stdio against the same
call made in-process.

    .venv/bin/python bench/mcp_roundtrip.py [--starts 7] [--calls 200] [--pause 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

MINIMAL = textwrap.dedent('''
    from mcp.server import MCPServer

    server = MCPServer(name="minimal", instructions="A minimal server.")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    server.run("stdio")
''')


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


async def time_start(params: StdioServerParameters) -> float:
    t0 = time.perf_counter()
    async with Client(params, mode="legacy"):
        return time.perf_counter() - t0


async def trips(client: Any, calls: int) -> list[float]:
    """`calls` get_rules round trips through an MCP client session, each in ms (also used by
    bench/connector.py, so both benches time the same call)."""
    out = []
    for i in range(calls):
        t0 = time.perf_counter()
        await client.call_tool(
            "get_rules", {"paths": ["src/api/orders.py"], "task": f"add pagination {i}", "refresh": True}
        )
        out.append((time.perf_counter() - t0) * 1000)
    return out


TASKS = ["add pagination to the orders endpoint", "add a status column to the orders table"]


async def first_and_later(
    params: StdioServerParameters, pause: float = 0.0, later: int = 5
) -> tuple[float, list[float], str]:
    """One fresh session: its first get_rules (ms, sent `pause` seconds after initialize),
    `later` calls after it (ms), and the first reply's text."""
    async with Client(params, mode="legacy") as client:
        await anyio.sleep(pause)
        t0 = time.perf_counter()
        first = await client.call_tool("get_rules", {"paths": ["src/api/orders.py"], "task": TASKS[0]})
        first_ms = (time.perf_counter() - t0) * 1000
        rest = []
        for i in range(later):
            t0 = time.perf_counter()
            await client.call_tool(
                "get_rules", {"paths": ["src/api/orders.py"], "task": TASKS[i % 2], "refresh": True}
            )
            rest.append((time.perf_counter() - t0) * 1000)
        return first_ms, rest, first.content[0].text


async def round_trips(params: StdioServerParameters, calls: int) -> list[float]:
    async with Client(params, mode="legacy") as client:
        return await trips(client, calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--pause", type=float, default=2.0, help="seconds before a paused first call")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lore-mcp-bench-"))
    env = {**os.environ, "LORE_HOME": str(work / "home")}
    os.environ["LORE_HOME"] = env["LORE_HOME"]

    from lore.rules.agent import AgentSession
    from lore.rules.demo import ensure_demo_project

    project = ensure_demo_project(work / "shop")
    minimal = work / "minimal_server.py"
    minimal.write_text(MINIMAL)
    lore_exe = shutil.which("lore", path=str(Path(sys.executable).parent))
    lore_cmd = [lore_exe, "mcp"] if lore_exe else [sys.executable, "-m", "lore.cli.entry", "mcp"]
    lore_params = StdioServerParameters(
        command=lore_cmd[0], args=lore_cmd[1:], cwd=str(project.path), env=env
    )
    floor_params = StdioServerParameters(command=sys.executable, args=[str(minimal)], cwd=str(work), env=env)

    sdk_import = []
    for _ in range(args.starts):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import mcp.server"], check=True, env=env)
        sdk_import.append(time.perf_counter() - t0)
    floor, lore = [], []
    for _ in range(args.starts):  # interleaved, so machine noise hits both alike
        floor.append(anyio.run(time_start, floor_params))
        lore.append(anyio.run(time_start, lore_params))
    firsts, paused, laters, first_text = [], [], [], ""
    for _ in range(args.starts):
        first_ms, later_ms, first_text = anyio.run(first_and_later, lore_params)
        firsts.append(first_ms)
        laters += later_ms
        paused.append(anyio.run(first_and_later, lore_params, args.pause)[0])
    stdio_ms = anyio.run(round_trips, lore_params, args.calls)

    session = AgentSession(project.path)
    local_ms = []
    for i in range(args.calls):
        t0 = time.perf_counter()
        session.get_rules(["src/api/orders.py"], task=f"add pagination {i}", refresh=True)
        local_ms.append((time.perf_counter() - t0) * 1000)

    f50, l50 = statistics.median(floor), statistics.median(lore)
    print(f"\nStart-up to a completed initialize (median of {args.starts}, seconds)\n")
    print(f"{'python -c import mcp.server':>36} | {statistics.median(sdk_import):7.3f}")
    print(f"{'minimal MCPServer (floor)':>36} | {f50:7.3f}")
    print(f"{'lore mcp':>36} | {l50:7.3f}   ratio {l50 / f50:.2f}x (+{(l50 / f50 - 1):.0%})")
    from lore.core.tokens import estimate_tokens

    first50, later50 = statistics.median(firsts), statistics.median(laters)
    print(f"\nFirst get_rules of a session against the later ones ({args.starts} sessions, ms)\n")
    print(f"{'':>20} | {'p50':>7} | {'max':>7}")
    print(f"{'first, at once':>20} | {first50:7.1f} | {max(firsts):7.1f}")
    paused50 = statistics.median(paused)
    print(
        f"{f'first, after {args.pause:g} s':>20} | {paused50:7.1f} | {max(paused):7.1f}   first / later {paused50 / statistics.median(laters):.1f}x"
    )
    print(
        f"{'later calls':>20} | {later50:7.1f} | {max(laters):7.1f}   first / later {first50 / later50:.1f}x"
    )
    print(f"first reply: {estimate_tokens(first_text)} tokens, {first_text.count(chr(10)) + 1} lines")
    print(f"\nget_rules round trip over {args.calls} calls (ms)\n")
    print(f"{'':>20} | {'p50':>7} | {'p95':>7}")
    print(f"{'stdio (lore mcp)':>20} | {statistics.median(stdio_ms):7.2f} | {pct(stdio_ms, 0.95):7.2f}")
    print(f"{'in-process call':>20} | {statistics.median(local_ms):7.2f} | {pct(local_ms, 0.95):7.2f}")
    print(f"{'wire overhead':>20} | {statistics.median(stdio_ms) - statistics.median(local_ms):7.2f} |")


if __name__ == "__main__":
    from report import recorded

    with recorded(
        baseline="a minimal server written with the same SDK (start-up) and the in-process client (round trips), same run"
    ):
        main()
