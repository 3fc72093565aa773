"""The layering holds: core knows no domain, domains don't import each other, interfaces write no SQL."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "lore"
DOMAINS = ("rules", "history", "books")
INTERFACES = ("cli", "mcp", "web", "install")
# a domain may call another only through one small, named function listed here
ALLOWED_CROSS = {("rules", "history.reviews")}
SQL = re.compile(r"\b(SELECT\s+.+\s+FROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b", re.I | re.S)


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return [n for n in names if n == "lore" or n.startswith("lore.")]


def _layer(path: Path) -> str:
    return path.relative_to(SRC).parts[0]


def test_imports_only_go_down() -> None:
    wrong = []
    for path in SRC.rglob("*.py"):
        layer = _layer(path)
        for name in _imports(path):
            parts = name.split(".")
            target = parts[1] if len(parts) > 1 else ""
            if layer == "core" and target in DOMAINS + INTERFACES:
                wrong.append(f"{path.relative_to(SRC)} imports {name}")
            if layer in DOMAINS and target in INTERFACES:
                wrong.append(f"{path.relative_to(SRC)} imports {name}")
            crossing = layer in DOMAINS and target in DOMAINS and target != layer
            if crossing and (layer, ".".join(parts[1:3])) not in ALLOWED_CROSS:
                wrong.append(f"{path.relative_to(SRC)} imports {name}")
    assert not wrong, "layering broken:\n" + "\n".join(wrong)


def test_interfaces_write_no_sql() -> None:
    offenders = []
    for layer in INTERFACES:
        for path in (SRC / layer).rglob("*.py"):
            if SQL.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(SRC)))
    assert not offenders, f"SQL found in interface modules: {offenders}"
