"""What `lore install` and `lore uninstall` change: one file's change, the report of a run, and
applying the changes (a timestamped backup under `$LORE_HOME/backups/` first, only files whose
content changes are written, folders Lore created removed again when they are empty)."""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.core.errors import InvalidInput
from lore.core.files import write_atomic
from lore.core.home import lore_home
from lore.install.state import load_state, save_state


@dataclass
class FileChange:
    """One file's planned or done change."""

    client: str
    path: Path
    before: str | None
    after: str | None  # None: delete the file
    action: str  # added, updated, removed, unchanged, absent, error
    error: str = ""
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        return self.action in ("added", "updated", "removed") and self.before != self.after

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, f"{self.path} (before)", f"{self.path} (after)", n=2)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "path": str(self.path),
            "action": self.action,
            "error": self.error,
            "backup": str(self.backup) if self.backup else None,
        }


@dataclass
class InstallReport:
    how_chosen: str
    command: list[str]
    approval: str
    changes: list[FileChange] = field(default_factory=list)
    dry_run: bool = False
    folders_removed: list[Path] = field(default_factory=list)

    @property
    def failed(self) -> list[FileChange]:
        return [c for c in self.changes if c.action == "error"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "clients": self.how_chosen,
            "command": self.command,
            "approval": self.approval,
            "dry_run": self.dry_run,
            "changes": [c.to_dict() for c in self.changes],
            "folders_removed": [str(p) for p in self.folders_removed],
        }


def apply_changes(changes: list[FileChange]) -> None:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    state = load_state()
    for change in changes:
        if not change.changed:
            continue
        pristine = state.setdefault("pristine", {})
        if change.action == "removed":
            pristine.pop(str(change.path), None)
        if change.before is not None:
            change.backup = _backup(change, stamp)
            if change.action == "added":  # the file as it was before Lore wrote into it
                pristine[str(change.path)] = str(change.backup)
        elif change.after is not None:
            state.setdefault("created", [])
            if str(change.path) not in state["created"]:
                state["created"].append(str(change.path))
            folders = state.setdefault("created_folders", [])
            folders += [str(f) for f in _missing_folders(change.path) if str(f) not in folders]
        if change.after is None:
            change.path.unlink(missing_ok=True)
            if str(change.path) in state.get("created", []):
                state["created"].remove(str(change.path))
            continue
        write_atomic(change.path, change.after)
    save_state(state)


def _missing_folders(path: Path) -> list[Path]:
    """The folders above `path` that do not exist yet: writing it creates them."""
    missing = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def remove_empty_folders() -> list[Path]:
    """Remove the folders `lore install` created (`~/.cursor/`, ...) that are empty now, deepest
    first. A folder that holds anything, Lore's or not, stays (and stays on the list)."""
    state = load_state()
    recorded = [Path(f) for f in state.get("created_folders", [])]
    if not recorded:
        return []
    removed, kept = [], []
    for folder in sorted(recorded, key=lambda f: len(f.parts), reverse=True):
        try:
            folder.rmdir()  # only ever succeeds on an empty folder
            removed.append(folder)
        except FileNotFoundError:
            pass
        except OSError:
            kept.append(str(folder))
    state["created_folders"] = kept
    save_state(state)
    return removed


def _backup(change: FileChange, stamp: str) -> Path:
    folder = lore_home() / "backups" / "install" / stamp
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{change.client}-{change.path.name}"
    n = 2
    while target.exists():
        target = folder / f"{change.client}-{n}-{change.path.name}"
        n += 1
    target.write_bytes((change.before or "").encode("utf-8"))
    return target


def read_file(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")  # as bytes: line endings stay as they are
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None
