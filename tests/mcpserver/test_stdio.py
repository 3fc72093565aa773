"""`lore mcp` as a real subprocess over stdio: initialize, get_rules, propose_rules."""

import os
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from conftest import make_repo
from support.mcp_client import lore_command

pytestmark = pytest.mark.e2e


def test_stdio_session(tmp_path: Path, lore_home: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"src/api/orders.py": "x"})
    command = lore_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], cwd=str(repo), env={**os.environ, "LORE_HOME": str(lore_home)}
    )

    async def run() -> None:
        async with Client(params, mode="legacy") as client:
            assert "get_rules" in (client.instructions or "")
            first = await client.call_tool("get_rules", {"paths": ["src/api/orders.py"], "task": "x"})
            assert "project `shop`" in first.content[0].text
            saved = await client.call_tool(
                "propose_rules",
                {"rules": [{"text": "Validate bodies", "scope": "src/api"}], "paths": ["src/api/orders.py"]},
            )
            assert "- activated" in saved.content[0].text
            refused = await client.call_tool(
                "propose_rules", {"rules": [{"text": "Other"}], "project": "shop"}
            )
            assert refused.is_error and "never take a project name" in refused.content[0].text
            again = await client.call_tool("get_rules", {"paths": ["src/api/orders.py"]})
            assert "- [section] Validate bodies" in again.content[0].text

    anyio.run(run)
