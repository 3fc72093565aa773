"""JSON edited as text: every byte outside Lore's entry stays as the user (or client) wrote it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from lore.install.clients import SERVER_NAME

_DECODER = json.JSONDecoder()


def _indent(text: str) -> int | str:
    match = re.search(r"^([ \t]+)\S", text, re.M)
    if not match:
        return 2
    lead = match.group(1)
    return "\t" if "\t" in lead else len(lead)


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


def set_server(text: str, key: str, entry: dict[str, Any]) -> str:
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


def drop_server(text: str, key: str) -> str:
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
