"""`lore install` / `lore uninstall`: register `lore mcp` with each agent client, in its own file.

Each client keeps MCP servers in its own place and shape:

- Claude Code: `~/.claude.json`, `mcpServers` (user scope)
- Copilot CLI: `~/.copilot/mcp-config.json`, `mcpServers` (`$COPILOT_HOME` moves it), plus a
  short Lore block in `~/.copilot/copilot-instructions.md`
- Cursor: `~/.cursor/mcp.json`, `mcpServers`
- VS Code: the user `mcp.json`, `servers`
- Codex: `~/.codex/config.toml`, table `[mcp_servers.lore]` (`$CODEX_HOME` moves it)

Only Lore's own entry is touched. A file is rewritten only when its content changes (so a second
run changes nothing), after a timestamped backup under `$LORE_HOME/backups/`. JSON and TOML are
both edited as text, never re-serialised: Lore's entry is laid out like its neighbours, every
other byte stays, and the result is parsed back and compared before anything is written.
Uninstall writes the pre-install bytes back when the file, without Lore's entry, still says the
same as them, so the round trip is byte for byte.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import platform
import re
import shutil
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.core.config import load_settings, update_settings
from lore.core.errors import InvalidInput
from lore.core.files import write_atomic
from lore.core.home import lore_home

SERVER_NAME = "lore"
CLIENTS = ("claude", "copilot", "cursor", "vscode", "codex")
DEFAULT_CLIENTS = ("claude", "copilot")
BLOCK_BEGIN = "<!-- lore-install:begin (written by `lore install`; `lore uninstall` removes it) -->"
BLOCK_END = "<!-- lore-install:end -->"
_BLOCK = re.compile(r"\n*<!-- lore-install:begin\b.*?-->.*?<!-- lore-install:end -->\n?", re.S)
STATE_FILE = "install.json"


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


# -- changes ----------------------------------------------------------------------------------------
@dataclass
class FileChange:
    """One file's planned or done change."""

    client: str
    path: Path
    before: str | None
    after: str | None  # None: delete the file
    action: str  # added, updated, removed, unchanged, absent, error
    error: str = ""
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        return self.action in ("added", "updated", "removed") and self.before != self.after

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, f"{self.path} (before)", f"{self.path} (after)", n=2)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "path": str(self.path),
            "action": self.action,
            "error": self.error,
            "backup": str(self.backup) if self.backup else None,
        }


@dataclass
class InstallReport:
    how_chosen: str
    command: list[str]
    approval: str
    changes: list[FileChange] = field(default_factory=list)
    dry_run: bool = False
    folders_removed: list[Path] = field(default_factory=list)

    @property
    def failed(self) -> list[FileChange]:
        return [c for c in self.changes if c.action == "error"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "clients": self.how_chosen,
            "command": self.command,
            "approval": self.approval,
            "dry_run": self.dry_run,
            "changes": [c.to_dict() for c in self.changes],
            "folders_removed": [str(p) for p in self.folders_removed],
        }


def install(
    clients: list[str] | None = None, approval: str | None = None, dry_run: bool = False
) -> InstallReport:
    """Register `lore mcp` with the clients and write the approval setting."""
    if approval is not None and approval not in ("auto", "manual"):
        raise InvalidInput(f"--approval must be auto or manual, not {approval!r}")
    chosen, how = choose_clients(clients)
    effective = approval or load_settings().approval
    command, env = server_command(), server_env()
    report = InstallReport(how, command, effective, dry_run=dry_run)
    for client in chosen:
        report.changes.append(_plan(client, functools.partial(_with_entry, client, command=command, env=env)))
        if client.name == "copilot":
            report.changes.append(_plan_block(copilot_instructions_path(), instruction_block(effective)))
    block_file = copilot_instructions_path()
    if (
        approval is not None
        and "copilot" not in {c.name for c in chosen}
        and BLOCK_END in (_read(block_file) or "")
    ):
        # the block states the approval setting, so it follows a change made for other clients too
        report.changes.append(_plan_block(block_file, instruction_block(effective)))
    if not dry_run:
        _apply(report.changes)
        if approval is not None or "approval" not in load_settings().raw:
            update_settings({"approval": effective})
    return report


