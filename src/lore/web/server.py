"""Running the web UI: bind 127.0.0.1, make a token for this run, print the URL, serve.

Another address is possible for the remote MCP connector, never by accident: a `--host` that is
not loopback needs TLS (a certificate and key, handed to uvicorn) or an explicit
`--insecure-remote` (for a TLS proxy in front), and `check_host` says so in one line.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import threading
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from lore.core.errors import InvalidInput
from lore.web.app import create_app

if TYPE_CHECKING:
    from lore.web.mcp_http import Remote

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Tls:
    """A certificate and its private key (PEM files), for uvicorn."""

    cert: Path
    key: Path


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, tls: Tls | None, insecure: bool) -> None:
    """Refuse a reachable address without TLS or the explicit flag; refuse TLS files that are not there."""
    if tls is not None:
        for what, path in (("--tls-cert", tls.cert), ("--tls-key", tls.key)):
            if not path.is_file():
                raise InvalidInput(f"{what} {path} is not a file")
    if not is_loopback(host) and tls is None and not insecure:
        raise InvalidInput(
            f"--host {host} is reachable from other machines: give --tls-cert and --tls-key, "
            "or --insecure-remote to serve it without TLS (behind a TLS proxy)"
        )


def base_url(host: str, port: int, tls: Tls | None, public_url: str | None = None) -> str:
    """The address clients use: `--public-url`, else this host and port."""
    if public_url:
        if not public_url.startswith(("https://", "http://")) or "?" in public_url or "#" in public_url:
            raise InvalidInput(f"--public-url {public_url} must be an http(s) URL without query or fragment")
        return public_url.rstrip("/")
    if host in ("0.0.0.0", "::"):
        raise InvalidInput(
            f"--host {host} listens on every address: give --public-url, the address clients reach"
        )
    name = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{name}:{port}"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def bind(port: int = 0, host: str = HOST) -> socket.socket:
    """A listening socket on 127.0.0.1 (or `host`); port 0 lets the system pick a free one."""
    # proto=TCP matters: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
    # without it every small answer waits ~40 ms for the client's delayed ACK
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InvalidInput(f"cannot listen on {host}:{port} ({exc.strerror}); try another --port") from None
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


def build_server(
    sock: socket.socket,
    token: str,
    remote: Remote | None = None,
    tls: Tls | None = None,
    public: str | None = None,
) -> UIServer:
    """The server for one run; with `remote` it also serves `/mcp` (whose session manager
    needs the app's lifespan, so lifespan is on only then)."""
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(token, port, remote, public),
        log_level="warning",
        access_log=False,
        lifespan="on" if remote else "off",
        server_header=False,
        ssl_certfile=str(tls.cert) if tls else None,
        ssl_keyfile=str(tls.key) if tls else None,
    )
    return UIServer(config)


def _when_started(server: UIServer, action: Callable[[], object]) -> None:
    def wait() -> None:
        if server.ready.wait(timeout=10) and server.started:
            action()

    threading.Thread(target=wait, daemon=True).start()


def serve(
    port: int = 0,
    open_browser: bool = True,
    announce: Callable[[str], object] = print,
    *,
    host: str = HOST,
    remote: Callable[[str], Remote] | None = None,
    tls: Tls | None = None,
    insecure: bool = False,
    public_url: str | None = None,
) -> None:
    """Serve until interrupted. `announce` receives the URL (with this run's token); `remote`,
    given the base URL, describes the MCP connector to serve as well."""
    check_host(host, tls, insecure)
    sock = bind(port, host)
    try:
        base = base_url(host, sock.getsockname()[1], tls, public_url)
        token = new_token()
        url = f"{base}/?token={token}"
        server = build_server(sock, token, remote(base) if remote else None, tls, base)
    except BaseException:
        sock.close()
        raise
    announce(url)
    if open_browser:
        _when_started(server, lambda: webbrowser.open(url))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
