"""The root command group: lists every command from a static table, imports one when it runs.

Start-up is a feature: agents and people run `lore` many times a day, and importing every
domain (books, the model client, httpx, numpy) for each of them would make even `lore --help`
slow. Here a command's module is imported only when that command is resolved, and `--help` is
written from the table below, so it imports nothing but Typer. `tests/cli/test_help.py` checks
that each line of the table is the loaded command's own one-line help, so the two cannot drift
apart.

Every command loaded here also gets Typer's plain help (no rich panels): the rich renderer is
costly to import and prints `<bool>` after every flag.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, cast

import typer
from typer.core import TyperGroup


@dataclass(frozen=True)
class Entry:
    """One top-level command: what `lore --help` says about it, and the modules of its group.

    Every command lives in the module named after it, `lore.cli.<name>`, whose `app` (a
    `typer.Typer`) is either one command of that name (`lore demo`) or the group (`lore store`).
    `parts` are further modules of a group, `<name>_<sub>`, each with an `app` of its own whose
    commands join the group the first time one of them (or the list of all) is asked for: `lore
    history ingest` loads neither the queries nor the model client that `history why` and
    `history extract` need, nor does `books list` load the answering stack. The group's help
    lists its commands module by module in the order of `parts`, its own module first unless
    `parts` places it."""

    section: str
    help: str
    parts: tuple[str, ...] = ()


RULES, HISTORY, BOOKS, SETUP = "Rules", "History", "Books", "Setup"
SECTIONS = (RULES, HISTORY, BOOKS, SETUP)

COMMANDS: dict[str, Entry] = {
    "demo": Entry(
        RULES, "Show what an agent is sent, a repository's history asked why, and a cited book answer."
    ),
    "projects": Entry(RULES, "Register and list projects (git repositories Lore knows)."),
    "review": Entry(
        RULES,
        "Review a project's rules: list, show, add, approve, reject, pin, resolve, usage, lint.",
        parts=("review_lint",),
    ),
    "memorize": Entry(RULES, "Import the instruction files of a repository as pending rules."),
    "discover": Entry(RULES, "Find the conventions the code follows and save them as pending rules."),
    "learn": Entry(RULES, "Save repeated pull-request review feedback as pending rules."),
    "train": Entry(RULES, "Turn your own documents into rules, active at once."),
    "export": Entry(RULES, "Write the active rules in a client's format (for clients without MCP)."),
    "serve": Entry(
        RULES,
        "Serve the web app (rules, books, history) on 127.0.0.1 with a token for this run"
        " (with --mcp, the connector too).",
    ),
    "history": Entry(
        HISTORY,
        "Engineering history: a graph of commits, files, PRs, issues and people.",
        parts=(
            "history_ingest",
            "history_queries",
            "history_graph",
            "history_lines",
            "history_decisions",
            "history_why",
            "history_owners",
        ),
    ),
    "books": Entry(
        BOOKS,
        "Books: import EPUB/PDF/text, set your reading position, search spoiler-free.",
        parts=("books_characters", "books_search", "books_ask"),
    ),
    "install": Entry(SETUP, "Register `lore mcp` with Claude Code, Copilot CLI, Cursor, VS Code and Codex."),
    "uninstall": Entry(SETUP, "Remove Lore's server entry and instruction block from agent clients."),
    "model": Entry(
        SETUP,
        "Language models and embedders: setup, a test call, the cache, the bill.",
        parts=("model_setup", "model"),
    ),
    "store": Entry(SETUP, "The store: what it holds, and moving it into PostgreSQL."),
}


def _app(module: str) -> typer.Typer:
    """The `app` of `lore.cli.<module>`, imported now."""
    app: typer.Typer = importlib.import_module(f"lore.cli.{module}").app
    return app


def load(name: str) -> Any:
    """Import the module of command `name` and build its click command: the one command its
    `app` holds under that name, or the group its `app` is (its `parts` still to come)."""
    entry = COMMANDS[name]
    group = typer.main.get_group(_app(name))
    command: Any  # one command, or the group
    if not entry.parts and list(group.commands) == [name] and group.callback is None:
        command = group.commands[name]
    else:
        command = _with_parts(group, name, entry.parts) if entry.parts else group
    command.name = name
    return plain_help(command)


def _with_parts(group: TyperGroup, name: str, parts: tuple[str, ...]) -> _GroupWithParts:
    """The group `name`, already built from its own module, made to add its `parts` on demand."""
    group.__class__ = _GroupWithParts
    parted = cast(_GroupWithParts, group)
    parted.pending = [part for part in parts if part != name]
    parted.order = parts if name in parts else (name, *parts)
    parted.origin = dict.fromkeys(group.commands, name)
    return parted


class _GroupWithParts(TyperGroup):
    """A command group whose `parts` modules are imported in the table's order, only until the
    subcommand asked for is found (all of them for the list of every subcommand).

    `load` gives an already built group this class, with `pending` (the parts not imported
    yet), `order` (the modules in the order the help lists their commands) and `origin` (the
    module each command came from)."""

    pending: list[str]
    order: tuple[str, ...]
    origin: dict[str, str]

    def _load_next(self) -> bool:
        """Import the next part and add its commands; False when none is left."""
        if not self.pending:
            return False
        part = self.pending.pop(0)
        for sub_name, sub in typer.main.get_group(_app(part)).commands.items():
            self.add_command(plain_help(sub), sub_name)
            self.origin[sub_name] = part
        return True

    def list_commands(self, ctx: Any) -> list[str]:
        """The subcommands module by module in the table's order, each module's in the order it
        declares them."""
        while self._load_next():
            pass
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: self.order.index(self.origin[n]))  # stable sort

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The subcommand, its own part (`<group>_<name>`, when there is one) imported first, so
        `lore history why` does not load the ingest and the queries on the way."""
        own = f"{self.name}_{cmd_name}"
        if cmd_name not in self.commands and own in self.pending:
            self.pending.remove(own)
            self.pending.insert(0, own)
        while cmd_name not in self.commands and self._load_next():
            pass
        return super().get_command(ctx, cmd_name)


def plain_help(command: Any) -> Any:
    """Give `command` and everything under it Typer's plain help (see the module's docstring)."""
    command.rich_markup_mode = None
    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)
    return command


class LazyGroup(TyperGroup):
    """`lore`: the commands of the table, each imported on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in COMMANDS if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.add_command(load(cmd_name), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The listing of `lore --help`, by section, from the table (nothing is imported)."""
        own = [(n, c.get_short_help_str(200)) for n, c in self.commands.items() if n not in COMMANDS]
        with formatter.section("Commands"):
            formatter.write_dl(own)
        for section in SECTIONS:
            with formatter.section(section):
                formatter.write_dl([(n, e.help) for n, e in COMMANDS.items() if e.section == section])
