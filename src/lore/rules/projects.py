"""Projects: which git repository a path belongs to, whether Lore may register it, its map.

A project is a git repository registered by path. Its map lists the sections a rule can be
scoped to: the top-level folders, plus one level under the usual containers (`src/`,
`packages/`, `apps/`, `lib/` ...), so `src/api` is a section but `src/api/v2` is not.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePosixPath

from lore.core import git
from lore.core.errors import InvalidInput
from lore.core.home import lore_home

CONTAINERS = frozenset(
    {
        "src",
        "packages",
        "apps",
        "lib",
        "libs",
        "services",
        "modules",
        "crates",
        "cmd",
        "internal",
        "pkg",
        "components",
        "plugins",
        "projects",
        "tools",
    }
)
SKIPPED = frozenset(
    {
        "node_modules",
        "venv",
        "__pycache__",
        "dist",
        "build",
        "target",
        "vendor",
        "coverage",
        "site-packages",
        "out",
    }
)
# never projects: the folder itself, or anything inside it
SYSTEM_TREES = tuple(
    Path(p)
    for p in (
        "/usr",
        "/etc",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/boot",
        "/dev",
        "/proc",
        "/sys",
        "/System",
        "/Library",
        "/private/etc",
        "/snap",
    )
)
# never projects themselves, though a project may live below them
SYSTEM_ROOTS = tuple(
    Path(p)
    for p in (
        "/",
        "/home",
        "/Users",
        "/opt",
        "/var",
        "/srv",
        "/mnt",
        "/media",
        "/tmp",
        "/root",
        "/private",
        "/Volumes",
    )
)


# `lore demo` keeps its sample repository here, under $LORE_HOME: the one project allowed there
DEMO_FOLDER = "demo"


def git_root(path: Path) -> Path | None:
    """The nearest folder at or above `path` (a file or folder, existing or not) holding `.git`."""
    path = Path(path).expanduser()
    path = path if path.is_absolute() else Path.cwd() / path
    path = Path(os.path.normpath(path))
    current = path
    while not current.exists() and current != current.parent:
        current = current.parent
    if current.is_file():
        current = current.parent
    for folder in (current, *current.parents):
        if (folder / ".git").exists():
            return folder.resolve()
    return None


def refusal(root: Path) -> str | None:
    """Why a folder may never be a project, or None."""
    root = root.resolve()
    home = Path.home().resolve()
    if root == home:
        return f"{root} is your home folder"
    if root in SYSTEM_ROOTS:
        return f"{root} is a system folder"
    for tree in SYSTEM_TREES:
        if root == tree or tree in root.parents:
            return f"{root} is inside the system folder {tree}"
    lore = lore_home()
    demo = lore / DEMO_FOLDER
    if (root == lore or lore in root.parents) and not (root == demo or demo in root.parents):
        return f"{root} is inside Lore's own folder {lore}"
    return None


def project_root(path: Path) -> Path:
    """The git root of `path`, or InvalidInput saying why it cannot be a project."""
    root = git_root(path)
    if root is None:
        raise InvalidInput(f"{path} is not inside a git repository; Lore only registers git projects")
    reason = refusal(root)
    if reason:
        raise InvalidInput(f"refusing to register {root}: {reason}")
    return root


def unique_name(root: Path, taken: set[str]) -> str:
    """The folder's name, with a short suffix from its path when another project uses it."""
    base = root.name or "project"
    if base not in taken:
        return base
    digest = hashlib.sha1(str(root).encode()).hexdigest()
    for size in (4, 6, 8, 40):
        name = f"{base}-{digest[:size]}"
        if name not in taken:
            return name
    raise InvalidInput(f"cannot find a free name for {root}")


def sections_of(root: Path) -> list[str]:
    """The project map: top-level folders and one level under container folders."""
    folders: set[str] = set()
    for rel in git.ls_files(root):
        parts = PurePosixPath(rel).parts[:-1]
        if parts:
            folders.add(parts[0])
            if len(parts) >= 2 and parts[0] in CONTAINERS:
                folders.add(f"{parts[0]}/{parts[1]}")
    return sorted(f for f in folders if not _skipped(f))


def _skipped(section: str) -> bool:
    return any(part.startswith(".") or part in SKIPPED for part in section.split("/"))


def relative_path(root: Path, path: str | Path) -> str | None:
    """`path` relative to the project root in `/` form, or None when it lies outside."""
    candidate = Path(path).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    candidate = Path(os.path.normpath(candidate))
    try:
        rel = candidate.relative_to(root)
    except ValueError:
        try:
            rel = candidate.resolve().relative_to(root)
        except (ValueError, OSError):
            return None
    text = rel.as_posix()
    return "" if text == "." else text


def section_of(sections: tuple[str, ...] | list[str], rel: str) -> str | None:
    """The most specific section that contains a relative path."""
    best = None
    for section in sections:
        inside = rel == section or rel.startswith(section + "/")
        if inside and (best is None or len(section) > len(best)):
            best = section
    return best
