"""A repository whose `.git/config` names programs: every command Lore has that runs git in it
works, and none of those programs ever runs (issue 10, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.mcp.server import build_server
from support.hostile_repo import HostileRepo, make_hostile_repo
from support.mcp_client import call

runner = CliRunner()


@pytest.fixture
def hostile(tmp_path: Path) -> HostileRepo:
    return make_hostile_repo(tmp_path / "hostile")


def lore(*args: str):
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_cli_commands_run_no_program_of_the_repository(hostile: HostileRepo) -> None:
    root = str(hostile.root)
    added = json.loads(lore("projects", "add", root, "--json").stdout)
    assert "src/app" in added["sections"]
    assert "1 new pending rule(s)" in lore("memorize", root).stdout  # AGENTS.md was found
    assert "new pending rule(s)" in lore("discover", root).stdout
    assert "rule(s) checked" in lore("review", "--name", added["name"], "lint").stdout
    ingest = runner.invoke(app, ["history", "ingest", root], catch_exceptions=False)
    assert ingest.exit_code == 0, ingest.output
    assert hostile.fired() == ""


def test_mcp_auto_registration_runs_no_program_of_the_repository(hostile: HostileRepo) -> None:
    server = build_server(hostile.root)
    text, error = call(server, "get_rules", {"paths": ["src/app/main.py"], "task": "fix main"})
    assert not error, text
    text, error = call(server, "discover_conventions", {})
    assert not error, text
    assert hostile.fired() == ""