def uninstall(clients: list[str] | None = None, dry_run: bool = False) -> InstallReport:
    """Remove Lore's entry (and the Copilot block) from the clients; nothing else changes."""
    chosen = [CLIENT_SPECS[n] for n in CLIENTS] if not clients else choose_clients(clients)[0]
    report = InstallReport(
        "all clients" if not clients else "chosen clients",
        server_command(),
        load_settings().approval,
        dry_run=dry_run,
    )
    for client in chosen:
        report.changes.append(_plan(client, functools.partial(_without_entry, client), removing=True))
        if client.name == "copilot":
            report.changes.append(_plan_block(copilot_instructions_path(), None))
    if not dry_run:
        _apply(report.changes)
        report.folders_removed = _remove_empty_folders()
    return report


def _plan(client: Client, edit: Callable[[str], str], removing: bool = False) -> FileChange:
    path = client.config()
    before = None
    try:
        before = _read(path)
        if removing and before is None:
            return FileChange(client.name, path, None, None, "absent")
        after: str | None = edit(before or "")
    except InvalidInput as exc:
        return FileChange(client.name, path, before, before, "error", str(exc))
    if removing and after is not None and _created_by_lore(path) and _is_empty(client, after):
        after = None  # Lore created this file; leave nothing behind
    elif removing and after is not None and after != before:
        after = _pristine(path, after, lambda text: _without_lore(client, text))
    if after == before:
        return FileChange(client.name, path, before, after, "absent" if removing else "unchanged")
    action = (
        "removed"
        if removing
        else ("added" if before is None or SERVER_NAME not in _servers(client, before or "") else "updated")
    )
    return FileChange(client.name, path, before, after, action)


def _plan_block(path: Path, block: str | None) -> FileChange:
    before = _read(path)
    current = before or ""
    stripped = _BLOCK.sub("\n", current).rstrip("\n")
    stripped = stripped + "\n" if stripped else ""
    if block is None:
        after: str | None = stripped
        if not stripped.strip() and _created_by_lore(path):
            after = None
        elif before is not None and BLOCK_END in before:
            after = _pristine(path, stripped, lambda text: _BLOCK.sub("\n", text).strip())
    else:
        after = (stripped + "\n" if stripped else "") + block
    if before is None and block is None:
        return FileChange("copilot", path, None, None, "absent")
    if after == before:
        return FileChange("copilot", path, before, after, "unchanged" if block else "absent")
    action = "removed" if block is None else ("added" if BLOCK_END not in current else "updated")
    return FileChange("copilot", path, before, after, action)


def _apply(changes: list[FileChange]) -> None:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    state = _state()
    for change in changes:
        if not change.changed:
            continue
        pristine = state.setdefault("pristine", {})
        if change.action == "removed":
            pristine.pop(str(change.path), None)
        if change.before is not None:
            change.backup = _backup(change, stamp)
            if change.action == "added":  # the file as it was before Lore wrote into it
                pristine[str(change.path)] = str(change.backup)
        elif change.after is not None:
            state.setdefault("created", [])
            if str(change.path) not in state["created"]:
                state["created"].append(str(change.path))
            folders = state.setdefault("created_folders", [])
            folders += [str(f) for f in _missing_folders(change.path) if str(f) not in folders]
        if change.after is None:
            change.path.unlink(missing_ok=True)
            if str(change.path) in state.get("created", []):
                state["created"].remove(str(change.path))
            continue
        write_atomic(change.path, change.after)
    _save_state(state)


