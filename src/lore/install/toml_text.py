"""TOML edited as text: Lore's `[mcp_servers.lore]` table added or removed line by line, every
other line kept, the result parsed back and compared."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from lore.core.errors import InvalidInput
from lore.install.clients import SERVER_NAME, Client

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


def with_entry(client: Client, text: str, entry: dict[str, Any]) -> str:
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


def without_entry(client: Client, text: str) -> str:
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
