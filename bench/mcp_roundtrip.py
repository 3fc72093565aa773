"""Benchmark: `lore mcp` start-up and get_rules round trips over stdio.

Start-up is timed from spawning the process to a completed initialize, for `lore mcp` and for
a minimal server written with the same SDK (the floor: importing the SDK alone takes about a
second here), in the same run. Round trips: get_rules over stdio against the same call made
in-process.

    .venv/bin/python bench/mcp_roundtrip.py [--starts 7] [--calls 200]
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


async def round_trips(params: StdioServerParameters, calls: int) -> list[float]:
    async with Client(params, mode="legacy") as client:
        return await trips(client, calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
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
    print(f"\nget_rules round trip over {args.calls} calls (ms)\n")
    print(f"{'':>20} | {'p50':>7} | {'p95':>7}")
    print(f"{'stdio (lore mcp)':>20} | {statistics.median(stdio_ms):7.2f} | {pct(stdio_ms, 0.95):7.2f}")
    print(f"{'in-process call':>20} | {statistics.median(local_ms):7.2f} | {pct(local_ms, 0.95):7.2f}")
    print(f"{'wire overhead':>20} | {statistics.median(stdio_ms) - statistics.median(local_ms):7.2f} |")


if __name__ == "__main__":
    main()
