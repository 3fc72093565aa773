"""`lore history blame | pickaxe`: the history of lines: the commit, PR and issues behind one line,
and when a string appeared or vanished.

Paths, subjects, names and titles come from the repository and are shown as plain `Text`,
never parsed as Rich markup: `pages/[id].tsx` keeps its brackets, `dependabot[bot]` its
suffix, and a subject holding `[/api]` cannot break the table.
"""

from __future__ import annotations

import typer
from rich.table import Table
from rich.text import Text

from lore.cli.common import console, handle_errors, print_json
from lore.cli.history import JSON_OPT, REPO_OPT, clip, day, in_repo
from lore.core.errors import InvalidInput
from lore.history import lines as line_queries
from lore.history.repos import resolve_repo

app = typer.Typer()


@app.command("blame")
@handle_errors
def blame(
    target: str = typer.Argument(..., help="FILE:LINE, e.g. src/app.py:42."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """The story of one line: the commit that last changed it, its PR, the issues it closed."""
    path, sep, number = target.rpartition(":")
    if not sep or not number.isdigit():
        raise InvalidInput(f"give FILE:LINE, not {target!r}")
    row = resolve_repo(repo)
    data = line_queries.line_history(row, in_repo(row, path), int(number))
    if as_json:
        print_json(data)
        return
    c = data["commit"]
    console.print(Text.assemble((f"{data['path']}:{data['line']}", "bold"), f"  {data['text']}"))
    if not c["stored"]:
        console.print(Text(f"{c['sha'][:12]} (not ingested yet: run `lore history ingest`)", "yellow"))
        return
    console.print(
        Text.assemble((c["sha"][:12], "cyan"), f" {c['subject']} — {c['author']}, {day(c['when'])}")
    )
    if c["body"]:
        console.print(Text(clip(c["body"], 10), style="dim"))
    if c["pr"]:
        console.print(Text(f"PR #{c['pr']} {c.get('pr_title') or ''}".rstrip()))
    for n in c["issues"]:
        console.print(Text(f"closes issue #{n} {c['issue_titles'].get(n, '')}".rstrip()))


@app.command("pickaxe")
@handle_errors
def pickaxe(
    needle: str = typer.Argument(..., help="The exact string to look for."),
    path: str = typer.Option(None, "--path", help="Only in this file."),
    limit: int = typer.Option(50, "--limit", "-n", min=1, help="At most N commits."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """When a string appeared or vanished (git log -S), oldest first."""
    row = resolve_repo(repo)
    data = line_queries.pickaxe(row, needle, path=in_repo(row, path) if path else None, limit=limit)
    if as_json:
        print_json(data)
        return
    table = Table("when", "change", "commit", "files", title=Text(f"{needle!r}: {data['total']} commits"))
    for c in data["commits"]:
        what = Text.assemble((c["sha"][:10], "cyan"), f" {c.get('subject', '')}")
        table.add_row(day(c.get("when")), c["change"], what, Text(", ".join(c["files"][:3])))
    console.print(table)
