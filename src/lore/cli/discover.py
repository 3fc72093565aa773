"""`lore discover`: the conventions the code and its tool configuration follow, saved as pending
rules (or only shown with `--dry-run`)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from lore.cli.common import add_row, console, existing, handle_errors, print_json
from lore.rules.intake.candidates import Candidate
from lore.rules.intake.discover import discover, discover_conventions

app = typer.Typer()


def _candidate_table(title: str, candidates: list[Candidate], status: dict[str, str] | None = None) -> Table:
    table = Table("convention", "rule", "scope", "evidence", *(["saved"] if status else []), title=title)
    for c in candidates:
        ev = c.evidence[0] if c.evidence else {}
        where = ev.get("ratio", "")
        if ev.get("kind") == "config":
            where = f"{ev.get('file')}: {ev.get('setting')}"
        row = [c.kind, c.text, ", ".join(c.scope) or "global", str(where)]
        if status:
            row.append(status.get(c.key, ""))
        add_row(table, *row)
    return table


@app.command("discover")
@handle_errors
def discover_cmd(
    path: Path = typer.Argument(Path("."), help="The repository."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the candidates; save nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Find the conventions the code follows and save them as pending rules.

    A convention counts when at least 90% of at least 5 files follow it, or when the
    repository's tool configuration declares it."""
    existing(path)
    if dry_run:
        candidates = discover_conventions(path)
        if as_json:
            print_json({"candidates": [c.to_dict() for c in candidates]})
        else:
            console.print(_candidate_table("discover (dry run)", candidates))
        return
    project, candidates, saved = discover(path)
    if as_json:
        print_json(
            {
                "project": project.name,
                "candidates": [c.to_dict() for c in candidates],
                "added": [r.id for r in saved.added],
                "repeats": saved.repeats,
            }
        )
        return
    added = {r.text for r in saved.added}
    status = {
        c.key: ("new " + next((r.id for r in saved.added if r.text == c.text.strip()), ""))
        if c.text.strip() in added
        else "known"
        for c in candidates
    }
    console.print(_candidate_table(f"discover → project {project.name}", candidates, status))
    console.print(
        f"{len(saved.added)} new pending rule(s), {saved.repeats} already known. "
        f"Review: lore review --name {project.name} list --pending",
        highlight=False,
        markup=False,
    )
