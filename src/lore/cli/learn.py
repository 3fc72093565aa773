"""`lore learn`: repeated pull-request review feedback from GitHub, saved as pending rules (or only
shown with `--dry-run`)."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.table import Table

from lore.cli.common import add_row, console, err_console, existing, handle_errors, print_json
from lore.rules.intake.candidates import Candidate
from lore.rules.intake.learn import learn, learn_from_reviews

app = typer.Typer()


def _feedback_table(title: str, candidates: list[Candidate]) -> Table:
    table = Table("times", "feedback", "scope", "where", title=title)
    for c in candidates:
        where = "; ".join(
            f"#{e.get('pr')} {e.get('file')}:{e.get('line')} ({e.get('author')})" for e in c.evidence[:3]
        )
        add_row(
            table,
            str(len(c.evidence)),
            c.text,
            ", ".join(c.scope) or "global",
            where + (f"; +{len(c.evidence) - 3} more" if len(c.evidence) > 3 else ""),
        )
    return table


@app.command("learn")
@handle_errors
def learn_cmd(
    path: Path = typer.Argument(Path("."), help="The repository (its `origin` is on GitHub)."),
    include_external: bool = typer.Option(
        False, "--include-external", help="Also count comments by people outside the repository."
    ),
    since: str = typer.Option(None, "--since", help="Only comments from this date on (2024-01-31)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the grouped feedback; save nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Save repeated pull-request review feedback as pending rules.

    Reads PR review comments by owners, members and collaborators (on GitHub) and saves
    the feedback given most often first."""

    def wait(seconds: float, reason: str) -> None:
        err_console.print(f"waiting {seconds:.0f}s: {reason}", highlight=False, markup=False)
        time.sleep(seconds)

    existing(path)
    if dry_run:
        candidates = learn_from_reviews(path, include_external, since, sleep=wait)
        if as_json:
            print_json({"candidates": [c.to_dict() for c in candidates]})
        else:
            console.print(_feedback_table("learn (dry run)", candidates))
        return
    project, candidates, saved = learn(path, include_external, since, sleep=wait)
    if as_json:
        print_json(
            {
                "project": project.name,
                "candidates": [c.to_dict() for c in candidates],
                "added": [r.id for r in saved.added],
                "merged": len(saved.merged),
                "repeats": saved.repeats,
            }
        )
        return
    console.print(_feedback_table(f"learn → project {project.name}", candidates))
    console.print(
        f"{len(saved.added)} new pending rule(s), {len(saved.merged)} with new evidence, "
        f"{saved.repeats} already known. Review: lore review --name {project.name} list "
        "--pending --details",
        highlight=False,
        markup=False,
    )
