"""`lore install`: register Lore's MCP server with agent clients; how a change to their files is
shown, which `lore uninstall` shares."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from lore.cli.common import console, echo, err_console, handle_errors, print_json
from lore.install import service
from lore.install.changes import InstallReport
from lore.install.clients import CLIENTS

app = typer.Typer()

_CLIENT_HELP = (
    f"Client(s) to act on: {', '.join(CLIENTS)} or all (repeat or comma-separate). "
    "Default: the clients found on this machine."
)


def tilde(path: object) -> str:
    text, home = str(path), str(Path.home())
    return "~" + text[len(home) :] if home != "/" and text.startswith(home + "/") else text


def render(report: InstallReport, verb: str) -> None:
    if report.dry_run:
        for change in report.changes:
            if change.changed:
                console.print(
                    f"[bold]{change.client}[/bold] {change.action}: {escape(str(change.path))}",
                    highlight=False,
                )
                echo(change.diff())
    table = Table(
        "client", "file", "change", "backup", title=f"lore {verb}" + (" (dry run)" if report.dry_run else "")
    )
    for change in report.changes:
        action = change.action if not change.error else f"[red]error[/red]: {escape(change.error)}"
        if report.dry_run and change.changed:
            action = f"would be {change.action}"
        table.add_row(change.client, escape(tilde(change.path)), action, escape(tilde(change.backup or "-")))
    console.print(table)


@app.command("install")
@handle_errors
def install_cmd(
    client: list[str] = typer.Option(None, "--client", "-c", help=_CLIENT_HELP),
    approval: str = typer.Option(
        None, "--approval", help="auto: screened rules agents save are activated; manual: they wait."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the changes as diffs; write nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Register `lore mcp` with Claude Code, Copilot CLI, Cursor, VS Code and Codex."""
    report = service.install(client, approval, dry_run)
    if as_json:
        print_json(report.to_dict())
    else:
        console.print(
            f"server: {' '.join(report.command)}   approval: {report.approval}   ({report.how_chosen})",
            highlight=False,
        )
        render(report, "install")
        if not report.dry_run and not report.failed:
            console.print(
                "Restart the client (or start a new session); its agent now calls "
                "Lore's get_rules before editing.",
                highlight=False,
            )
    if report.failed:
        err_console.print(f"{len(report.failed)} client file(s) were left unchanged; see above.")
        raise typer.Exit(1)
