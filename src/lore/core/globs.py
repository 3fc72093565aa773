"""File globs in every dialect people write them, and matching them against project paths.

Rule files in the wild spell the same scope many ways: a YAML list, a JSON list, a comma
string, quoted or not, with braces (`*.{ts,tsx}`) and `**`. `parse_patterns` turns any of them
into a clean list; `compile_glob` turns one pattern into a regex over `/`-separated relative paths.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

GLOB_CHARS = frozenset("*?[{")


def parse_patterns(value: object) -> list[str]:
    """Split a scope given as a list, a JSON/YAML list string or a comma string into patterns."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        items: list[str] = []
        for item in value:
            items.extend(parse_patterns(item))
        return _dedupe(items)
    text = str(value).strip()
    if not text:
        return []
    if text.startswith("[") and text.endswith("]"):
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError:
            loaded = None
        if isinstance(loaded, list):
            return parse_patterns([str(x) for x in loaded])
        text = text[1:-1]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if lines and all(ln.startswith("- ") or ln == "-" for ln in lines):
        return parse_patterns([ln[1:].strip() for ln in lines])
    parts = [p for ln in lines for p in split_top_level(ln)]
    return _dedupe(clean for p in parts if (clean := normalize_pattern(p)))


def split_top_level(text: str) -> list[str]:
    """Split on commas outside quotes, braces and brackets (`"*.{ts,tsx}", x` is two parts)."""
    parts, buf, depth, quote = [], "", 0, ""
    for ch in text:
        if quote:
            buf += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append(buf)
            buf = ""
        else:
            buf += ch
    parts.append(buf)
    return parts


def normalize_pattern(raw: str) -> str:
    """Strip quotes, whitespace, `./` and a leading `/`; use forward slashes."""
    text = raw.strip().strip("\"'`").strip()
    text = text.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    text = text.lstrip("/")
    return re.sub(r"/{2,}", "/", text)


def _dedupe(items) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        if item:
            seen.setdefault(item, None)
    return list(seen)


def is_glob(pattern: str) -> bool:
    return any(ch in GLOB_CHARS for ch in pattern)


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex for a glob over relative paths; a pattern without `/` matches at any depth."""
    body = _translate(pattern)
    if "/" not in pattern.rstrip("/"):
        body = "(?:.*/)?" + body
    if pattern.endswith("/"):
        body += ".*"
    return re.compile(rf"\A{body}\Z", re.S)


def _translate(pattern: str) -> str:
    out, i, n = [], 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(ch))
                i += 1
            else:
                inner = pattern[i + 1 : end]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = end + 1
        elif ch == "{":
            end = _matching_brace(pattern, i)
            if end == -1:
                out.append(re.escape(ch))
                i += 1
            else:
                options = split_top_level(pattern[i + 1 : end])
                out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
                i = end + 1
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _matching_brace(pattern: str, start: int) -> int:
    depth = 0
    for j in range(start, len(pattern)):
        if pattern[j] == "{":
            depth += 1
        elif pattern[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def glob_matches(pattern: str, path: str) -> bool:
    return compile_glob(pattern).match(path) is not None
