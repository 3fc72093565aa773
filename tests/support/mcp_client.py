"""Drive a Lore MCP server through the real MCP client, in memory, from sync tests."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client


def lore_command() -> list[str]:
    """How to start `lore mcp` from this virtual environment, as an agent client would."""
    exe = shutil.which("lore", path=str(Path(sys.executable).parent))
    return [exe, "mcp"] if exe else [sys.executable, "-m", "lore.cli.entry", "mcp"]


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
