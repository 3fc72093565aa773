"""The house holds: imports only go down, SQL and the driver live only in store modules, and
store modules hand out records, never driver rows or connections.

Store modules of core and the domains are named, not listed: `store.py`, `*_store.py`, any module under a `store/`
package, and migrations (`migrations.py` or under `migrations/`). `core/store/sqlite*.py` and
`core/store/postgres*.py` are the backends: the modules that may hand out a connection (to the
store modules).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "lore"
DOMAINS = ("rules", "history", "books")
INTERFACES = ("cli", "mcp", "web", "install")
# a domain may call another only through one small, named module listed here
ALLOWED_CROSS = {("rules", "history.for_agents")}
# the backends: the only modules that hand out a connection (to the store modules)
BACKENDS = tuple(
    SRC / "core" / "store" / f"{name}.py"
    for name in (
        "sqlite",
        "sqlite_connection",
        "sqlite_file",
        "postgres",
        "postgres_connection",
        "postgres_errors",
        "postgres_params",
        "open",
    )
)
# what a store module (and so every migration) may import from Lore: the store layer, errors,
# plain records, and its own domain's records and store modules; never logic that can change
STORE_MAY_IMPORT = ("lore.core.store", "lore.core.errors", "lore.core.home", "lore.core.graph")
# the backends and the choice between them (which hold no migration) also read their own settings
# (`store.read_only`, `database_url`)
BACKEND_MAY_IMPORT = ("lore.core.config",)
DRIVERS = ("sqlite3", "sqlean", "sqlite_vec", "psycopg", "psycopg_pool", "pgvector")
DRIVER_NAMES = re.compile(r"\b(sqlite3|Row|Connection|Cursor)\b")

# SQL as this code base writes it: upper-case keywords inside a string literal
SQL = re.compile(
    r"\bSELECT\b[\s\S]+?\bFROM\b|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b|\bCREATE\s+(?:TEMP\s+|VIRTUAL\s+|UNIQUE\s+)?(?:TABLE|INDEX)\b|\bPRAGMA\s+\w+"
)
# strings that look like SQL but are data Lore never runs, each with the file it is in
SQL_AS_DATA = {("rules/demo.py", "CREATE TABLE orders")}  # a file of the demo repository
DRIVER_CALLS = {"connect", "execute", "executemany", "executescript", "fetchone", "fetchall", "cursor"}


def _modules() -> Iterator[Path]:
    yield from sorted(SRC.rglob("*.py"))


def _dotted(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _exists(dotted: str) -> bool:
    base = SRC.parent.joinpath(*dotted.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _imports_of(source: str, module: str, is_package: bool) -> list[tuple[str, int]]:
    """Every Lore module `source` (the text of `module`) imports, relative imports resolved,
    each with its line; lazy imports inside functions count too."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            for alias in node.names:  # `from lore.history import for_agents` names a module
                sub = f"{target}.{alias.name}"
                found.append((sub if _exists(sub) else target, node.lineno))
    return [(n, line) for n, line in found if n == "lore" or n.startswith("lore.")]


def _imports(path: Path) -> list[tuple[str, int]]:
    return _imports_of(path.read_text(encoding="utf-8"), _dotted(path), path.name == "__init__.py")


def _layer(path: Path) -> str:
    return path.relative_to(SRC).parts[0]


def is_store_module(path: Path) -> bool:
    """A module of core or a domain that may hold SQL; an interface module never is one, whatever
    its name (`cli/store.py` is the `lore store` command)."""
    rel = path.relative_to(SRC)
    return _layer(path) not in INTERFACES and (
        path.name in ("store.py", "migrations.py")
        or path.stem.endswith("_store")
        or "store" in rel.parts[:-1]
        or "migrations" in rel.parts[:-1]
    )


