"""`lore serve` as a user starts it: a subprocess that prints its URL and answers on 127.0.0.1."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys

import httpx
import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.rules import service

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=([\w-]+)")


@pytest.mark.e2e
def test_serve_prints_a_token_url_and_guards_the_api(shop) -> None:
    rule = next(r for r in service.list_rules(shop) if r.status == "pending")
    proc = subprocess.Popen(
        [sys.executable, "-m", "lore.cli.entry", "serve", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        line = proc.stdout.readline()
        found = URL.search(line)
        assert found, f"no URL in {line!r}"
        port, token = int(found[1]), found[2]
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, trust_env=False, timeout=30) as http:
            assert http.get("/api/projects").status_code == 401
            page = http.get(found[0])
            assert page.status_code == 200 and "app.js" in page.text
            answer = http.post(f"/api/projects/shop/rules/{rule.id}/approve", headers={"X-Lore-Token": token})
            assert answer.status_code == 200
        assert service.get_rule(rule.id).status == "active"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    assert proc.returncode == 0, proc.stderr.read()
    with pytest.raises(OSError):  # nothing listens any more
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_busy_port_is_a_one_line_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--no-open", "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_serve_help_names_the_options() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    assert "--port" in result.output and "--no-open" in result.output


def test_listening_socket_is_loopback_tcp() -> None:
    from lore.web.server import bind

    with bind(0) as sock:
        host, _ = sock.getsockname()
        # asyncio turns on TCP_NODELAY for accepted connections only when proto says TCP;
        # without it, small answers wait for the client's delayed ACK
        assert (host, sock.proto) == ("127.0.0.1", socket.IPPROTO_TCP)
