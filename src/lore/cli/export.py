"""`lore export`: the active rules written in a client's own file format, for clients without MCP."""

from __future__ import annotations

from pathlib import Path

import typer

from lore.cli.common import console, err_console, handle_errors, print_json
from lore.rules import service
from lore.rules.export import TARGETS, export_rules

app = typer.Typer()


@app.command("export")
@handle_errors
def export_cmd(
    name: str = typer.Option(None, "--name", "-n", help="Project name (default: this folder's)."),
    to: str = typer.Option(..., "--to", help=f"Client format: {', '.join(TARGETS)}."),
    out: Path = typer.Option(None, "--out", help="Folder to write under (default: the project root)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Write the active rules in a client's format (for clients without MCP).

    The written block is marked as generated; rules that came from the file being
    written are not written into it again."""
    project = service.find_project(name)
    result = export_rules(project, to, out)
    if as_json:
        print_json(result.to_dict())
        return
    for path in result.written:
        console.print(f"wrote     {path}", highlight=False, markup=False)
    for path in result.unchanged:
        console.print(f"unchanged {path}", highlight=False, markup=False)
    for path in result.removed:
        console.print(f"removed   {path}", highlight=False, markup=False)
    left_out = (
        f"; {result.left_out} left out: the client already reads them from its own files"
        if result.left_out
        else ""
    )
    console.print(
        f"{result.rules} active rule(s) of {project.name} exported for {to}{left_out}.",
        highlight=False,
        markup=False,
    )
    if not result.rules and not result.left_out:
        err_console.print("note: no active rules yet; approve some with `lore review approve ID`.")
