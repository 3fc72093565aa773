"""Where Lore keeps its files: `$LORE_HOME`, default `~/.lore`."""

from __future__ import annotations

import os
from pathlib import Path


def lore_home() -> Path:
    """The folder for the store, config and trust files (created on demand by callers)."""
    raw = os.environ.get("LORE_HOME")
    return Path(raw).expanduser().resolve() if raw else (Path.home() / ".lore").resolve()


def ensure_home() -> Path:
    home = lore_home()
    home.mkdir(parents=True, exist_ok=True)
    return home
