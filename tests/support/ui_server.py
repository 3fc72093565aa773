"""`lore serve` (the web UI, no MCP) in a thread of this process, for the web tests and benches.

In this process, not a child, so it reads the same `$LORE_HOME` as the caller and every change
it makes can be checked through the services directly.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from lore.web.server import bind, build_server, new_token


@contextmanager
def running_ui() -> Iterator[tuple[int, str]]:
    """(port, token) of the server as it runs for a user: bound to 127.0.0.1, a fresh token, Host
    checked; stopped and its socket closed on the way out."""
    sock = bind(0)
    token = new_token()
    server = build_server(sock, token)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    if not server.ready.wait(timeout=30) or not server.started:
        raise RuntimeError("the UI server did not start")
    try:
        yield sock.getsockname()[1], token
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
