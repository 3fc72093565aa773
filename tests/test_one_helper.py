"""One helper each: files are replaced only by `core.files`, moments parsed only by `core.dates`.

Both had been written several times over (three atomic writes with fixed temporary names that
raced, dates read three ways); this keeps a fifth copy from appearing unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "lore"


def _calls(path: Path) -> list[tuple[int, str, str, int]]:
    """(line, receiver, called name, positional argument count) of every attribute call; the
    receiver is the name before the dot when it is a plain name (`os` in `os.replace`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (
            node.lineno,
            node.func.value.id if isinstance(node.func.value, ast.Name) else "",
            node.func.attr,
            len(node.args),
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    ]


# creating a new SQLite file (linked or moved into place once built) is the store's own job
NEW_STORE_FILE = ("core/store/sqlite_file.py",)


def _offenders(allowed: tuple[str, ...], wanted) -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in allowed:
            continue
        found += [
            f"{rel}:{line} {name}" for line, owner, name, args in _calls(path) if wanted(owner, name, args)
        ]
    return found


def test_files_are_replaced_only_through_core_files() -> None:
    # `os.replace(a, b)`, `os.rename(a, b)`; `Path.replace(target)` and `Path.rename(target)` take
    # one argument where `str.replace(old, new)` takes two
    def replaces(owner: str, name: str, args: int) -> bool:
        return name in ("replace", "rename") and (owner == "os" or args == 1)

    offenders = _offenders(("core/files.py", *NEW_STORE_FILE), replaces)
    assert offenders == [], "use lore.core.files.write_atomic:\n" + "\n".join(offenders)


def test_moments_are_parsed_only_by_core_dates() -> None:
    def parses(_owner: str, name: str, _args: int) -> bool:
        return name in ("fromisoformat", "strptime")

    offenders = _offenders(("core/dates.py",), parses)
    assert offenders == [], "use lore.core.dates:\n" + "\n".join(offenders)
