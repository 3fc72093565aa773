"""`lore mcp`: the MCP server agents start over stdio, its instructions and its lifecycle.

The tools live in one module per domain (`rules_tools`, `books_ask_tool`, `history_tools`,
`books_tools`), each adding its tools through a `toolbox.Toolbox`. They are thin: check sizes
(here, before any tool), coerce forgiving inputs, call the session's method, turn a LoreError
into a ToolError the model can read. Every tool says what it does to the world (annotations),
answers in plain text only (no structured copy), and a schema mismatch comes back as one
readable line. Start-up stays light (no CLI, no models, no numpy) because agents start the
server at the beginning of every session.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from lore import __version__
from lore.core.config import load_settings
from lore.core.errors import LoreError
from lore.mcp import books_ask_tool, books_tools, history_tools, rules_tools
from lore.mcp.inputs import check_size, readable
from lore.mcp.toolbox import SessionOf, Toolbox
from lore.rules.agent import AgentSession, instructions


class LoreServer(MCPServer):
    """MCPServer with Lore's two gates in front of every tool: sizes, then readable errors."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            check_size(arguments or {})
        except LoreError as exc:
            raise ToolError(f"Error executing tool {name}: {exc}") from None
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {readable(exc.__cause__)}") from None
            raise


def build_server(
    cwd: Path | str | None = None,
    session: AgentSession | None = None,
    *,
    sessions: SessionOf | None = None,
    auth: AuthSettings | None = None,
    auth_server_provider: Any = None,
    reply_built: Callable[[], None] | None = None,
) -> MCPServer:
    """A server bound to one agent session (one connection), or, with `sessions`, one server
    that many connections share (streamable HTTP), each call answered by the session of the
    connection it came from. `auth` and its provider are for serving over HTTP behind OAuth
    (`lore.web.mcp_http`); stdio needs neither.

    `reply_built`, when given, is called in the worker thread once a get_rules reply is built and
    before it counts as sent: the one point where a caller (a test) can see a reply that exists
    but has not been handed back, and cancel the call there."""
    if sessions is None:
        only = session or AgentSession(cwd)
        agent_of: SessionOf = lambda ctx: only  # noqa: E731
        home = only.cwd
    else:
        agent_of, home = sessions, Path(cwd or Path.cwd()).resolve()
    server = LoreServer(
        name="lore",
        title="Lore",
        version=__version__,
        instructions=instructions(load_settings().approval),
        log_level="WARNING",  # a refused call is the model's to read, not a log line
        auth=auth,
        auth_server_provider=auth_server_provider,
    )

    box = Toolbox(server, agent_of, home, reply_built)
    for tools in (rules_tools, books_ask_tool, history_tools, books_tools):
        tools.register(box)
    return server


class OneLine(logging.Formatter):
    """Log records as one short line: a client shows stderr to the user, and a traceback of a
    large argument repeats it several times over."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text += f" ({type(exc).__name__}: {exc})"
        text = " ".join(text.split())
        return f"lore mcp: {record.levelname.lower()}: {text[:300]}"


def _quiet_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


def run_stdio(argv: list[str]) -> None:
    """Serve one agent session on stdin/stdout (logs go to stderr, one line each)."""
    if argv:
        sys.stderr.write(f"lore mcp takes no arguments (got {' '.join(argv)})\n")
        raise SystemExit(2)
    _quiet_logging()
    session = AgentSession(Path.cwd())
    # the model and the started project's rules load beside the handshake, not in the first call
    warming = threading.Thread(target=session.warm_up, name="lore-warm-up", daemon=True)
    warming.start()
    try:
        build_server(session=session).run("stdio")
    finally:
        session.writer.flush(timeout=60)  # what the session was sent is still recorded
        warming.join(timeout=60)  # a store connection is not left mid-query at exit
