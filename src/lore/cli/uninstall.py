"""`lore uninstall`: remove Lore's server entry and instruction block from agent clients."""

from __future__ import annotations

import typer
from rich.markup import escape

from lore.cli.common import console, handle_errors, print_json
from lore.cli.install import render, tilde
from lore.install import service

app = typer.Typer()


@app.command("uninstall")
@handle_errors
def uninstall_cmd(
    client: list[str] = typer.Option(None, "--client", "-c", help="Client(s); default: all."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the changes as diffs; write nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Remove Lore's server entry and instruction block from agent clients.

    Everything else in their files stays; folders Lore created and that are now empty
    are removed."""
    report = service.uninstall(client, dry_run)
    if as_json:
        print_json(report.to_dict())
    else:
        render(report, "uninstall")
        for folder in report.folders_removed:
            console.print(f"removed empty folder {escape(tilde(folder))}", highlight=False)
    if report.failed:
        raise typer.Exit(1)
