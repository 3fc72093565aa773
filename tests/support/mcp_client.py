"""Drive a Lore MCP server through the real MCP client, in memory, from sync tests."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client


def call(server: Any, tool: str, arguments: dict[str, Any] | None = None) -> tuple[str, bool]:
    """(text of the reply, is_error) of one tool call over a real client connection."""

    async def run() -> tuple[str, bool]:
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments or {})
            text = "\n".join(getattr(block, "text", "") for block in result.content)
            return text, bool(result.is_error)

    return anyio.run(run)


def listing(server: Any) -> tuple[list[str], str | None]:
    """(tool names, instructions) as a client sees them."""

    async def run() -> tuple[list[str], str | None]:
        async with Client(server) as client:
            tools = await client.list_tools()
            return sorted(t.name for t in tools.tools), client.instructions

    return anyio.run(run)


def schemas(server: Any) -> dict[str, dict[str, Any]]:
    """Each tool's input schema, as a client sees it."""

    async def run() -> dict[str, dict[str, Any]]:
        async with Client(server) as client:
            tools = await client.list_tools()
            return {t.name: t.input_schema for t in tools.tools}

    return anyio.run(run)
