"""`lore projects`: register and list projects."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape as esc
from rich.table import Table

from lore.cli.common import console, existing, handle_errors, print_json
from lore.rules import service

app = typer.Typer(
    help="Register and list projects (git repositories Lore knows).",
    invoke_without_command=True,
    no_args_is_help=False,
)


@app.callback()
@handle_errors
def projects(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List registered projects (or use a subcommand)."""
    if ctx.invoked_subcommand:
        return
    items = service.list_projects()
    if as_json:
        print_json([p.to_dict() for p in items])
        return
    if not items:
        console.print("No projects yet. Register one with `lore projects add PATH`.")
        return
    table = Table("name", "path", "sections", "rules (active/pending)")
    for p in items:
        rules = service.list_rules(p)
        active = sum(r.status == "active" for r in rules)
        table.add_row(
            esc(p.name),
            esc(str(p.path)),
            esc(", ".join(p.sections)) or "-",
            f"{active}/{len(rules) - active}",
        )
    console.print(table)


@app.command("add")
@handle_errors
def add(
    path: Path = typer.Argument(Path("."), help="A folder or file inside the git repository."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Register the git repository holding PATH and print its name."""
    project, new = service.register_project(existing(path))
    if as_json:
        print_json({**project.to_dict(), "new": new})
        return
    verb = "registered" if new else "already registered"
    console.print(f"{esc(project.name)}  ({verb}: {esc(str(project.path))})", highlight=False)


@app.command("refresh")
@handle_errors
def refresh(name: str = typer.Argument(None, help="Project name (default: this folder's).")) -> None:
    """Rebuild a project's map of sections after folders changed."""
    project = service.refresh_map(service.find_project(name))
    console.print(
        f"{esc(project.name)}: sections {esc(', '.join(project.sections)) or '(none)'}", highlight=False
    )
