"""Lore's entry in one client's config file: read, added, removed, and what the file says apart
from it. JSON and TOML are both edited as text, never re-serialised (`json_text`, `toml_text`):
Lore's entry is laid out like its neighbours, every other byte stays, and the result is parsed
back and compared before anything is written."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from lore.core.errors import InvalidInput
from lore.install import json_text, toml_text
from lore.install.clients import SERVER_NAME, Client


def without_lore(client: Client, text: str) -> Any:
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


def servers_in(client: Client, text: str) -> dict[str, Any]:
    if client.toml:
        try:
            return tomllib.loads(text).get("mcp_servers", {}) if text.strip() else {}
        except tomllib.TOMLDecodeError:
            return {}
    try:
        return (json.loads(text) or {}).get(client.key) or {}
    except (json.JSONDecodeError, AttributeError):
        return {}


def is_empty(client: Client, text: str) -> bool:
    if client.toml:
        return not text.strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    return data in ({}, {client.key: {}})


def with_entry(client: Client, text: str, *, command: list[str], env: dict[str, str]) -> str:
    entry = client.entry(command, env)
    if client.toml:
        return toml_text.with_entry(client, text, entry)
    data = _load_json(client, text)
    servers = data.get(client.key) or {}
    if servers.get(SERVER_NAME) == entry:
        return text
    if not text.strip():
        return json.dumps({client.key: {SERVER_NAME: entry}}, indent=2, ensure_ascii=False) + "\n"
    result = json_text.set_server(text, client.key, entry)
    _check_json(client, result, {**data, client.key: {**servers, SERVER_NAME: entry}})
    return result


def without_entry(client: Client, text: str) -> str:
    if client.toml:
        return toml_text.without_entry(client, text)
    data = _load_json(client, text)
    servers = data.get(client.key)
    if not servers or SERVER_NAME not in servers:
        return text
    result = json_text.drop_server(text, client.key)
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
