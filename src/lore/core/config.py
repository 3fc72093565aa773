"""Settings from `$LORE_HOME/config.json`.

A missing or unreadable file, or a bad value, falls back to that setting's default with one
warning on stderr: a typo in a config file must never stop an agent's session.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.core.errors import InvalidInput
from lore.core.files import write_atomic
from lore.core.home import lore_home

CONFIG_NAME = "config.json"
_warned: set[str] = set()


def warn(message: str) -> None:
    """Print a warning on stderr once per process (stdout may be an MCP wire)."""
    if message not in _warned:
        _warned.add(message)
        print(f"lore: warning: {message}", file=sys.stderr)


@dataclass(frozen=True)
class TokenizerExtensions:
    """User additions to the text pipeline: aliases, topic words and filler words."""

    aliases: dict[str, str] = field(default_factory=dict)
    topics: dict[str, tuple[str, ...]] = field(default_factory=dict)
    stopwords: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    approval: str = "auto"
    auto_register: bool = True
    auto_limit: int = 25
    tokenizer: TokenizerExtensions = field(default_factory=TokenizerExtensions)
    raw: dict[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> dict[str, Any]:
        """A free-form section for other layers (e.g. `model`), `{}` when absent or not a map."""
        value = self.raw.get(name)
        return value if isinstance(value, dict) else {}


def config_path() -> Path:
    return lore_home() / CONFIG_NAME


def read_raw(path: Path | None = None) -> dict[str, Any]:
    """The parsed file, or `{}` with a warning when it is missing-but-named, unreadable or not a map."""
    path = path or config_path()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        warn(f"{path} is unreadable ({exc.__class__.__name__}); using defaults")
        return {}
    if not isinstance(data, dict):
        warn(f"{path} is not a JSON object; using defaults")
        return {}
    return data


def _pick(
    raw: dict[str, Any],
    key: str,
    default: Any,
    valid: Callable[[Any], bool],
    hint: str,
    name: str | None = None,
) -> Any:
    if key not in raw:
        return default
    value = raw[key]
    if valid(value):
        return value
    warn(f"config {name or key}={value!r} is invalid ({hint}); using {default!r}")
    return default


def number_setting(
    section: dict[str, Any], prefix: str, key: str, default: float, minimum: float = 0
) -> float:
    """A number in a settings section (`books.max_item_mb`), or its default with a warning when
    it is not a number >= `minimum`. Booleans are not numbers here, though Python says they are."""
    return _pick(
        section,
        key,
        default,
        lambda v: isinstance(v, int | float) and not isinstance(v, bool) and v >= minimum,
        f"a number >= {minimum:g}",
        name=f"{prefix}.{key}",
    )


def _tokenizer(raw: Any) -> TokenizerExtensions:
    if raw is None:
        return TokenizerExtensions()
    if not isinstance(raw, dict):
        warn("config tokenizer must be an object; ignoring it")
        return TokenizerExtensions()
    aliases = raw.get("aliases", {})
    if not (isinstance(aliases, dict) and all(isinstance(v, str) for v in aliases.values())):
        warn("config tokenizer.aliases must map words to words; ignoring it")
        aliases = {}
    topics_raw = raw.get("topics", {})
    topics: dict[str, tuple[str, ...]] = {}
    if isinstance(topics_raw, dict) and all(
        isinstance(v, list) and all(isinstance(w, str) for w in v) for v in topics_raw.values()
    ):
        topics = {str(k): tuple(v) for k, v in topics_raw.items()}
    else:
        warn("config tokenizer.topics must map topic names to word lists; ignoring it")
    stop = raw.get("stopwords", [])
    if not (isinstance(stop, list) and all(isinstance(w, str) for w in stop)):
        warn("config tokenizer.stopwords must be a list of words; ignoring it")
        stop = []
    return TokenizerExtensions(
        aliases={str(k).lower(): v.lower() for k, v in aliases.items()},
        topics=topics,
        stopwords=tuple(w.lower() for w in stop),
    )


def load_settings(path: Path | None = None) -> Settings:
    raw = read_raw(path)
    return Settings(
        approval=_pick(raw, "approval", "auto", lambda v: v in ("auto", "manual"), "auto or manual"),
        auto_register=_pick(raw, "auto_register", True, lambda v: isinstance(v, bool), "true or false"),
        auto_limit=_pick(
            raw,
            "auto_limit",
            25,
            lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
            "a whole number >= 0",
        ),
        tokenizer=_tokenizer(raw.get("tokenizer")),
        raw=raw,
    )


def update_settings(changes: dict[str, Any], path: Path | None = None) -> None:
    """Write keys into config.json, keeping every other key; written atomically."""
    path = path or config_path()
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InvalidInput(
                f"{path} is unreadable ({exc}); fix or move it, then run this again "
                "(Lore does not overwrite a settings file it cannot read)"
            ) from None
        if not isinstance(data, dict):
            raise InvalidInput(f"{path} is not a JSON object; fix or move it, then run this again")
    else:
        data = {}
    data.update(changes)
    write_atomic(path, json.dumps(data, indent=2) + "\n")
