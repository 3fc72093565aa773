"""The MCP replies say which evidence decided trust (through the real in-memory client)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import make_repo
from lore.mcp.server import build_server
from support.mcp_client import call


def test_a_fresh_clone_says_why_it_is_not_yours(tmp_path: Path) -> None:
    source = make_repo(tmp_path / "upstream", {"a.py": "x"})  # every commit by the user's email
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True, capture_output=True)
    server = build_server(clone)
    text, error = call(server, "get_rules", {"paths": ["a.py"]})
    assert not error
    assert "it is not your repository (cloned, and no commit here is yours)" in text
    reply, _ = call(
        server, "propose_rules", {"rules": [{"text": "Prefer small functions"}], "paths": ["a.py"]}
    )
    assert "not your repository (cloned, and no commit here is yours)" in reply


def test_your_own_repository_says_which_commits_made_it_yours(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mine", {"a.py": "x"})
    text, error = call(build_server(repo), "get_rules", {"paths": ["a.py"]})
    assert not error
    assert "was just registered. Set it up" in text
    assert "It is your repository (1 commit made in this clone by test@example.com)." in text
