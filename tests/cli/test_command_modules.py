"""Every command is registered one way: the module named after it exposes a Typer `app`.

`lore store` lives in `cli/store.py`, `lore history why` in a part of the `history` group named
`history_why`; a part never reaches into another module's app. Modules that are no command are
named below with what they do, so a newcomer finds a command by its name.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import typer

import lore.cli
from lore.cli.lazy import COMMANDS

CLI = Path(lore.cli.__file__).parent

# modules of the CLI that hold no command, and why they exist
HELPERS = {
    "__init__": "the package",
    "app": "the root `lore` group, `lore version` and `lore mcp`",
    "entry": "the console script, which skips the app for `lore mcp` and `--version`",
    "lazy": "the table of commands, each imported on first use",
    "common": "output, JSON and error translation every command shares",
    "consoles": "the terminal-safe rich consoles, made on first use",
    "coercion": "Typer's value checks skipped for values that need none",
    "model_use": "what the commands that call a model share",
    "ingest_bar": "the progress bar of `lore history ingest` on a terminal",
    "review_bulk": "approving or rejecting many rules at once, for `lore review`",
    "quick": "`lore history why` run without Typer when its arguments are plain",
    "why_view": "what `lore history why` prints, for its command and the quick path",
    "review_risk": "the screening gate's verdict on pending rules, shown and asked about by `lore review`",
}


def _modules_of_commands() -> set[str]:
    return {module for name, entry in COMMANDS.items() for module in (name, *entry.parts)}


def test_each_command_and_part_is_a_module_named_after_it_with_an_app() -> None:
    for name, entry in COMMANDS.items():
        for module in (name, *entry.parts):
            assert module == name or module.startswith(f"{name}_"), (name, module)
            app = importlib.import_module(f"lore.cli.{module}").app
            assert isinstance(app, typer.Typer), module


def test_every_module_is_a_command_or_a_named_helper() -> None:
    found = {path.stem for path in CLI.glob("*.py")}
    assert found - set(HELPERS) == _modules_of_commands()
    assert not _modules_of_commands() & set(HELPERS)


def test_no_module_adds_commands_to_another_modules_app() -> None:
    for path in CLI.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert ".app.command(" not in text and "root.command(" not in text, path.name
