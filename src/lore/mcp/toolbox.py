"""What every tool module of `lore mcp` registers its tools through: one `Toolbox` per server.

Each tool module (`rules_tools`, `books_ask_tool`, `history_tools`, `books_tools`) exposes
`register(box)` and adds its tools with `@box.tool(annotations)`; `server.build_server` makes the
box and calls them in turn. The box carries what tools need from the server they join: the agent
session a call belongs to, the folder the server was started in, and the test hook of get_rules.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from lore.core.errors import LoreError
from lore.core.terminal import safe_text
from lore.rules.agent import AgentSession

# Which agent session a tool call belongs to, from the call's context (None outside a request).
SessionOf = Callable[[Context | None], AgentSession]


def hints(*, read_only: bool, destructive: bool = False, idempotent: bool, open_world: bool = False):
    """What a tool does to the world, as MCP annotations."""
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


# get_rules and the other reading tools only keep session bookkeeping (what was sent) and may
# register the repository as a project: they never change rules or files.
READING = hints(read_only=True, idempotent=False)
SEARCHING = hints(read_only=True, idempotent=True)
SAVING = hints(read_only=False, idempotent=True)  # saving the same rule again: "already known"
TAGGING = hints(read_only=False, destructive=True, idempotent=True)  # replaces earlier tags
REVIEWS = hints(read_only=True, idempotent=True, open_world=True)  # reads GitHub


def call(fn: Callable[..., str], *args: Any, **kwargs: Any) -> str:
    """Every tool's reply and refusal: stored text reaches agent terminals, so no raw ESC; a
    LoreError becomes the one line the agent reads."""
    try:
        return safe_text(fn(*args, **kwargs))
    except LoreError as exc:
        raise ToolError(safe_text(str(exc))) from None


@dataclass
class Toolbox:
    """A server under construction and what its tools need from it.

    `agent_of` gives the agent session of a call (one for stdio, one per connection over HTTP);
    `home` is the folder the server was started in; `reply_built`, when given, is called in the
    worker thread once a get_rules reply is built and before it counts as sent (see
    `server.build_server`)."""

    server: MCPServer
    agent_of: SessionOf
    home: Path
    reply_built: Callable[[], None] | None = None

    def tool(self, annotations: ToolAnnotations) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register with a clean description (no docstring indentation) and plain-text output."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.server.add_tool(
                fn,
                description=inspect.cleandoc(fn.__doc__ or ""),
                annotations=annotations,
                structured_output=False,
            )
            return fn

        return register
