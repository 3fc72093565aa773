"""Front matter of rule files, read leniently and reported precisely.

Rule files in the wild carry a small YAML header (`applyTo`, `globs`, `alwaysApply`,
`description`, `paths`) that is often not valid YAML: `globs: **/*.ts` is an alias to YAML, yet
every editor reads it as a glob. So this reads the subset those headers use (scalars, quoted or
bare, inline `[a, b]` lists and `- item` block lists) and reports, line by line, what it could
not read instead of failing the whole file or skipping it silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lore.core.globs import split_top_level

_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(.*)$")


@dataclass
class FrontMatter:
    """The header's values, the body after it, and what could not be read."""

    values: dict[str, Any]
    body: str
    body_line: int  # 1-based line number of the body's first line in the file
    problems: list[str] = field(default_factory=list)
    present: bool = False
    closed: bool = True
    unreadable: frozenset[str] = frozenset()  # keys whose value could not be read as written

    def get(self, *keys: str) -> Any:
        """The first of `keys` present (keys compared case-insensitively)."""
        lowered = {k.lower(): v for k, v in self.values.items()}
        for key in keys:
            if key.lower() in lowered:
                return lowered[key.lower()]
        return None

    def is_unreadable(self, *keys: str) -> bool:
        lowered = {k.lower() for k in self.unreadable}
        return any(key.lower() in lowered for key in keys)

    def flag(self, key: str) -> tuple[bool | None, str | None]:
        """A true/false value and, when it is neither, the problem to report (it reads as false)."""
        value = self.get(key)
        if isinstance(value, bool) or value is None:
            return value, None
        text = str(value).strip().lower()
        if text in ("true", "yes", "on", "1"):
            return True, None
        if text in ("false", "no", "off", "0", ""):
            return False, None
        return False, f"{key}: {value!r} is not true or false; read as false"


def split_front_matter(text: str) -> FrontMatter:
    """Separate a `---` header from the body; a file without one has empty values."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return FrontMatter({}, text, 1)
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            values, problems, unreadable = _parse(lines[1:end], first_line=2)
            body = "\n".join(lines[end + 1 :])
            return FrontMatter(values, body, end + 2, problems, present=True, unreadable=unreadable)
    return FrontMatter(
        {},
        text,
        1,
        ["front matter starts with `---` on line 1 but is never closed"],
        present=True,
        closed=False,
    )


def parse_header(lines: list[str], first_line: int = 1) -> tuple[dict[str, Any], list[str]]:
    """Read `key: value` lines and `- item` lists; return values and per-line problems."""
    values, problems, _ = _parse(lines, first_line)
    return values, problems


def _parse(lines: list[str], first_line: int) -> tuple[dict[str, Any], list[str], frozenset[str]]:
    """Values, per-line problems, and the keys whose value had a problem (so that a caller never
    uses a half-read value as, say, a scope)."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    unreadable: set[str] = set()
    current: str | None = None  # key waiting for block list items or folded text
    for offset, raw in enumerate(lines):
        number = first_line + offset
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") or stripped == "-":
            if current is None:
                problems.append(f"line {number}: list item without a key: {stripped[:60]!r}")
                continue
            existing = values.get(current)
            if existing not in ("", None) and not isinstance(existing, list):
                problems.append(
                    f"line {number}: list item under {current}, which already has a value "
                    f"on its own line; both left out: {stripped[:60]!r}"
                )
                unreadable.add(current)
                continue
            item, problem = _scalar(stripped[1:].strip())
            if problem:
                problems.append(f"line {number}: {current}: {problem}")
                unreadable.add(current)
            values[current] = [*existing, item] if isinstance(existing, list) else [item]
            continue
        match = _KEY.match(stripped) if not raw[:1].isspace() else None
        if match is None:
            if current is not None and raw[:1].isspace() and isinstance(values.get(current), str):
                values[current] = (values[current] + " " + stripped).strip()  # folded text
                continue
            problems.append(f"line {number}: not a `key: value` line: {stripped[:60]!r}")
            continue
        key, rest = match.group(1), match.group(2).strip()
        if key in values:
            problems.append(f"line {number}: {key} appears twice; the last one is used")
        current = key
        if rest in ("", "|", ">", "|-", ">-"):
            values[key] = ""
            continue
        value, problem = _value(rest)
        if problem:
            problems.append(f"line {number}: {key}: {problem}")
            unreadable.add(key)
        else:
            unreadable.discard(key)
        values[key] = value
    return values, problems, frozenset(unreadable)


def _value(text: str) -> tuple[Any, str | None]:
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        if not inner:
            return [], None
        items, problems = [], []
        for part in (p for p in split_top_level(inner) if p.strip()):
            item, problem = _scalar(part.strip())
            if problem:
                problems.append(problem)
            if item != "":
                items.append(item)
        return items, "; ".join(problems) or None
    if text.startswith("[") and not text.endswith("]"):
        return text, "a `[` list is never closed; read as text"
    return _scalar(text)


def _scalar(text: str) -> tuple[Any, str | None]:
    if not text:
        return "", None
    if text[0] in "\"'":
        quote = text[0]
        end = _closing_quote(text, quote)
        if end == -1:
            return text[1:], f"the {quote} quote is never closed; read as text"
        inner = text[1:end]
        inner = inner.replace("''", "'") if quote == "'" else _unescape(inner)
        trailing = text[end + 1 :].strip()
        if trailing.startswith(","):
            return text, None  # `"a", "b"`: a comma list, split by whoever reads it
        if trailing and not trailing.startswith("#"):
            return inner, f"text after the closing quote ignored: {trailing[:40]!r}"
        return inner, None
    if " #" in text:
        text = text.split(" #", 1)[0].rstrip()
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true", None
    if lowered in ("null", "~"):
        return None, None
    return text, None


def _closing_quote(text: str, quote: str) -> int:
    i = 1
    while i < len(text):
        ch = text[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and text[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i
        i += 1
    return -1


def _unescape(text: str) -> str:
    return re.sub(r'\\(["\\/nt])', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def render_front_matter(values: dict[str, Any]) -> str:
    """A header other tools read as YAML: strings single-quoted, lists inline."""
    lines = ["---"]
    for key, value in values.items():
        lines.append(f"{key}: {_render(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_render(v) for v in value) + "]"
    text = str(value).replace("\n", " ")
    return "'" + text.replace("'", "''") + "'"
