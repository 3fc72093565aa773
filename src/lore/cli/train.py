"""`lore train`: the user's own documents turned into rules, active at once."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from lore.cli.common import add_row, console, existing, handle_errors, print_json
from lore.rules import service
from lore.rules.intake.train import train

app = typer.Typer()


@app.command("train")
@handle_errors
def train_cmd(
    files: list[Path] = typer.Argument(..., help="Markdown or text documents (style guide, design doc)."),
    name: str = typer.Option(None, "--name", "-n", help="Project name (default: this folder's)."),
    scope: str = typer.Option(None, "--scope", help="Scope for every rule (default: global)."),
    force: bool = typer.Option(False, "--force", help="Keep a scope naming a folder the project lacks."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Turn your own documents into rules, active at once.

    They are active because you chose them."""
    from lore.cli.review import check_scope

    documents = [existing(f) for f in files]
    project = service.find_project(name)
    check_scope(project, scope, force)
    report = train(project, documents, scope)
    if as_json:
        print_json(report.to_dict())
        return
    table = Table(
        "document",
        "pieces",
        "new",
        "merged",
        "known",
        "refused",
        title=f"train → project {report.project.name}",
    )
    for f in report.files:
        add_row(
            table,
            f.path,
            str(len(f.candidates)),
            str(f.added),
            str(f.merged),
            str(f.repeats),
            str(len(f.refused)),
        )
    console.print(table)
    for f in report.files:
        for line in [*f.refused, *f.notes, *(f"front matter: {p}" for p in f.problems)]:
            console.print(f"[yellow]{escape(f.path)}[/yellow]: {escape(line)}", highlight=False)
    console.print(
        f"{len(report.saved.added)} new active rule(s). See: lore review --name {report.project.name} list",
        highlight=False,
        markup=False,
    )
