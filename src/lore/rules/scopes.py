"""Scopes: which files a rule covers, and how specific that coverage is.

A scope is a list of entries; an empty list means global. A section entry ends with `/` and
covers every file below that folder; any other entry is a file glob. A rule covering several of
the given files takes its most specific level: file globs beat sections, deeper sections beat
shallower ones, and both beat global.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from lore.core.errors import InvalidInput
from lore.core.globs import compile_glob, is_glob, parse_patterns

GLOBAL_WORDS = frozenset({"", "*", "**", "**/*", "/", ".", "global", "all", "any", "everywhere"})
LEVELS = ("global", "section", "file")


def normalize_scope(value: object, sections: Iterable[str] = (), root: Path | None = None) -> list[str]:
    """Turn a scope as users write it into stored entries (sections end with `/`)."""
    known = list(sections)
    entries: list[str] = []
    if value is not None and not isinstance(value, (str, list, tuple)):
        raise InvalidInput("a scope is a string or a list of strings (a section or file globs)")
    for pattern in parse_patterns(_relative_to(value, root)):
        if pattern == ".." or pattern.startswith("../") or "/../" in pattern:
            raise InvalidInput(
                f"scope {pattern!r} points outside the project; scopes are relative to the repository root"
            )
        if pattern.lower() in GLOBAL_WORDS:
            return []
        entry = _entry(pattern, known, root)
        if not entry.endswith("/"):
            try:
                compile_glob(entry)
            except re.error as exc:
                raise InvalidInput(f"scope {pattern!r} is not a valid glob ({exc})") from None
        if entry not in entries:
            entries.append(entry)
    return entries


def _relative_to(value: object, root: Path | None) -> object:
    """Absolute paths inside the project become relative; absolute paths elsewhere are refused.

    A leading `/` that names no existing absolute path stays root-anchored (`/src/**`).
    """
    if root is None or value is None:
        return value
    items = [value] if isinstance(value, str) else list(cast(Iterable[object], value))
    out = []
    for item in items:
        text = str(item).strip().strip("\"'`").strip()
        if text.startswith("/"):
            top = text.split("/")[1] if "/" in text[1:] else text[1:]
            inside = str(root).rstrip("/") + "/"
            if text.startswith(inside) or text == str(root):
                text = text[len(inside) :] or "**"
            elif top and Path("/" + top).exists() and not (root / top).exists():
                raise InvalidInput(
                    f"scope {text!r} is outside the project; scopes are relative to the repository root"
                )
        out.append(text)
    return out if not isinstance(value, str) else ",".join(out)


def _entry(pattern: str, sections: list[str], root: Path | None) -> str:
    for tail in ("/**/*", "/**"):
        if pattern.endswith(tail) and not is_glob(pattern[: -len(tail)]):
            return pattern[: -len(tail)] + "/"
    if is_glob(pattern) or pattern.endswith("/"):
        return pattern
    if root is not None:
        target = root / pattern
        if target.is_dir():
            return pattern + "/"
        if target.is_file():
            return pattern
    if pattern in sections:
        return pattern + "/"
    if "/" not in pattern:
        named = [s for s in sections if s.rsplit("/", 1)[-1] == pattern]
        if len(named) == 1:
            return named[0] + "/"
    last = pattern.rsplit("/", 1)[-1]
    return pattern if "." in last else pattern + "/"


@dataclass(frozen=True)
class Coverage:
    """How a rule covers a set of files: its level and a specificity to sort by."""

    level: str
    specificity: tuple[int, int]


GLOBAL = Coverage("global", (0, 0))


def entry_coverage(entry: str, path: str) -> Coverage | None:
    if entry.endswith("/"):
        if path.startswith(entry) or path == entry[:-1]:  # a file below it, or the folder itself
            return Coverage("section", (1, entry.count("/")))
        return None
    try:
        matcher = compile_glob(entry)
    except re.error:  # stored before globs were checked on save: it covers nothing
        return None
    if matcher.match(path):
        literal = sum(1 for ch in entry if ch not in "*?[]{}")
        return Coverage("file", (2, literal))
    return None


def coverage(scope: tuple[str, ...], paths: Iterable[str]) -> Coverage | None:
    """The most specific coverage of any path by the scope, or None when no path is covered."""
    if not scope:
        return GLOBAL
    best: Coverage | None = None
    for path in paths:
        for entry in scope:
            found = entry_coverage(entry, path)
            if found and (best is None or found.specificity > best.specificity):
                best = found
    return best


def scope_words(scope: tuple[str, ...]) -> str:
    """The words of a scope, for search (a rule scoped to `db/` is about databases)."""
    return " ".join(scope).replace("/", " ").replace("*", " ")


def scopes_overlap(a: tuple[str, ...] | list[str], b: tuple[str, ...] | list[str]) -> bool:
    """Whether some file could fall under both scopes (global overlaps everything).

    The one test of "same subject area" for rules: the screening gate compares a new rule only
    with active rules whose scopes overlap its own, and `lore review lint` reports contradictions
    and near-duplicates over the same pairs, so the two never disagree about which rules meet.
    It errs towards overlap: `src/*.py` and `src/a/b.py` are said to overlap, since telling them
    apart would need the repository's files, and a missed clash is worse than an extra look.
    """
    if not a or not b:
        return True
    return any(_entries_overlap(x, y) for x in a for y in b)


def _folder(entry: str) -> str:
    """The literal folder an entry starts with (`src/db/**/*.py` -> `src/db/`; `**/*.py` -> ``)."""
    if entry.endswith("/"):
        return entry
    head = re.split(r"[*?\[{]", entry, maxsplit=1)[0]
    return head.rsplit("/", 1)[0] + "/" if "/" in head else ""


def _entries_overlap(x: str, y: str) -> bool:
    if x == y:
        return True
    fx, fy = _folder(x), _folder(y)
    if not (fx.startswith(fy) or fy.startswith(fx)):
        return False
    if x.endswith("/") or y.endswith("/"):
        return True
    return _names_overlap(x.rsplit("/", 1)[-1], y.rsplit("/", 1)[-1])


def _names_overlap(x: str, y: str) -> bool:
    """Whether two last path components could name the same file: a literal name against a glob
    is matched; two globs overlap unless both name extensions and share none."""
    if not is_glob(x) and not is_glob(y):
        return x == y
    if not is_glob(x) or not is_glob(y):
        literal, pattern = (x, y) if not is_glob(x) else (y, x)
        try:
            return bool(compile_glob(pattern).match(literal))
        except re.error:
            return True
    ex, ey = _extensions(x), _extensions(y)
    return not (ex and ey) or bool(ex & ey)


def _extensions(name: str) -> set[str]:
    match = re.search(r"\.([\w{},]+)$", name)
    return set(match.group(1).strip("{}").split(",")) if match else set()
