"""Running the web UI: bind 127.0.0.1, make a token for this run, print the URL, serve."""

from __future__ import annotations

import secrets
import socket
import threading
import webbrowser
from collections.abc import Callable

import uvicorn

from lore.core.errors import InvalidInput
from lore.web.app import create_app

HOST = "127.0.0.1"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def bind(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1 only; port 0 lets the system pick a free one."""
    # proto=TCP matters: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
    # without it every small answer waits ~40 ms for the client's delayed ACK
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise InvalidInput(f"cannot listen on {HOST}:{port} ({exc.strerror}); try another --port") from None
    sock.listen(64)
    return sock


def url_for(port: int, token: str) -> str:
    return f"http://{HOST}:{port}/?token={token}"


class UIServer(uvicorn.Server):
    """uvicorn's server with an event set once start-up has finished, well or badly, so whoever
    waits for it (the browser opener, a test) is woken at that moment instead of polling."""

    def __init__(self, config: uvicorn.Config):
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets=sockets)
        finally:
            self.ready.set()


def build_server(sock: socket.socket, token: str) -> UIServer:
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(token, port), log_level="warning", access_log=False, lifespan="off", server_header=False
    )
    return UIServer(config)


def _when_started(server: UIServer, action: Callable[[], object]) -> None:
    def wait() -> None:
        if server.ready.wait(timeout=10) and server.started:
            action()

    threading.Thread(target=wait, daemon=True).start()


def serve(port: int = 0, open_browser: bool = True, announce: Callable[[str], object] = print) -> None:
    """Serve until interrupted. `announce` receives the URL (with this run's token)."""
    sock = bind(port)
    token = new_token()
    url = url_for(sock.getsockname()[1], token)
    server = build_server(sock, token)
    announce(url)
    if open_browser:
        _when_started(server, lambda: webbrowser.open(url))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
