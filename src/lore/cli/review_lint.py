"""`lore review --name NAME lint`: dead scopes, duplicates, contradictions, untagged rules and the
token cost of always-rules. Exit code 1 when there is a warning, so it can gate CI."""

from __future__ import annotations

import typer

from lore.cli import common, review
from lore.cli.common import esc, handle_errors, print_json

app = typer.Typer()


@app.command("lint")
@handle_errors
def lint(
    ctx: typer.Context,
    pending: bool = typer.Option(False, "--pending", help="Check pending rules too, not only active ones."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Check the rules as a set: dead scopes, duplicates, contradictions, untagged, always cost."""
    # imported here: the checks (contradictions, normalising) and rich's tables are not worth
    # loading for every `lore review` command, `resolve` above all
    from rich.table import Table

    from lore.rules.lint import ALWAYS_BUDGET, lint_rules

    report = lint_rules(review.project_of(ctx), include_pending=pending)
    if as_json:
        print_json(report.to_dict())
    else:
        if report.findings:
            table = Table("", "check", "finding", title=f"lint {report.project.name}")
            for f in report.findings:
                mark = "[yellow]warning[/yellow]" if f.severity == "warning" else "[dim]info[/dim]"
                table.add_row(mark, f.kind, esc(f.message))
            common.console.print(table)
        common.console.print(
            f"{report.rules} rule(s) checked; always-rules cost about {report.always_tokens} "
            f"tokens per request (budget {ALWAYS_BUDGET}); {len(report.warnings)} warning(s).",
            highlight=False,
        )
    if report.warnings:
        raise typer.Exit(1)