def _missing_folders(path: Path) -> list[Path]:
    """The folders above `path` that do not exist yet: writing it creates them."""
    missing = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_empty_folders() -> list[Path]:
    """Remove the folders `lore install` created (`~/.cursor/`, ...) that are empty now, deepest
    first. A folder that holds anything, Lore's or not, stays (and stays on the list)."""
    state = _state()
    recorded = [Path(f) for f in state.get("created_folders", [])]
    if not recorded:
        return []
    removed, kept = [], []
    for folder in sorted(recorded, key=lambda f: len(f.parts), reverse=True):
        try:
            folder.rmdir()  # only ever succeeds on an empty folder
            removed.append(folder)
        except FileNotFoundError:
            pass
        except OSError:
            kept.append(str(folder))
    state["created_folders"] = kept
    _save_state(state)
    return removed


def _backup(change: FileChange, stamp: str) -> Path:
    folder = lore_home() / "backups" / "install" / stamp
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{change.client}-{change.path.name}"
    n = 2
    while target.exists():
        target = folder / f"{change.client}-{n}-{change.path.name}"
        n += 1
    target.write_bytes((change.before or "").encode("utf-8"))
    return target


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")  # as bytes: line endings stay as they are
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None


def _state() -> dict[str, Any]:
    path = lore_home() / STATE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_state(state: dict[str, Any]) -> None:
    path = lore_home() / STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")


def _created_by_lore(path: Path) -> bool:
    return str(path) in _state().get("created", [])


def _pristine(path: Path, after: str, without_lore: Callable[[str], Any]) -> str:
    """The file's bytes from before `lore install` when `after` (Lore's part removed) says the same
    thing, so that a round trip gives back the very same bytes; otherwise `after` itself."""
    backup = _state().get("pristine", {}).get(str(path))
    try:
        original = Path(backup).read_bytes().decode("utf-8") if backup else None
    except (OSError, UnicodeDecodeError):
        return after
    if original is None or original == after:
        return after
    same = without_lore(original) == without_lore(after)
    return original if same and without_lore(after) is not None else after


