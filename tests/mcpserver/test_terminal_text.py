"""MCP replies reach agents' terminals: stored text with control sequences arrives clean."""

from pathlib import Path

from conftest import make_repo
from lore.mcp.server import build_server
from lore.rules import service
from support.mcp_client import call

TITLE = "\x1b]0;pwned\x07"


def test_replies_carry_no_escape_sequences(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / f"shop{TITLE}", {"src/api/orders.py": "x = 1\n"})
    server = build_server(repo)
    text, is_error = call(server, "get_rules", {"paths": [str(repo / "src/api/orders.py")]})
    assert not is_error
    (project,) = service.list_projects()
    assert TITLE in project.name  # the store keeps the folder's name as it is
    assert "`shop`" in text and "\x1b" not in text and "\x07" not in text and "pwned" not in text
