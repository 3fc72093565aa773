"""Where model settings are read from: the environment, a `.env` in the working folder, and the
`model` section of `config.json`, each value with the place it came from.

Kept apart from the resolution so every reader (settings, runtime options, embedders, usage)
sees the same sources in the same order, with wrongly typed config values reported once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lore.core.config import load_settings, warn
from lore.core.llm.tasks import TASKS, known_tasks_text

TEXT_SETTINGS = (
    "provider",
    "model",
    "base_url",
    "api_key",
    "api_key_env",
    "api_key_file",
    "structured",
    "embed",
)


def model_config(section: Any = None) -> dict[str, Any]:
    """The `model` section of config.json, with wrongly typed values dropped (one warning each)
    so that a mistake such as `"model": 5` is reported instead of silently ignored."""
    if section is None:
        section = load_settings().raw.get("model")
        if section is None:
            return {}
    if not isinstance(section, dict):
        warn(f'config.json "model" must be an object of model settings, not {section!r}; using the defaults')
        return {}
    clean = dict(section)
    for key in TEXT_SETTINGS:
        if key in clean and not isinstance(clean[key], str):
            warn(f"config model.{key}={clean[key]!r} must be text; ignoring it")
            del clean[key]
    if "tasks" in clean:
        clean["tasks"] = _task_overrides(clean["tasks"])
    return clean


def _task_overrides(tasks: Any) -> dict[str, Any]:
    """`model.tasks`: task name -> "provider:model" or {"model": ..., other settings}."""
    if not isinstance(tasks, dict):
        warn(f"config model.tasks={tasks!r} must map task names to models; ignoring it")
        return {}
    out: dict[str, Any] = {}
    for name, override in tasks.items():
        if name not in TASKS:
            warn(
                f"config model.tasks.{name}: no feature asks for a task named {name!r}"
                f" (the tasks are {known_tasks_text()}); ignoring it"
            )
        elif isinstance(override, str) or (
            isinstance(override, dict) and isinstance(override.get("model"), str)
        ):
            out[name] = override
        else:
            warn(
                f'config model.tasks.{name}={override!r} must be "provider:model" or'
                ' {"model": "provider:model", ...}; ignoring it'
            )
    return out


def _dotenv(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a `.env` file (comments, `export` and quotes allowed)."""
    values: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return values
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values


class Sources:
    """Environment first, then `.env` in the working folder, then `config.json` `model`."""

    def __init__(self, config: dict[str, Any] | None = None, cwd: Path | None = None):
        self.dotenv_path = (cwd or Path.cwd()) / ".env"
        self.dotenv = _dotenv(self.dotenv_path)
        self.config = model_config(config)

    def env(self, name: str) -> tuple[str | None, str]:
        value = os.environ.get(name)
        if value:
            return value, f"env {name}"
        value = self.dotenv.get(name)
        if value:
            return value, f".env {name}"
        return None, ""

    def conf(self, key: str) -> Any:
        return self.config.get(key)


def env_value(name: str, cwd: Path | None = None) -> str | None:
    """A variable from the environment or the working folder's `.env`."""
    return Sources({}, cwd).env(name)[0]
