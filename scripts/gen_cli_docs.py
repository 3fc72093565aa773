#!/usr/bin/env python3
"""Write docs/cli.md, the command reference, from the CLI's own help.

Why generated: a hand-written reference drifts from the code the first time an option is added;
this one is read off the command tree itself (every command, its help, arguments and options),
and tests/scripts/test_cli_docs.py fails when the committed file is stale.

It walks the tree only through click's public API (`Group.list_commands` / `get_command`,
`Command.context_class`, `get_params`), so a lazy group that imports a command's module only when
asked works the same as an eager one. It checks what a command can do rather than its class:
Typer ships its own copy of click, whose classes are not the `click` package's.

Usage: python scripts/gen_cli_docs.py [--check] [--out FILE]
"""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "cli.md"
HEADER = """# Command reference

Generated from `lore --help` by `scripts/gen_cli_docs.py`; do not edit by hand (a test fails when
this file and the commands disagree). Every command also takes `--help`. Errors are one line on
stderr with an exit code: 1 a Lore error, 2 refused input, 3 not found, 4 the store, 5 no model
configured (see [architecture](architecture.md#errors-and-exit-codes)).
"""


def root_command() -> Any:
    """The `lore` command as click sees it, whether the app is a Typer app or a click group."""
    from lore.cli.app import app

    if hasattr(app, "get_params"):  # a click command already
        return app
    import typer.main

    return typer.main.get_command(app)


def _is_group(command: Any) -> bool:
    return hasattr(command, "list_commands") and hasattr(command, "get_command")


def walk(command: Any, path: tuple[str, ...], parent: Any) -> Iterator[tuple[tuple[str, ...], Any, Any]]:
    """Every visible command below `command`, depth first, in the order the group lists them."""
    ctx = command.context_class(command, info_name=path[-1], parent=parent)
    yield path, command, ctx
    if _is_group(command):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            yield from walk(sub, (*path, name), ctx)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _rows(params: list[Any], ctx: Any) -> list[str]:
    """A table row per parameter, from the same help record `--help` prints."""
    rows = []
    for param in params:
        record = param.get_help_record(ctx)
        if record is None:  # plain click arguments have none; name them at least
            record = (param.make_metavar(ctx), "")
        names, help_text = record
        rows.append(f"| `{_cell(names)}` | {_cell(help_text)} |")
    return rows


def render_command(path: tuple[str, ...], command: Any, ctx: Any) -> str:
    """One command's section: title, usage, help, arguments and options."""
    title = " ".join(path)
    lines = [f"## `{title}`", ""]
    usage = " ".join(command.collect_usage_pieces(ctx))
    lines += ["```", f"{title} {usage}".rstrip(), "```", ""]
    help_text = inspect.cleandoc(command.help or command.short_help or "")
    if help_text:
        lines += [help_text, ""]
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    arguments = [p for p in params if p.param_type_name == "argument"]
    options = [p for p in params if p.param_type_name == "option" and p.name != "help"]
    if arguments:
        lines += ["| argument | help |", "| --- | --- |", *_rows(arguments, ctx), ""]
    if options:
        lines += ["| option | help |", "| --- | --- |", *_rows(options, ctx), ""]
    if _is_group(command):
        subs = [n for n in command.list_commands(ctx) if (c := command.get_command(ctx, n)) and not c.hidden]
        lines += ["Commands: " + ", ".join(f"[`{n}`](#{_anchor((*path, n))})" for n in subs), ""]
    return "\n".join(lines)


def _anchor(path: tuple[str, ...]) -> str:
    """The heading anchor GitHub makes for `## \\`lore a b\\``."""
    return "-".join(path).lower()


def render() -> str:
    """The whole reference: a contents list, then one section per command."""
    entries = list(walk(root_command(), ("lore",), None))
    contents = [f"- [`{' '.join(p)}`](#{_anchor(p)})" for p, _c, _x in entries[1:]]
    sections = [render_command(p, c, x) for p, c, x in entries]
    return "\n".join([HEADER, *contents, "", *sections]).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/cli.md from the CLI's help.")
    parser.add_argument("--check", action="store_true", help="fail if the file is stale; write nothing")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    text = render()
    current = args.out.read_text(encoding="utf-8") if args.out.exists() else None
    if args.check:
        if current != text:
            print(f"{args.out} is stale: run python scripts/gen_cli_docs.py", file=sys.stderr)
            return 1
        return 0
    if current != text:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
