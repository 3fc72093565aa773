"""`.editorconfig`: indentation, line length, line endings and whitespace per file pattern."""

from __future__ import annotations

from pathlib import Path

from lore.rules.intake.discover_config.base import (
    Declared,
    _read,
)


def editorconfig(root: Path, files: set[str]) -> list[Declared]:
    text = _read(root, ".editorconfig") if ".editorconfig" in files else None
    if not text:
        return []
    found: list[Declared] = []
    section = None
    settings: dict[str, dict[str, str]] = {}
    for raw in text.splitlines():
        line = (
            raw.split(";", 1)[0].split("#", 1)[0].strip() if not raw.strip().startswith("[") else raw.strip()
        )
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            settings.setdefault(section, {})
        elif "=" in line and section is not None:
            key, value = (p.strip().lower() for p in line.split("=", 1))
            settings[section][key] = value
    for pattern, values in settings.items():
        parts = []
        style, size = values.get("indent_style"), values.get("indent_size")
        if style == "tab":
            parts.append("indent with tabs")
        elif style == "space" and size and size.isdigit():
            parts.append(f"indent with {size} spaces")
        if values.get("max_line_length", "").isdigit():
            parts.append(f"keep lines within {values['max_line_length']} characters")
        if values.get("end_of_line") in ("lf", "crlf"):
            parts.append(f"use {values['end_of_line'].upper()} line endings")
        if values.get("insert_final_newline") == "true":
            parts.append("end files with a newline")
        if values.get("trim_trailing_whitespace") == "true":
            parts.append("trim trailing whitespace")
        if not parts:
            continue
        scope = [] if pattern in ("*", "**") else [pattern if "/" in pattern else f"**/{pattern}"]
        where = "all files" if not scope else f"`{pattern}` files"
        found.append(
            Declared(
                f"For {where}: " + ", ".join(parts) + " (.editorconfig).",
                f"Editor settings {pattern}",
                ["indentation", "style", "editorconfig"],
                scope,
                ".editorconfig",
                f"[{pattern}] " + ", ".join(f"{k} = {v}" for k, v in values.items()),
                ("editorconfig", pattern),
            )
        )
    return found
