"""No CLI command writes to the terminal except through `lore.cli.common`.

`common` is where stored text is made terminal-safe; a command that printed with `print`,
`typer.echo` or `sys.stdout` directly would bypass it, so this test reads every module."""

import ast
from pathlib import Path

import lore.cli

CLI = Path(lore.cli.__file__).parent
# common makes text safe; app and entry print only Lore's own version (without importing rich)
ALLOWED = {"common.py", "app.py", "entry.py"}


def _direct_writes(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = ast.unparse(func)
            if name in ("print", "typer.echo", "click.echo", "typer.secho") or name.startswith(
                ("sys.stdout.", "sys.stderr.")
            ):
                found.append(f"{path.name}:{node.lineno} {name}")
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("Console", "rich.console.Console"):
            found.append(f"{path.name}:{node.lineno} a Console of its own")
    return found


def test_commands_print_only_through_common() -> None:
    offenders = [
        hit for path in sorted(CLI.glob("*.py")) if path.name not in ALLOWED for hit in _direct_writes(path)
    ]
    assert offenders == []


def test_the_check_sees_a_direct_write(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import sys, typer\ntyper.echo('x')\nsys.stdout.write('y')\nprint(1)\n")
    assert len(_direct_writes(sample)) == 3