def _without_lore(client: Client, text: str) -> Any:
    """What a client file says apart from Lore's entry (None when it cannot be read)."""
    try:
        data = tomllib.loads(text) if client.toml else (json.loads(text) if text.strip() else {})
    except (tomllib.TOMLDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    key = "mcp_servers" if client.toml else client.key
    servers = data.get(key)
    if isinstance(servers, dict):
        servers.pop(SERVER_NAME, None)
        if not servers:
            data.pop(key)
    return data


# -- JSON and TOML edits ------------------------------------------------------------------------------
def _load_json(client: Client, text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (it has comments or trailing commas; Lore would lose them)" if _is_jsonc(text) else ""
        raise InvalidInput(
            f"{client.config()} is not plain JSON{hint}: line {exc.lineno}: {exc.msg}; "
            "nothing was changed — add the `lore` server by hand"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{client.config()} does not hold a JSON object; nothing was changed")
    servers = data.get(client.key)
    if servers is not None and not isinstance(servers, dict):
        raise InvalidInput(f"{client.config()}: `{client.key}` is not an object; nothing was changed")
    return data


def _is_jsonc(text: str) -> bool:
    return bool(re.search(r"^\s*//|/\*|,\s*[}\]]", text, re.M))


def _indent(text: str) -> int | str:
    match = re.search(r"^([ \t]+)\S", text, re.M)
    if not match:
        return 2
    lead = match.group(1)
    return "\t" if "\t" in lead else len(lead)


def _servers(client: Client, text: str) -> dict[str, Any]:
    if client.toml:
        try:
            return tomllib.loads(text).get("mcp_servers", {}) if text.strip() else {}
        except tomllib.TOMLDecodeError:
            return {}
    try:
        return (json.loads(text) or {}).get(client.key) or {}
    except (json.JSONDecodeError, AttributeError):
        return {}


def _is_empty(client: Client, text: str) -> bool:
    if client.toml:
        return not text.strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    return data in ({}, {client.key: {}})


def _with_entry(client: Client, text: str, *, command: list[str], env: dict[str, str]) -> str:
    entry = client.entry(command, env)
    if client.toml:
        return _toml_with_entry(client, text, entry)
    data = _load_json(client, text)
    servers = data.get(client.key) or {}
    if servers.get(SERVER_NAME) == entry:
        return text
    if not text.strip():
        return json.dumps({client.key: {SERVER_NAME: entry}}, indent=2, ensure_ascii=False) + "\n"
    result = _json_set_server(text, client.key, entry)
    _check_json(client, result, {**data, client.key: {**servers, SERVER_NAME: entry}})
    return result


def _without_entry(client: Client, text: str) -> str:
    if client.toml:
        return _toml_without_entry(client, text)
    data = _load_json(client, text)
    servers = data.get(client.key)
    if not servers or SERVER_NAME not in servers:
        return text
    result = _json_drop_server(text, client.key)
    _check_json(client, result, {**data, client.key: {k: v for k, v in servers.items() if k != SERVER_NAME}})
    return result


def _check_json(client: Client, text: str, expected: dict[str, Any]) -> None:
    """The text edit changed Lore's entry and nothing else, or nothing is written."""
    try:
        ok = json.loads(text) == expected
    except json.JSONDecodeError:
        ok = False
    if not ok:
        raise InvalidInput(
            f"{client.config()}: could not edit the `{SERVER_NAME}` entry without touching "
            "the rest; nothing was changed — edit it by hand"
        )


# -- JSON edited as text: every byte outside Lore's entry stays as the user (or client) wrote it --
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class _Member:
    """One `"key": value` of a JSON object, by position in the text."""

    key: str
    start: int  # the key's opening quote
    colon: str  # what separates the key from its value, e.g. ": " or ":"
    value: int  # the value's first character
    end: int  # just after the value


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _members(text: str, open_at: int) -> tuple[list[_Member], int]:
    """The members of the (valid) object whose `{` is at `open_at`, and the index of its `}`."""
    members: list[_Member] = []
    i = _skip_space(text, open_at + 1)
    while text[i] != "}":
        key, after = _DECODER.raw_decode(text, i)
        value = _skip_space(text, _skip_space(text, after) + 1)
        _, end = _DECODER.raw_decode(text, value)
        members.append(_Member(key, i, text[after:value], value, end))
        i = _skip_space(text, end)
        if text[i] == ",":
            i = _skip_space(text, i + 1)
    return members, i


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    return re.match(r"[ \t]*", text[start:pos]).group(0)  # type: ignore[union-attr]


@dataclass(frozen=True)
class _JsonStyle:
    """How the file writes JSON, so that Lore's entry looks like its neighbours."""

    unit: str  # one level of indentation
    colon: str
    comma: str  # between members on one line
    newline: str
    rows: bool  # the top-level object puts its members on lines of their own

    @classmethod
    def of(cls, text: str, top: int) -> _JsonStyle:
        members, close = _members(text, top)
        colon = members[0].colon if members and "\n" not in members[0].colon else ": "
        unit = _indent(text)
        rows = "\n" in text[top : members[0].start if members else close] or not members
        return cls(
            "\t" if unit == "\t" else " " * int(unit),
            colon,
            "," if colon == ":" else ", ",
            "\r\n" if "\r\n" in text else "\n",
            rows,
        )

    def render(self, value: Any, multiline: bool, indent: str) -> str:
        if not multiline:
            return json.dumps(value, separators=(self.comma, self.colon), ensure_ascii=False)
        dumped = json.dumps(value, indent=self.unit, separators=(",", self.colon), ensure_ascii=False)
        return dumped.replace("\n", self.newline + indent)


def _json_set_server(text: str, key: str, entry: dict[str, Any]) -> str:
    """`text` with Lore's entry written into the `key` object, nothing else moved."""
    top = _skip_space(text, 0)
    style = _JsonStyle.of(text, top)
    members, _ = _members(text, top)
    holder = next((m for m in reversed(members) if m.key == key), None)
    if holder is None:
        return _json_insert(text, top, key, {SERVER_NAME: entry}, style)
    if text[holder.value] != "{":  # `"mcpServers": null`
        multiline = style.rows
        rendered = style.render({SERVER_NAME: entry}, multiline, _line_indent(text, holder.start))
        return text[: holder.value] + rendered + text[holder.end :]
    servers, _ = _members(text, holder.value)
    ours = next((m for m in reversed(servers) if m.key == SERVER_NAME), None)
    if ours is None:
        return _json_insert(text, holder.value, SERVER_NAME, entry, style)
    multiline = "\n" in text[ours.value : ours.end]
    rendered = style.render(entry, multiline, _line_indent(text, ours.start))
    return text[: ours.value] + rendered + text[ours.end :]


def _json_insert(text: str, open_at: int, key: str, value: Any, style: _JsonStyle) -> str:
    """Add a member at the end of the object at `open_at`, laid out like the members before it."""
    members, close = _members(text, open_at)
    name = json.dumps(key, ensure_ascii=False)
    if not members:
        if not (style.rows or "\n" in text[open_at:close]):
            return text[: open_at + 1] + name + style.colon + style.render(value, False, "") + text[close:]
        outer = _line_indent(text, open_at)
        inner = outer + style.unit
        body = style.newline + inner + name + style.colon + style.render(value, True, inner)
        return text[: open_at + 1] + body + style.newline + outer + text[close:]
    last = members[-1]
    rows = "\n" in text[open_at : members[0].start]
    indent = _line_indent(text, last.start) if rows else ""
    sibling = text[last.value : last.end]
    multiline = "\n" in sibling if sibling[:1] in ("{", "[") and len(sibling) > 2 else rows
    gap = style.newline + indent if rows else style.comma[1:]
    member = "," + gap + name + style.colon + style.render(value, multiline, indent)
    return text[: last.end] + member + text[last.end :]


def _json_drop_server(text: str, key: str) -> str:
    """`text` without Lore's entry in the `key` object: the exact reverse of `_json_insert`."""
    top = _skip_space(text, 0)
    holder = next(m for m in reversed(_members(text, top)[0]) if m.key == key)
    servers, close = _members(text, holder.value)
    while any(m.key == SERVER_NAME for m in servers):
        i = max(n for n, m in enumerate(servers) if m.key == SERVER_NAME)
        if len(servers) == 1:
            text = text[: holder.value + 1] + text[close:]
        elif i > 0:
            text = text[: servers[i - 1].end] + text[servers[i].end :]
        else:
            text = text[: servers[0].start] + text[servers[1].start :]
        servers, close = _members(text, holder.value)
    return text


_TOML_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def _toml_key_path(header: str) -> list[str]:
    """`a."b.c".d` as ["a", "b.c", "d"]."""
    parts, buf, quote = [], "", ""
    for ch in header:
        if quote:
            if ch == quote:
                quote = ""
            else:
                buf += ch
        elif ch in "\"'":
            quote = ch
        elif ch == ".":
            parts.append(buf.strip())
            buf = ""
        else:
            buf += ch
    parts.append(buf.strip())
    return parts


def _toml_block(lines: list[str]) -> tuple[int, int] | None:
    """Line range [start, end) of `[mcp_servers.lore]` and its sub-tables."""
    start = None
    for i, line in enumerate(lines):
        match = _TOML_HEADER.match(line)
        if not match:
            continue
        path = _toml_key_path(match.group(1))
        ours = path[:2] == ["mcp_servers", SERVER_NAME]
        if start is None and ours:
            start = i
        elif start is not None and not ours:
            end = i
            while end > start + 1 and not lines[end - 1].strip():
                end -= 1
            return start, end
    return (start, len(lines)) if start is not None else None


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
            if value
            else "{}"
        )
    return str(value)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _parse_toml(client: Client, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"{client.config()} is not valid TOML ({exc}); nothing was changed") from None


def _toml_with_entry(client: Client, text: str, entry: dict[str, Any]) -> str:
    original = _parse_toml(client, text)
    newline = "\r\n" if "\r\n" in text else "\n"
    table = [f"[mcp_servers.{SERVER_NAME}]"]
    table += [f"{key} = {_toml_value(value)}" for key, value in entry.items() if value != {}]
    block = newline.join(table) + newline
    lines = text.splitlines(keepends=True)
    found = _toml_block(lines)
    if found is None and SERVER_NAME in original.get("mcp_servers", {}):
        raise InvalidInput(
            f"{client.config()} defines mcp_servers.{SERVER_NAME} inline; remove it by hand and run again"
        )
    if found:
        result = "".join(lines[: found[0]]) + block + "".join(lines[found[1] :])
    else:
        head = text if not text or text.endswith("\n") else text + newline
        if head.strip() and lines and lines[-1].strip():
            head += newline  # a blank line before Lore's table
        result = head + block
    _check_toml(client, original, result, entry)
    return result


def _toml_without_entry(client: Client, text: str) -> str:
    original = _parse_toml(client, text)
    lines = text.splitlines(keepends=True)
    found = _toml_block(lines)
    if found is None:
        return text
    del lines[found[0] : found[1]]
    while lines and not lines[-1].strip():
        lines.pop()
    while 0 < found[0] < len(lines) and not lines[found[0] - 1].strip() and not lines[found[0]].strip():
        del lines[found[0]]
    result = "".join(lines)
    if result and not result.endswith("\n"):
        result += "\r\n" if "\r\n" in text else "\n"
    _check_toml(client, original, result, None)
    return result


def _check_toml(client: Client, original: dict[str, Any], text: str, entry: dict[str, Any] | None) -> None:
    """The edit changed Lore's table and nothing else, or nothing is written."""
    try:
        new = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise InvalidInput(
            f"{client.config()}: a `[mcp_servers.{SERVER_NAME}]` table cannot be added to "
            "this file (is `mcp_servers` an inline table?); nothing was changed — add it "
            "by hand"
        ) from None
    expected = json.loads(json.dumps(original, default=str))
    servers = expected.setdefault("mcp_servers", {})
    servers.pop(SERVER_NAME, None)
    if entry is not None:
        servers[SERVER_NAME] = {k: v for k, v in entry.items() if v != {}}
    if not servers:
        expected.pop("mcp_servers")
    got = json.loads(json.dumps(new, default=str))
    if got.get("mcp_servers") == {} and "mcp_servers" not in expected:
        got.pop("mcp_servers")
    if got != expected:
        raise InvalidInput(
            f"{client.config()}: could not edit the `[mcp_servers.{SERVER_NAME}]` table "
            "without touching others; nothing was changed — edit it by hand"
        )


# -- the Copilot instruction block ------------------------------------------------------------------
def instruction_block(approval: str) -> str:
    """What Copilot reads every session: when to ask Lore, and what saving a rule does."""
    if approval == "manual":
        saving = (
            "Rules you save with `propose_rules` or `record_feedback` wait for the user's "
            "approval; never say a saved rule is active."
        )
    else:
        saving = (
            "Rules you save with `propose_rules` or `record_feedback` are screened: Lore's reply "
            "says which are active and which wait for approval; tell the user in one line."
        )
    return "\n".join(
        [
            BLOCK_BEGIN,
            "## Project rules (Lore)",
            "",
            "- Before editing code in a git repository, call the Lore MCP tool `get_rules` with the files "
            "you will change and one sentence about the change, and follow the rules it returns.",
            "- After your context was reset, call it again with `refresh=true`.",
            "- When the user corrects how you write code, save the correction with `record_feedback`.",
            f"- {saving}",
            BLOCK_END,
            "",
        ]
    )
