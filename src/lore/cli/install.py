"""`lore install` / `lore uninstall`: register Lore's MCP server with agent clients."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from lore.cli.common import console, echo, err_console, handle_errors, print_json
from lore.install import service
from lore.install.changes import InstallReport
from lore.install.clients import CLIENTS

_CLIENT_HELP = (
    f"Client(s) to act on: {', '.join(CLIENTS)} or all (repeat or comma-separate). "
    "Default: the clients found on this machine."
)


def _tilde(path: object) -> str:
    text, home = str(path), str(Path.home())
    return "~" + text[len(home) :] if home != "/" and text.startswith(home + "/") else text


def _render(report: InstallReport, verb: str) -> None:
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
        table.add_row(
            change.client, escape(_tilde(change.path)), action, escape(_tilde(change.backup or "-"))
        )
    console.print(table)


def register(root: typer.Typer) -> None:
    @root.command("install")
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
            _render(report, "install")
            if not report.dry_run and not report.failed:
                console.print(
                    "Restart the client (or start a new session); its agent now calls "
                    "Lore's get_rules before editing.",
                    highlight=False,
                )
        if report.failed:
            err_console.print(f"{len(report.failed)} client file(s) were left unchanged; see above.")
            raise typer.Exit(1)

    @root.command("uninstall")
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
            _render(report, "uninstall")
            for folder in report.folders_removed:
                console.print(f"removed empty folder {escape(_tilde(folder))}", highlight=False)
        if report.failed:
            raise typer.Exit(1)
