"""What every config reader shares: the finding (`Declared`), reading a file, TOML and JSON with
comments, and a line-length finding.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JS_GLOB = "**/*.{js,jsx,ts,tsx,mjs,cjs}"
TS_GLOB = "**/*.{ts,tsx}"


@dataclass
class Declared:
    """A convention found in a config file; `aspect` lets a file vote defer to it."""

    text: str
    title: str
    triggers: list[str]
    scope: list[str]
    file: str
    setting: str
    aspect: tuple[str, str] = ("", "")  # (language, what): ("python", "line_length")
    extra: dict[str, Any] = field(default_factory=dict)

    def evidence(self) -> dict[str, Any]:
        return {
            "convention": self.aspect[1] or "tool",
            "kind": "config",
            "file": self.file,
            "setting": self.setting,
            "ratio": f"declared in {self.file}",
        }


def _read(root: Path, rel: str) -> str | None:
    try:
        return (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _toml(root: Path, rel: str) -> dict[str, Any] | None:
    text = _read(root, rel)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _jsonc(text: str) -> Any:
    """JSON with comments and trailing commas (tsconfig, .eslintrc, .prettierrc)."""
    text = re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "", text, flags=re.S)
    text = re.sub(r",(\s*[}\]])", r"\1", text)
    return json.loads(text)


def _line_length(language: str, limit: int, rel: str, setting: str, scope: list[str]) -> Declared:
    name = language.capitalize() if language != "javascript" else "JavaScript/TypeScript"
    return Declared(
        f"Keep {name} lines within {limit} characters ({setting}).",
        f"{name} line length",
        [language, "line", "length", "style"],
        scope,
        rel,
        f"{setting} = {limit}",
        (language, "line_length"),
    )
