"""Benchmark: the remote MCP connector (`lore serve --mcp`) against the same server in process.

One run: the whole OAuth flow once (registration, consent, token) with the SDK client, then
get_rules round trips three ways, interleaved so machine noise hits all alike: the in-process
client (the floor), streamable HTTP without auth (the transport's cost), and streamable HTTP
behind OAuth through the web app and its guard (what a connector pays: a hashed token looked up
in the store on every request); and that bearer check alone, which the round trips' noise hides.

    .venv/bin/python bench/connector.py [--calls 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from mcp_roundtrip import trips  # noqa: E402  (bench/ is put on the path just above)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


async def bearer_checks(base: str, token: str, count: int) -> list[float]:
    """The provider's check of one bearer token, alone (what every /mcp request runs), in µs."""
    from lore.web.oauth.provider import LoreOAuth

    provider = LoreOAuth(base, f"{base}/mcp")
    assert await provider.load_access_token(token) is not None
    out = []
    for _ in range(count):
        t0 = time.perf_counter()
        await provider.load_access_token(token)
        out.append((time.perf_counter() - t0) * 1e6)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lore-connector-bench-"))
    os.environ["LORE_HOME"] = str(work / "home")
    sys.path.insert(0, str(ROOT / "tests"))

    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from lore.mcp.server import build_server
    from lore.rules.demo import ensure_demo_project
    from lore.web.server import bind
    from support.connector import Browser, MemoryStorage, oauth_client, running

    project = ensure_demo_project(work / "shop")

    # the transport alone: the same server over streamable HTTP, no auth, no web app
    plain = build_server(project.path)
    sock = bind(0)
    plain_app = plain.streamable_http_app()
    config = uvicorn.Config(plain_app, log_level="warning", access_log=False, lifespan="on")
    plain_server = uvicorn.Server(config)
    thread = threading.Thread(target=plain_server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not plain_server.started:
        time.sleep(0.01)
    plain_url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"

    results: dict[str, list[float]] = {"in-process": [], "HTTP, no auth": [], "HTTP + OAuth": []}
    with running(project) as lore:
        storage = MemoryStorage()

        async def run() -> float:
            t0 = time.perf_counter()
            auth = oauth_client(lore, Browser(lore), storage)
            async with (
                httpx2.AsyncClient(auth=auth, trust_env=False, timeout=30) as http,
                Client(streamable_http_client(lore.mcp, http_client=http)) as remote,
            ):
                flow = time.perf_counter() - t0
                async with (
                    httpx2.AsyncClient(trust_env=False, timeout=30) as bare,
                    Client(streamable_http_client(plain_url, http_client=bare)) as http_plain,
                    Client(build_server(project.path)) as local,
                ):
                    for client in (local, http_plain, remote):  # warm-up
                        await trips(client, 5)
                    for _ in range(4):
                        results["in-process"] += await trips(local, args.calls // 4)
                        results["HTTP, no auth"] += await trips(http_plain, args.calls // 4)
                        results["HTTP + OAuth"] += await trips(remote, args.calls // 4)
            return flow

        flow = anyio.run(run)
        token = storage.tokens.access_token if storage.tokens else ""
    check_us = anyio.run(bearer_checks, lore.base, token, args.calls * 10)
    plain_server.should_exit = True
    thread.join(timeout=30)

    floor = statistics.median(results["in-process"])
    print(f"\nOAuth flow (register, authorize, consent, token, initialize): {flow * 1000:.0f} ms\n")
    print(f"get_rules round trip, {len(results['in-process'])} calls each (ms)\n")
    print(f"{'':>16} | {'p50':>7} | {'p95':>7} | ratio to in-process (p50)")
    for name, values in results.items():
        p50 = statistics.median(values)
        print(f"{name:>16} | {p50:7.2f} | {pct(values, 0.95):7.2f} | {p50 / floor:5.2f}x")
    auth_cost = statistics.median(results["HTTP + OAuth"]) - statistics.median(results["HTTP, no auth"])
    print(f"\nwhat OAuth and the guard add per call (p50): {auth_cost:.2f} ms")
    print(
        f"the bearer check alone ({len(check_us)} checks): p50 {statistics.median(check_us):.0f} µs, "
        f"p95 {pct(check_us, 0.95):.0f} µs"
    )


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="the same server through the in-process client, interleaved in the same run"):
        main()
