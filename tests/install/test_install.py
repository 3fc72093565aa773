"""`lore install` / `lore uninstall` against every client's real file layout in a temp HOME."""

from __future__ import annotations

import difflib
import importlib
import json
import os
import subprocess
import threading
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.core.config import load_settings
from lore.core.home import lore_home
from lore.install import changes, clients, service

runner = CliRunner()

CODEX_TOML = """# my codex settings
model = "o4-mini"
approval_policy = "on-request"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[mcp_servers.github.env]
GITHUB_TOKEN = "ghp_example"  # kept as is

[profiles.fast]
model = "gpt-4.1"
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for key in ("COPILOT_HOME", "CODEX_HOME", "XDG_CONFIG_HOME", "APPDATA"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("COLUMNS", "250")
    return home


def _files(home: Path) -> dict[str, Path]:
    return {
        "claude": home / ".claude.json",
        "copilot": home / ".copilot/mcp-config.json",
        "cursor": home / ".cursor/mcp.json",
        "vscode": home / ".config/Code/User/mcp.json",
        "codex": home / ".codex/config.toml",
        "copilot-instructions": home / ".copilot/copilot-instructions.md",
    }


def _existing_setup(home: Path) -> dict[str, str]:
    """Each client already configured with other servers and settings."""
    files = _files(home)
    texts = {
        "claude": json.dumps(
            {
                "numStartups": 12,
                "theme": "dark",
                "projects": {"/x": {"allowedTools": []}},
                "mcpServers": {"sentry": {"type": "http", "url": "https://mcp.example"}},
            },
            indent=2,
        )
        + "\n",
        "copilot": json.dumps(
            {"mcpServers": {"fs": {"type": "local", "command": "npx", "args": ["fs"], "tools": ["*"]}}},
            indent=2,
        )
        + "\n",
        "cursor": json.dumps({"mcpServers": {"db": {"command": "db-mcp", "args": []}}}, indent=4) + "\n",
        "vscode": json.dumps(
            {
                "inputs": [{"id": "key", "type": "promptString"}],
                "servers": {"web": {"type": "http", "url": "http://127.0.0.1:9"}},
            },
            indent="\t",
        )
        + "\n",
        "codex": CODEX_TOML,
        "copilot-instructions": "# My instructions\n\nAnswer briefly.\n",
    }
    for name, text in texts.items():
        files[name].parent.mkdir(parents=True, exist_ok=True)
        files[name].write_text(text)
    return texts


def _read_all(home: Path) -> dict[str, str | None]:
    return {name: (p.read_text() if p.exists() else None) for name, p in _files(home).items()}


def test_round_trip_keeps_every_other_entry_byte_for_byte(home: Path) -> None:
    originals = _existing_setup(home)
    first = service.install(["all"])
    assert not first.failed
    assert {c.client: c.action for c in first.changes if c.path.suffix != ".md"} == {
        "claude": "added",
        "copilot": "added",
        "cursor": "added",
        "vscode": "added",
        "codex": "added",
    }
    files = _files(home)
    command = clients.server_command()
    assert Path(command[0]).is_absolute()

    claude = json.loads(files["claude"].read_text())
    assert claude["mcpServers"]["lore"]["command"] == command[0]
    assert claude["mcpServers"]["lore"]["args"] == command[1:]
    assert claude["mcpServers"]["sentry"] and claude["numStartups"] == 12
    assert json.loads(files["copilot"].read_text())["mcpServers"]["lore"]["type"] == "local"
    assert set(json.loads(files["cursor"].read_text())["mcpServers"]) == {"db", "lore"}
    vscode = json.loads(files["vscode"].read_text())
    assert vscode["servers"]["lore"]["type"] == "stdio" and vscode["inputs"]
    codex = tomllib.loads(files["codex"].read_text())
    assert codex["mcp_servers"]["lore"]["command"] == command[0]
    assert codex["mcp_servers"]["github"]["env"]["GITHUB_TOKEN"] == "ghp_example"
    assert "# kept as is" in files["codex"].read_text()
    assert files["cursor"].read_text().startswith('{\n    "mcpServers"')  # indentation kept
    block = files["copilot-instructions"].read_text()
    assert block.startswith("# My instructions\n\nAnswer briefly.\n") and "get_rules" in block
    assert all(c.backup and c.backup.read_text() == originals[_key(c)] for c in first.changes)

    installed = _read_all(home)
    second = service.install(["all"])
    assert {c.action for c in second.changes} == {"unchanged"}
    assert _read_all(home) == installed

    removed = service.uninstall()
    assert {c.action for c in removed.changes} == {"removed"}
    assert _read_all(home) == originals


def _key(change: changes.FileChange) -> str:
    return "copilot-instructions" if change.path.suffix == ".md" else change.client


def test_fresh_home_files_are_created_and_removed_again(home: Path) -> None:
    report = service.install(["all"], approval="manual")
    assert all(c.action == "added" and c.backup is None for c in report.changes)
    assert load_settings().approval == "manual"
    assert "never say a saved rule is active" in _files(home)["copilot-instructions"].read_text()
    service.uninstall()
    assert all(v is None for v in _read_all(home).values())


def test_approval_switch_rewrites_the_instruction_block(home: Path) -> None:
    service.install(["copilot"], approval="manual")
    report = service.install(["copilot"], approval="auto")
    actions = {c.path.name: c.action for c in report.changes}
    assert actions == {"mcp-config.json": "unchanged", "copilot-instructions.md": "updated"}
    text = _files(home)["copilot-instructions"].read_text()
    assert text.count("lore-install:begin") == 1 and "tell the user in one line" in text
    assert load_settings().approval == "auto"


def test_dry_run_shows_a_diff_and_writes_nothing(home: Path) -> None:
    originals = _existing_setup(home)
    result = CliRunner().invoke(app, ["install", "--client", "cursor,codex", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert '+        "lore": {' in result.output and "+[mcp_servers.lore]" in result.output
    assert "would be added" in result.output
    assert _read_all(home) == originals
    assert not (lore_home() / "config.json").exists()


def test_broken_client_file_is_left_alone_and_others_still_installed(home: Path) -> None:
    files = _files(home)
    files["cursor"].parent.mkdir(parents=True)
    files["cursor"].write_text('{"mcpServers": {"db": {"command": "x"}},,}')
    files["vscode"].parent.mkdir(parents=True)
    files["vscode"].write_text('{\n  // my servers\n  "servers": {}\n}\n')
    result = CliRunner().invoke(
        app, ["install", "--client", "cursor", "--client", "vscode", "--client", "claude"]
    )
    assert result.exit_code == 1
    assert "not plain JSON" in result.output and "comments" in result.output
    assert files["cursor"].read_text() == '{"mcpServers": {"db": {"command": "x"}},,}'
    assert "lore" in json.loads(files["claude"].read_text())["mcpServers"]


def test_codex_inline_definition_is_refused(home: Path) -> None:
    path = _files(home)["codex"]
    path.parent.mkdir(parents=True)
    path.write_text('[mcp_servers]\nlore = { command = "old" }\n')
    report = service.install(["codex"])
    assert report.failed and "inline" in report.failed[0].error
    assert path.read_text() == '[mcp_servers]\nlore = { command = "old" }\n'


def test_default_installs_into_the_clients_found(home: Path) -> None:
    (home / ".cursor").mkdir()
    (home / ".codex").mkdir()
    report = service.install()
    assert {c.client for c in report.changes} == {"cursor", "codex"}
    assert report.how_chosen == "clients found on this machine"


def test_vscode_on_macos_uses_application_support(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clients.platform, "system", lambda: "Darwin")
    service.install(["vscode"])
    assert (home / "Library/Application Support/Code/User/mcp.json").exists()


def test_unknown_client_is_a_clear_error(home: Path) -> None:
    result = CliRunner().invoke(app, ["install", "--client", "emacs"])
    assert result.exit_code == 2 and "unknown client 'emacs'" in result.output


def test_registered_command_runs(home: Path) -> None:
    """The command written into the clients is a working `lore mcp`."""
    service.install(["claude"])
    entry = json.loads(_files(home)["claude"].read_text())["mcpServers"]["lore"]
    env = {**os.environ, **entry["env"]}
    help_run = subprocess.run(
        [entry["command"], *entry["args"], "--help"], capture_output=True, text=True, env=env, timeout=60
    )
    assert help_run.returncode == 0 and "MCP server" in help_run.stdout
    importlib.import_module("lore.mcp.server")  # an ImportError fails the test
    hello = (
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "install-test", "version": "0"},
                },
            }
        )
        + "\n"
    )
    proc = subprocess.Popen(
        [entry["command"], *entry["args"]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()), daemon=True)
    try:
        proc.stdin.write(hello)
        proc.stdin.flush()
        reader.start()
        reader.join(60)
    finally:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert lines and lines[0], proc.stderr.read()
    first = json.loads(lines[0])
    assert first["id"] == 1 and "serverInfo" in first["result"]


def test_approval_change_for_another_client_still_updates_the_copilot_block(home: Path) -> None:
    service.install(["copilot"], approval="auto")
    report = service.install(["claude"], approval="manual")
    assert {c.path.name: c.action for c in report.changes} == {
        ".claude.json": "added",
        "copilot-instructions.md": "updated",
    }
    assert "never say a saved rule is active" in _files(home)["copilot-instructions"].read_text()
    untouched = service.install(["claude"])  # no --approval: the block is left alone
    assert [c.path.name for c in untouched.changes] == [".claude.json"]


# -- byte-for-byte round trips, whatever the layout -------------------------------------------------
_OTHERS = {
    "claude": {
        "numStartups": 12,
        "mcpServers": {"gh": {"type": "stdio", "command": "gh-mcp", "args": ["--stdio"]}},
        "theme": "dark",
    },
    "copilot": {"mcpServers": {"fs": {"type": "local", "command": "npx", "args": ["fs"], "tools": ["*"]}}},
    "cursor": {"mcpServers": {"db": {"command": "db-mcp", "args": []}}},
    "vscode": {
        "inputs": [{"id": "key", "type": "promptString"}],
        "servers": {"web": {"type": "http", "url": "http://127.0.0.1:9"}},
    },
}
_HAND_WRITTEN = """{
  "theme": "dark",
  "KEY": {
    "gh": {"command": "gh-mcp", "args": ["--stdio"]},
    "web": {"type": "http", "url": "http://127.0.0.1:9"}
  }
}
"""
_JSON_LAYOUTS = {
    "compact": lambda data, key: json.dumps(data, separators=(",", ":")),
    "inline": lambda data, key: json.dumps(data) + "\n",
    "2 spaces": lambda data, key: json.dumps(data, indent=2) + "\n",
    "4 spaces": lambda data, key: json.dumps(data, indent=4),
    "tabs": lambda data, key: json.dumps(data, indent="\t") + "\n",
    "crlf": lambda data, key: json.dumps(data, indent=2).replace("\n", "\r\n") + "\r\n",
    "inline objects": lambda data, key: _HAND_WRITTEN.replace("KEY", key),
    "no servers yet": lambda data, key: json.dumps({"theme": "dark", "tips": [1, 2]}, indent=2) + "\n",
    "empty servers": lambda data, key: '{\n  "KEY": {},\n  "theme": "dark"\n}\n'.replace("KEY", key),
    "compact, empty servers": lambda data, key: '{"KEY":{}}'.replace("KEY", key),
}
_TOML_LAYOUTS = {
    "compact": lambda data, key: CODEX_TOML,
    "inline": lambda data, key: '[mcp_servers]\ngithub = { command = "npx", args = ["gh"] }\n',
    "2 spaces": lambda data, key: 'model = "o4-mini"',  # no newline at the end
    "4 spaces": lambda data, key: CODEX_TOML + "\n\n",
    "tabs": lambda data, key: '[mcp_servers.x]\n\tcommand = "x"\n',
    "crlf": lambda data, key: CODEX_TOML.replace("\n", "\r\n"),
    "inline objects": lambda data, key: "",
    "no servers yet": lambda data, key: '[profiles.fast]\nmodel = "gpt-4.1"\n',
    "empty servers": lambda data, key: "[mcp_servers]\n",
    "compact, empty servers": lambda data, key: "a=1\n[mcp_servers]\n[b]\nc=2",
}
_BLOCK_LAYOUTS = {
    "compact": "Answer briefly.",
    "crlf": "# Mine\r\n\r\nAnswer briefly.\r\n",
    "4 spaces": "Answer briefly.\n\n\n",
}


def _write_layout(home: Path, layout: str) -> dict[str, str]:
    files, texts = _files(home), {}
    for name in ("claude", "copilot", "cursor", "vscode"):
        key = clients.CLIENT_SPECS[name].key
        texts[name] = _JSON_LAYOUTS[layout](_OTHERS[name], key)
    texts["codex"] = _TOML_LAYOUTS[layout](None, None)
    if layout in _BLOCK_LAYOUTS:
        texts["copilot-instructions"] = _BLOCK_LAYOUTS[layout]
    for name, text in texts.items():
        files[name].parent.mkdir(parents=True, exist_ok=True)
        files[name].write_bytes(text.encode())
    return texts


def _only_insertions(before: str, after: str) -> bool:
    ops = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    return {op for op, *_ in ops} <= {"equal", "insert"}


def _read_bytes(home: Path) -> dict[str, bytes | None]:
    return {name: (p.read_bytes() if p.exists() else None) for name, p in _files(home).items()}


@pytest.mark.parametrize("layout", list(_JSON_LAYOUTS))
def test_round_trip_is_byte_for_byte_in_every_layout(home: Path, layout: str) -> None:
    originals = {name: text.encode() for name, text in _write_layout(home, layout).items()}
    report = service.install(["all"])
    assert not report.failed, [c.error for c in report.failed]
    files = _files(home)
    for name, before in originals.items():
        after = files[name].read_bytes().decode()
        assert _only_insertions(before.decode(), after), f"{name} ({layout}): more than Lore's entry changed"
        if name in _OTHERS:
            key = clients.CLIENT_SPECS[name].key
            old = json.loads(before)
            new = json.loads(after)
            assert new[key].pop("lore")["command"] == clients.server_command()[0]
            assert new == {**old, key: old.get(key) or {}}
        elif name == "codex":
            assert tomllib.loads(after)["mcp_servers"]["lore"]["args"] == ["mcp"]
    installed = _read_bytes(home)
    assert {c.action for c in service.install(["all"]).changes} == {"unchanged"}
    assert _read_bytes(home) == installed

    service.uninstall()
    after_all = _read_bytes(home)
    for name, before in originals.items():
        assert after_all[name] == before, f"{name} ({layout}) did not come back byte for byte"


def test_uninstall_after_the_user_edited_the_file_removes_only_lore(home: Path) -> None:
    path = _files(home)["cursor"]
    path.parent.mkdir(parents=True)
    path.write_text('{"mcpServers":{"db":{"command":"db-mcp"}}}')
    service.install(["cursor"])
    installed = path.read_text()
    assert installed.startswith('{"mcpServers":{"db":{"command":"db-mcp"},"lore":{"command":')
    path.write_text(installed[:-1] + ',"theme":"dark"}')  # the user adds something
    service.uninstall(["cursor"])
    assert path.read_text() == '{"mcpServers":{"db":{"command":"db-mcp"}},"theme":"dark"}'


def test_codex_inline_servers_table_is_refused_clearly(home: Path) -> None:
    path = _files(home)["codex"]
    path.parent.mkdir(parents=True)
    text = 'mcp_servers = { github = { command = "npx" } }\n'
    path.write_text(text)
    report = service.install(["codex"])
    assert report.failed and "inline table" in report.failed[0].error
    assert path.read_text() == text


def test_uninstall_removes_the_folders_install_created_and_only_those(home: Path) -> None:
    (home / ".codex").mkdir()
    (home / ".codex" / "history.jsonl").write_text("{}\n")  # the user's own folder, not empty
    (home / ".config").mkdir()  # existed before, empty: not Lore's to remove
    service.install(["all"])
    assert (home / ".cursor/mcp.json").is_file() and (home / ".config/Code/User/mcp.json").is_file()
    (home / ".copilot" / "session.log").write_text("the client's own file\n")  # written meanwhile

    result = runner.invoke(app, ["uninstall"])
    assert result.exit_code == 0, result.output
    assert not (home / ".cursor").exists()  # created by install, empty again: gone
    assert not (home / ".config/Code").exists()  # Code/User created by install: gone
    assert (home / ".config").is_dir()  # was there before
    assert (home / ".codex/history.jsonl").is_file()
    assert (home / ".copilot/session.log").is_file()  # a folder holding anything stays
    assert "removed empty folder ~/.cursor" in result.stdout
    service.uninstall()
    assert (home / ".copilot").is_dir()
