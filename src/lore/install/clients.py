"""The agent clients `lore install` knows: where each keeps its MCP servers, in what shape, and the
command Lore registers with them.

- Claude Code: `~/.claude.json`, `mcpServers` (user scope)
- Copilot CLI: `~/.copilot/mcp-config.json`, `mcpServers` (`$COPILOT_HOME` moves it), plus a
  short Lore block in `~/.copilot/copilot-instructions.md`
- Cursor: `~/.cursor/mcp.json`, `mcpServers`
- VS Code: the user `mcp.json`, `servers`
- Codex: `~/.codex/config.toml`, table `[mcp_servers.lore]` (`$CODEX_HOME` moves it)
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.core.errors import InvalidInput

SERVER_NAME = "lore"
CLIENTS = ("claude", "copilot", "cursor", "vscode", "codex")
DEFAULT_CLIENTS = ("claude", "copilot")


# -- what to register -------------------------------------------------------------------------------
def server_command() -> list[str]:
    """The absolute command that starts Lore's MCP server."""
    scripts = Path(sys.executable).parent
    for name in ("lore", "lore.exe"):
        candidate = scripts / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return [str(candidate.absolute()), "mcp"]
    found = shutil.which("lore")
    if found:
        return [str(Path(found).absolute()), "mcp"]
    return [str(Path(sys.executable).absolute()), "-m", "lore.cli.entry", "mcp"]


def server_env() -> dict[str, str]:
    """Environment the server needs: the Lore home this install used, when it is not the default."""
    home = os.environ.get("LORE_HOME")
    return {"LORE_HOME": str(Path(home).expanduser().absolute())} if home else {}


# -- the clients --------------------------------------------------------------------------------------
def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _copilot_dir() -> Path:
    return Path(os.environ["COPILOT_HOME"]) if os.environ.get("COPILOT_HOME") else _home() / ".copilot"


def _codex_dir() -> Path:
    return Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else _home() / ".codex"


def _vscode_user_dir() -> Path:
    system = platform.system()
    if system == "Darwin":
        return _home() / "Library/Application Support/Code/User"
    if system == "Windows":
        return Path(os.environ.get("APPDATA") or _home() / "AppData/Roaming") / "Code/User"
    config = os.environ.get("XDG_CONFIG_HOME") or str(_home() / ".config")
    return Path(config) / "Code/User"


@dataclass(frozen=True)
class Client:
    name: str
    label: str
    config: Callable[[], Path]
    detect: Callable[[], bool]
    key: str = "mcpServers"  # the JSON object holding servers; "" for TOML
    entry: Callable[[list[str], dict[str, str]], dict[str, Any]] = lambda cmd, env: {}

    @property
    def toml(self) -> bool:
        return self.key == ""


def _stdio(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    return {"type": "stdio", "command": cmd[0], "args": cmd[1:], "env": env}


def _copilot(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    return {"type": "local", "command": cmd[0], "args": cmd[1:], "env": env, "tools": ["*"]}


def _plain(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    return {"command": cmd[0], "args": cmd[1:], "env": env}


CLIENT_SPECS: dict[str, Client] = {
    "claude": Client(
        "claude",
        "Claude Code",
        lambda: _home() / ".claude.json",
        lambda: (_home() / ".claude.json").exists() or (_home() / ".claude").is_dir(),
        entry=_stdio,
    ),
    "copilot": Client(
        "copilot",
        "Copilot CLI",
        lambda: _copilot_dir() / "mcp-config.json",
        lambda: _copilot_dir().is_dir(),
        entry=_copilot,
    ),
    "cursor": Client(
        "cursor",
        "Cursor",
        lambda: _home() / ".cursor" / "mcp.json",
        lambda: (_home() / ".cursor").is_dir(),
        entry=_plain,
    ),
    "vscode": Client(
        "vscode",
        "VS Code",
        lambda: _vscode_user_dir() / "mcp.json",
        lambda: _vscode_user_dir().is_dir(),
        key="servers",
        entry=_stdio,
    ),
    "codex": Client(
        "codex",
        "Codex",
        lambda: _codex_dir() / "config.toml",
        lambda: _codex_dir().is_dir(),
        key="",
        entry=_plain,
    ),
}


def copilot_instructions_path() -> Path:
    return _copilot_dir() / "copilot-instructions.md"


def choose_clients(names: list[str] | None) -> tuple[list[Client], str]:
    """The clients to act on and a line saying how they were chosen."""
    wanted = [n.strip().lower() for item in (names or []) for n in item.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in (*CLIENTS, "all")]
    if unknown:
        raise InvalidInput(f"unknown client {unknown[0]!r}; one of {', '.join(CLIENTS)} or all")
    if "all" in wanted:
        return [CLIENT_SPECS[n] for n in CLIENTS], "all clients"
    if wanted:
        return [CLIENT_SPECS[n] for n in CLIENTS if n in wanted], "chosen clients"
    found = [CLIENT_SPECS[n] for n in CLIENTS if CLIENT_SPECS[n].detect()]
    if found:
        return found, "clients found on this machine"
    return [CLIENT_SPECS[n] for n in DEFAULT_CLIENTS], "no client found; Claude Code and Copilot CLI"
