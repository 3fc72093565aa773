"""The root command group: lists every command from a static table, imports one when it runs.

Start-up is a feature: agents and people run `lore` many times a day, and importing every
domain (books, the model client, httpx, numpy) made `lore --help` take over a second. Here a
command's module is imported only when that command is resolved, and `--help` is written from
the table below, so it imports nothing but Typer. `tests/cli/test_help.py` checks that each
line of the table is the loaded command's own one-line help, so the two cannot drift apart.

Every command loaded here also gets Typer's plain help (no rich panels): the rich renderer
costs 0.2 s to import and prints `<bool>` after every flag.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperGroup


@dataclass(frozen=True)
class Entry:
    """One top-level command: where it lives and what `lore --help` says about it.

    `attr` is the module's Typer `app` (a command group) or a `register(root)` function that
    adds the command to a Typer; `also` are modules that add subcommands to that group."""

    section: str
    help: str
    module: str
    attr: str = "app"
    also: tuple[str, ...] = ()


RULES, HISTORY, BOOKS, SETUP = "Rules", "History", "Books", "Setup"
SECTIONS = (RULES, HISTORY, BOOKS, SETUP)

COMMANDS: dict[str, Entry] = {
    "demo": Entry(
        RULES,
        "Show what an agent is sent, a repository's history asked why, and a cited book answer.",
        "projects",
        "register_top_level",
    ),
    "projects": Entry(RULES, "Register and list projects (git repositories Lore knows).", "projects"),
    "review": Entry(
        RULES,
        "Review a project's rules: list, add, approve, reject, pin, resolve, usage, lint.",
        "review",
        also=("review_lint",),
    ),
    "memorize": Entry(
        RULES, "Import the instruction files of a repository as pending rules.", "rules_files", "register"
    ),
    "discover": Entry(
        RULES,
        "Find the conventions the code follows and save them as pending rules.",
        "rules_files",
        "register",
    ),
    "learn": Entry(
        RULES, "Save repeated pull-request review feedback as pending rules.", "rules_files", "register"
    ),
    "train": Entry(RULES, "Turn your own documents into rules, active at once.", "rules_files", "register"),
    "export": Entry(
        RULES,
        "Write the active rules in a client's format (for clients without MCP).",
        "rules_files",
        "register",
    ),
    "serve": Entry(
        RULES,
        "Serve the web app (rules, books, history) on 127.0.0.1 with a token for this run"
        " (with --mcp, the connector too).",
        "serve",
    ),
    "history": Entry(
        HISTORY,
        "Engineering history: a graph of commits, files, PRs, issues and people.",
        "history_ingest",
        also=("history", "history_decisions", "history_why", "history_owners"),
    ),
    "books": Entry(
        BOOKS,
        "Books: import EPUB/PDF/text, set your reading position, search spoiler-free.",
        "books",
        also=("books_ask",),
    ),
    "install": Entry(
        SETUP,
        "Register `lore mcp` with Claude Code, Copilot CLI, Cursor, VS Code and Codex.",
        "install",
        "register",
    ),
    "uninstall": Entry(
        SETUP, "Remove Lore's server entry and instruction block from agent clients.", "install", "register"
    ),
    "model": Entry(SETUP, "Language models and embedders: setup, a test call, the cache, the bill.", "model"),
    "store": Entry(SETUP, "The store: what it holds, and moving it into PostgreSQL.", "database"),
}


def load(name: str) -> Any:
    """Import the module of command `name` and build its click command."""
    entry = COMMANDS[name]
    module = importlib.import_module(f"lore.cli.{entry.module}")
    target = getattr(module, entry.attr)
    command: Any  # a group for a Typer app, a single command for a registering function
    if isinstance(target, typer.Typer):
        command = typer.main.get_group(target)
        if entry.also:  # the subcommands of `also` modules are added when first asked for
            command.__class__ = _GroupWithLater
            command.later = (target, entry.also)
            command.modules = (entry.module, *entry.also)
    else:
        holder = typer.Typer(add_completion=False)
        target(holder)
        built = typer.main.get_command(holder)
        command = built.commands[name] if isinstance(built, TyperGroup) else built
    command.name = name
    return plain_help(command)


class _GroupWithLater(TyperGroup):
    """A command group whose `also` modules are imported only when one of their subcommands
    (or the list of all of them) is asked for: `lore history ingest` loads neither the query
    commands nor the model client that `history why` and `history extract` need, nor does
    `books list` load the answering stack.

    `load` gives an already built group this class; `later` is (its Typer app, the modules)."""

    later: tuple[typer.Typer, tuple[str, ...]] | None = None
    modules: tuple[str, ...] = ()  # the group's own module, then its `also` modules

    def _load_later(self) -> None:
        if self.later is None:
            return
        app, modules = self.later
        self.later = None
        for extra in modules:
            importlib.import_module(f"lore.cli.{extra}")
        for sub_name, sub in typer.main.get_group(app).commands.items():
            if sub_name not in self.commands:
                self.add_command(plain_help(sub), sub_name)

    def list_commands(self, ctx: Any) -> list[str]:
        """The subcommands module by module in the table's order, each module's in the order it
        declares them, whichever of those modules a process happened to import first."""
        self._load_later()
        modules = [f"lore.cli.{name}" for name in self.modules]
        names = super().list_commands(ctx)

        def rank(name: str) -> int:
            module = getattr(self.commands[name].callback, "__module__", "")
            return modules.index(module) if module in modules else len(modules)

        return sorted(names, key=rank)  # stable: each module's own order is kept

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands:
            self._load_later()
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
