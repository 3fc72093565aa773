"""`$LORE_HOME/install.json`: what `lore install` created (files, folders) and where the bytes of
each file from before Lore wrote into it were kept, so uninstall can give them back exactly."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lore.core.home import lore_home

STATE_FILE = "install.json"


def load_state() -> dict[str, Any]:
    path = lore_home() / STATE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save_state(state: dict[str, Any]) -> None:
    path = lore_home() / STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")


def created_by_lore(path: Path) -> bool:
    return str(path) in load_state().get("created", [])


def pristine(path: Path, after: str, without_lore: Callable[[str], Any]) -> str:
    """The file's bytes from before `lore install` when `after` (Lore's part removed) says the same
    thing, so that a round trip gives back the very same bytes; otherwise `after` itself."""
    backup = load_state().get("pristine", {}).get(str(path))
    try:
        original = Path(backup).read_bytes().decode("utf-8") if backup else None
    except (OSError, UnicodeDecodeError):
        return after
    if original is None or original == after:
        return after
    same = without_lore(original) == without_lore(after)
    return original if same and without_lore(after) is not None else after
