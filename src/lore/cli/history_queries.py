"""`lore history repos | remove | stats | churn | hotspots | coupling`: the ingested
repositories, and counts over a history's files.

Paths, subjects, names and titles come from the repository and are shown as plain `Text`,
never parsed as Rich markup: `pages/[id].tsx` keeps its brackets, `dependabot[bot]` its
suffix, and a subject holding `[/api]` cannot break the table.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from lore.cli.common import console, handle_errors, print_json
from lore.cli.history import JSON_OPT, NO_BOTS_OPT, PATH_OPT, REPO_OPT, SINCE_HELP, UNTIL_OPT, day
from lore.history import queries
from lore.history.queries import Filters
from lore.history.repos import all_repos, remove_repo, resolve_repo

app = typer.Typer()


@app.command("repos")
@handle_errors
def repos(as_json: bool = JSON_OPT) -> None:
    """List ingested repositories."""
    rows = [{"name": r.name, "path": r.path, "github": r.github} for r in all_repos()]
    if as_json:
        print_json(rows)
        return
    table = Table("name", "path", "github", title="Ingested repositories")
    for r in rows:
        table.add_row(Text(r["name"] or "-"), Text(r["path"] or "-"), Text(r["github"] or "-"))
    console.print(table)


@app.command("remove")
@handle_errors
def remove(
    repo: str = typer.Argument(..., help="The ingested repository (name, OWNER/REPO or path)."),
    as_json: bool = JSON_OPT,
) -> None:
    """Forget one repository and everything ingested for it."""
    row = resolve_repo(repo)
    remove_repo(row)
    if as_json:
        print_json({"removed": row.name})
        return
    console.print(Text(f"removed {row.name}"))


@app.command("stats")
@handle_errors
def stats(repo: str = REPO_OPT, as_json: bool = JSON_OPT) -> None:
    """Counts of nodes and edges, commits, bots, time span."""
    data = queries.stats(resolve_repo(repo))
    if as_json:
        print_json(data)
        return
    table = Table("", "", title=Text(f"History of {data['repo']}"), show_header=False)
    table.add_row(
        "commits",
        f"{data['commits']:,} ({data['merges']:,} merges, "
        f"{data['bot_commits']:,} by bots, {data['commits_with_pr']:,} naming a PR)",
    )
    table.add_row("span", f"{day(data['first_commit_at'])} → {day(data['last_commit_at'])}")
    if not data["complete"]:
        table.add_row("ingest", Text("partial: an ingest is running or was stopped; run it again", "yellow"))
    if data["shallow"]:
        table.add_row(
            "shallow",
            Text(f"history cut at {data['boundary_commits']:,} commit(s) (git fetch --unshallow)", "yellow"),
        )
    if data["unreachable_commits"]:
        table.add_row("rewritten", f"{data['unreachable_commits']:,} commits no ref reaches (left out)")
    if data["lossy_commits"]:
        table.add_row("not UTF-8", f"{data['lossy_commits']:,} commits kept with \\xNN escapes")
    table.add_row("nodes", ", ".join(f"{k} {v:,}" for k, v in sorted(data["nodes"].items())))
    table.add_row("edges", ", ".join(f"{k} {v:,}" for k, v in sorted(data["edges"].items())))
    if data["items_fetched"]:
        table.add_row(
            "from GitHub", ", ".join(f"{k} {v:,}" for k, v in sorted(data["items_fetched"].items()))
        )
        table.add_row("comments", ", ".join(f"{k} {v:,}" for k, v in sorted(data["comments"].items())) or "0")
    console.print(table)


@app.command("churn")
@handle_errors
def churn(
    n: int = typer.Option(15, "--limit", "-n", min=1, help="How many files."),
    since: str = typer.Option(None, "--since", help=f"Only changes after this: {SINCE_HELP}."),
    until: str = UNTIL_OPT,
    no_bots: bool = NO_BOTS_OPT,
    path: list[str] = PATH_OPT,
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Files with the most lines added and removed (renames folded into the latest name)."""
    rows = queries.churn(
        resolve_repo(repo), n=n, since=since, until=until, filters=Filters(no_bots, tuple(path or ()))
    )
    if as_json:
        print_json(rows)
        return
    table = Table("file", "churn", "+", "-", "commits", "authors", "last change", title="Churn")
    for r in rows:
        table.add_row(
            _path_cell(r),
            f"{r['churn']:,}",
            f"{r['added']:,}",
            f"{r['removed']:,}",
            f"{r['commits']:,}",
            str(r["authors"]),
            day(r["last_changed"]),
        )
    console.print(table)


@app.command("hotspots")
@handle_errors
def hotspots(
    days: int = typer.Option(90, "--days", min=1, help="Window: the last N days of the history."),
    n: int = typer.Option(15, "--limit", "-n", min=1, help="How many files."),
    until: str = UNTIL_OPT,
    no_bots: bool = NO_BOTS_OPT,
    path: list[str] = PATH_OPT,
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Files changed most often recently (the window ends at the last commit, or at --until)."""
    data = queries.hotspots(
        resolve_repo(repo), days=days, n=n, until=until, filters=Filters(no_bots, tuple(path or ()))
    )
    if as_json:
        print_json(data)
        return
    table = Table(
        "file",
        "changes",
        "churn",
        "authors",
        title=f"Hotspots {day(data['window_start'])} → {day(data['window_end'])}",
    )
    for r in data["files"]:
        table.add_row(_path_cell(r), str(r["changes"]), f"{r['churn']:,}", str(r["authors"]))
    console.print(table)


@app.command("coupling")
@handle_errors
def coupling(
    file: str = typer.Argument(None, help="Only the pairs of this file (code-maat's per-file view)."),
    min_revs: int = typer.Option(5, "--min-revs", min=1, help="Ignore files with fewer revisions."),
    min_shared: int = typer.Option(5, "--min-shared", min=1, help="Minimum commits shared by a pair."),
    min_degree: float = typer.Option(30, "--min-degree", min=0, max=100, help="Minimum coupling, percent."),
    max_changeset: int = typer.Option(
        30, "--max-changeset", min=1, help="Ignore commits touching more files than this."
    ),
    n: int = typer.Option(20, "--limit", "-n", min=1, help="How many pairs."),
    since: str = typer.Option(None, "--since", help=f"Only commits after this: {SINCE_HELP}."),
    no_bots: bool = NO_BOTS_OPT,
    path: list[str] = PATH_OPT,
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Files that change together (code-maat's logical coupling)."""
    data = queries.coupling(
        resolve_repo(repo),
        min_revs=min_revs,
        min_shared=min_shared,
        min_degree=min_degree,
        max_changeset=max_changeset,
        n=n,
        since=since,
        filters=Filters(no_bots, tuple(path or ())),
        file=file,
    )
    if as_json:
        print_json(data)
        return
    table = Table(
        "entity",
        "coupled",
        "degree %",
        "shared",
        "avg revs",
        title=f"Coupling ({data['commits_considered']:,} commits, "
        f"{data['commits_skipped_as_large']:,} large ones left out)",
    )
    for p in data["pairs"]:
        table.add_row(
            Text(p["entity"]),
            Text.assemble(p["coupled"], (" (deleted)", "dim") if p["coupled_deleted"] else ""),
            str(p["degree"]),
            str(p["shared"]),
            str(p["average_revs"]),
        )
    console.print(table)


def _path_cell(row: dict[str, Any]) -> Text:
    """A file's name, marked when it no longer exists or an older file held the path."""
    note = " (deleted)" if row.get("deleted") else " (an earlier file)" if row.get("replaced") else ""
    return Text.assemble(row["path"], (note, "dim"))
