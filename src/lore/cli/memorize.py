"""`lore memorize`: a repository's instruction files (AGENTS.md, CLAUDE.md, ...) imported as
pending rules, with what each file gave."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from lore.cli.common import add_row, console, existing, handle_errors, print_json
from lore.rules.intake.memorize import memorize

app = typer.Typer()


def _short(items: list[str], limit: int = 3) -> str:
    shown = "; ".join(items[:limit])
    return shown + (f"; +{len(items) - limit} more" if len(items) > limit else "")


@app.command("memorize")
@handle_errors
def memorize_cmd(
    path: Path = typer.Argument(Path("."), help="The repository (or one instruction file)."),
    details: bool = typer.Option(False, "--details", help="List every note and refusal."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Import the instruction files of a repository as pending rules.

    Reads AGENTS.md, CLAUDE.md and the Copilot, Cursor, Windsurf and Cline instruction
    files; approve the rules with `lore review`."""
    report = memorize(existing(path))
    if as_json:
        print_json(report.to_dict())
        return
    if not report.files:
        console.print(f"No instruction files found in {report.project.path}.", highlight=False, markup=False)
        return
    table = Table(
        "file",
        "kind",
        "scope",
        "pieces",
        "new",
        "merged",
        "known",
        "refused",
        title=f"memorize → project {report.project.name}",
    )
    for f in report.files:
        scope = ", ".join(f.scope) or "global"
        if f.skipped:
            add_row(table, f.path, f.kind, scope, "-", "-", "-", "-", "-")
            continue
        add_row(
            table,
            f.path,
            f.kind,
            scope,
            str(len(f.candidates)),
            str(f.added),
            str(f.merged),
            str(f.repeats),
            str(len(f.refused)),
        )
    console.print(table)
    for f in report.files:
        lines = (
            ([f"skipped: {f.skipped}"] if f.skipped else [])
            + [f"front matter: {p}" for p in f.problems]
            + [f"refused {r}" for r in f.refused]
            + f.notes
        )
        if lines:
            text = "\n  ".join(lines) if details else _short(lines)
            console.print(f"[yellow]{escape(f.path)}[/yellow]: {escape(text)}", highlight=False)
    s = report.saved
    console.print(
        f"{len(s.outcomes)} piece(s): {s.count('new')} new pending rule(s), {s.count('merged')} merged "
        f"into another rule, {s.count('known')} already known, {s.count('refused')} refused. "
        f"Review: lore review --name {report.project.name} list --pending",
        highlight=False,
    )