def _strings(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """String literals (an f-string whole, its holes blanked), docstrings left out."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
        if isinstance(node, ast.JoinedStr):  # its pieces are read with it, not on their own
            docstrings.update(id(v) for v in node.values)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else " x " for v in node.values)
            yield text, node.lineno
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.value, node.lineno


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(SRC)}:{line}"


# -- imports ------------------------------------------------------------------------------------


def test_relative_imports_are_resolved() -> None:
    """The walk must see `from ..x import y` and `from . import x`, not only absolute imports."""
    source = "from ..store import Cap\nfrom . import groups\nfrom .. import library\nimport json\n"
    assert _imports_of(source, "lore.books.names.finder", False) == [
        ("lore.books.store", 1),
        ("lore.books.names.groups", 2),
        ("lore.books.library", 3),
    ]
    assert _imports_of("from .sqlite import Store\n", "lore.core.store", True) == [
        ("lore.core.store.sqlite", 1)
    ]


def test_imports_only_go_down() -> None:
    wrong = []
    for path in _modules():
        layer = _layer(path)
        for name, line in _imports(path):
            parts = name.split(".")
            target = parts[1] if len(parts) > 1 else ""
            if layer == "core" and target in DOMAINS + INTERFACES:
                wrong.append(f"{_where(path, line)} imports {name} (core knows no domain or interface)")
            if layer in DOMAINS and target in INTERFACES:
                wrong.append(f"{_where(path, line)} imports {name} (a domain imports no interface)")
            crossing = layer in DOMAINS and target in DOMAINS and target != layer
            if crossing and (layer, ".".join(parts[1:3])) not in ALLOWED_CROSS:
                wrong.append(
                    f"{_where(path, line)} imports {name} (domains meet only through {ALLOWED_CROSS})"
                )
    assert not wrong, "layering broken:\n" + "\n".join(wrong)


# -- SQL and the driver -------------------------------------------------------------------------


def test_sql_lives_only_in_store_modules() -> None:
    offenders = []
    for path in _modules():
        if is_store_module(path):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = str(path.relative_to(SRC))
        offenders += [
            f"{_where(path, line)}: {text[:60]!r}"
            for text, line in _strings(tree)
            if SQL.search(text) and not any(rel == f and text.startswith(t) for f, t in SQL_AS_DATA)
        ]
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in DRIVER_CALLS
            ):
                offenders.append(f"{_where(path, node.lineno)}: calls .{node.func.attr}()")
    assert not offenders, "SQL outside store modules:\n" + "\n".join(offenders)


def test_the_sql_check_sees_sql() -> None:
    """The detector above catches the shapes SQL takes here, and not English."""
    caught = [
        'conn.execute("SELECT id FROM t")',
        'q = f"SELECT {cols} FROM {table} WHERE id = ?"',
        'x = ("INSERT OR IGNORE INTO t (a) " "VALUES (?)")',
        'x = "UPDATE t SET a = 1"',
        'x = "DELETE FROM t"',
        'x = "CREATE TABLE t (a)"',
    ]
    for source in caught:
        assert any(SQL.search(s) for s, _ in _strings(ast.parse(source))), source
    missed = ['"""Select the rows from the table."""', 'msg = "select a book from the list"']
    for source in missed:
        assert not any(SQL.search(s) for s, _ in _strings(ast.parse(source))), source


def test_only_store_modules_import_the_driver() -> None:
    offenders = []
    for path in _modules():
        if is_store_module(path):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if any(n.split(".")[0] in DRIVERS for n in names):
                offenders.append(_where(path, node.lineno))
    assert not offenders, f"a database driver imported outside store modules: {offenders}"


# -- the store shape ------------------------------------------------------------------------------


def _public_functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef]]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            yield node.name, node
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                    yield f"{node.name}.{item.name}", item


def test_store_methods_hand_out_no_driver_types() -> None:
    """Public store functions and methods say what they return, and it is never a driver row,
    cursor or connection; nor do they ask callers for a connection."""
    offenders = []
    for path in _modules():
        if not is_store_module(path) or path in BACKENDS:
            continue
        for name, fn in _public_functions(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{_where(path, fn.lineno)} {name}"
            if fn.returns is None and name.rpartition(".")[2] != "__init__":
                offenders.append(f"{where}: no return annotation")
            elif fn.returns is not None and DRIVER_NAMES.search(ast.unparse(fn.returns)):
                offenders.append(f"{where} returns {ast.unparse(fn.returns)}")
            for arg in fn.args.args + fn.args.kwonlyargs:
                if arg.annotation is not None and DRIVER_NAMES.search(ast.unparse(arg.annotation)):
                    offenders.append(f"{where} takes {arg.arg}: {ast.unparse(arg.annotation)}")
    assert not offenders, "store API leaks the driver:\n" + "\n".join(offenders)


def test_store_modules_and_migrations_import_no_application_code() -> None:
    """Migrations are frozen: they (and the store modules holding them) never import logic that
    can change later, at the top or lazily inside a function."""
    offenders = []
    for path in _modules():
        if not is_store_module(path):
            continue
        layer = _layer(path)
        own = (f"lore.{layer}.models",) if layer in DOMAINS else ()
        for name, line in _imports(path):
            target = SRC.parent.joinpath(*name.split("."))
            module_file = (
                target.with_suffix(".py") if target.with_suffix(".py").exists() else target / "__init__.py"
            )
            own_store = (
                name.startswith(f"lore.{layer}.") and module_file.exists() and is_store_module(module_file)
            )
            allowed = (
                name.startswith(STORE_MAY_IMPORT)
                or name in own
                or own_store
                or (path in BACKENDS and name.startswith(BACKEND_MAY_IMPORT))
            )
            if not allowed:
                offenders.append(f"{_where(path, line)} imports {name}")
    assert not offenders, "store modules import application code:\n" + "\n".join(offenders)
