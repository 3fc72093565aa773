"""Whether a repository is yours, decided by asking git and remembered for a week.

Lore activates rules by itself only in your repositories: anyone can publish a repository whose
own text says anything. A repository is yours when it has no remote, or when commits in it are
by your configured git identity; a folder git does not recognise is not yours. The answer is
cached in `$LORE_HOME/trust.json`, and a manual override (trust / untrust) always wins.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from lore.core.config import warn
from lore.core.home import ensure_home, lore_home

TRUST_FILE = "trust.json"
CACHE_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class TrustState:
    yours: bool
    reason: str
    override: str | None = None  # "trust", "untrust" or None

    @property
    def label(self) -> str:
        if self.override:
            return "trusted (override)" if self.override == "trust" else "untrusted (override)"
        return "yours" if self.yours else "not yours"


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None


def check_with_git(root: Path) -> TrustState:
    """Ask git (no cache): is this repository yours?"""
    inside = _git(root, "rev-parse", "--is-inside-work-tree")
    if inside is None or inside.returncode != 0 or inside.stdout.strip() != "true":
        return TrustState(False, "git does not recognise this folder as a repository")
    remotes = _git(root, "remote")
    if remotes is not None and remotes.returncode == 0 and not remotes.stdout.strip():
        return TrustState(True, "the repository has no remote")
    email, name = _config(root, "user.email"), _config(root, "user.name")
    if email:  # git matches --author against "Name <email>": the brackets make it exact
        pattern, args, ident = f"<{email}>", ["--fixed-strings"], email
    elif name:
        pattern, args, ident = f"^{re.escape(name)} <", ["--extended-regexp"], name
    else:
        return TrustState(False, "it has a remote and no git identity is configured")
    found = _git(root, "log", "--all", "-1", "--format=%H", *args, f"--author={pattern}")
    if found is not None and found.returncode == 0 and found.stdout.strip():
        return TrustState(True, f"it has commits by your git identity ({ident})")
    return TrustState(False, "it has a remote and no commits by your git identity")


def _config(root: Path, key: str) -> str:
    value = _git(root, "config", "--get", key)
    return value.stdout.strip() if value is not None and value.returncode == 0 else ""


def _path() -> Path:
    return lore_home() / TRUST_FILE


def _load() -> dict[str, dict]:
    path = _path()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        warn(f"{path} is unreadable; checking trust with git again")
        return {}


def _save(data: dict[str, dict]) -> None:
    ensure_home()
    tmp = _path().with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")  # one per thread
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(_path())


def trust_state(root: Path) -> TrustState:
    """The override if set, else the cached answer if under a week old, else ask git."""
    key = str(Path(root).resolve())
    data = _load()
    entry = data.get(key, {})
    override = entry.get("override")
    if override in ("trust", "untrust"):
        return TrustState(override == "trust", f"set by hand ({override})", override)
    if time.time() - float(entry.get("checked_at", 0)) < CACHE_SECONDS and "yours" in entry:
        return TrustState(bool(entry["yours"]), entry.get("reason", "remembered"))
    state = check_with_git(Path(root))
    data = _load()  # re-read: another process may have written meanwhile
    data[key] = {**data.get(key, {}), "yours": state.yours, "reason": state.reason, "checked_at": time.time()}
    _save(data)
    return state


def set_override(root: Path, override: str | None) -> TrustState:
    """`trust`, `untrust`, or None to let the git check decide again."""
    key = str(Path(root).resolve())
    data = _load()
    entry = data.get(key, {})
    entry.pop("override", None)
    if override is None:
        entry.pop("checked_at", None)
    else:
        entry["override"] = override
    data[key] = entry
    _save(data)
    return trust_state(Path(root))
