"""`lore history ...`: ingest a repository's history and ask the graph about it.

Paths, subjects, names and titles come from the repository and are shown as plain `Text`,
never parsed as Rich markup: `pages/[id].tsx` keeps its brackets, `dependabot[bot]` its
suffix, and a subject holding `[/api]` cannot break the table.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from lore.cli.common import console, err_console, handle_errors, print_json
from lore.core.errors import InvalidInput, NotFound
from lore.history import queries
from lore.history.ingest.git import ingest_git
from lore.history.ingest.github import ingest_github
from lore.history.repos import Repo, all_repos, resolve_repo

app = typer.Typer(
    help="Engineering history: a graph of commits, files, PRs, issues and people.",
    no_args_is_help=True,
)

REPO_OPT = typer.Option(
    None,
    "--repo",
    "-r",
    help="Ingested repository (name or path); default: the one of this folder, or the only one.",
)
JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of a table.")
_SLUG = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


class _Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f}/s" if speed else "", style="cyan")


class RichProgress:
    """Progress bars with counts and rates on stderr; rate-limit waits as a countdown."""

    def __init__(self, quiet: bool = False):
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _Rate(),
            TimeElapsedColumn(),
            console=err_console,
            disable=quiet,
            transient=False,
        )
        self.task: Any = None

    def __enter__(self) -> RichProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def start(self, label: str, total: int | None = None) -> None:
        if self.task is not None:
            self.bar.update(self.task, total=self.bar.tasks[-1].completed)
        self.task = self.bar.add_task(label, total=total)

    def advance(self, n: int = 1) -> None:
        if self.task is not None and n:
            self.bar.advance(self.task, n)

    def wait(self, seconds: float, reason: str) -> None:
        countdown = self.bar.add_task(f"[yellow]waiting: {reason}", total=max(seconds, 0.01))
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self.bar.update(
                countdown, completed=seconds - left, description=f"[yellow]{reason}: {left:,.0f}s left"
            )
            time.sleep(min(1.0, left))
        self.bar.remove_task(countdown)

    def note(self, message: str) -> None:
        self.bar.console.print(Text.assemble(("note:", "yellow"), " ", message), highlight=False)


def _when(value: str | None) -> str:
    return value[:10] if value else "-"


def _repo(choice: str | None) -> Repo:
    return resolve_repo(choice)


@app.command("ingest")
@handle_errors
def ingest(
    target: str = typer.Argument(..., help="A local git repository (PATH) or OWNER/REPO on GitHub."),
    max_pages: int = typer.Option(
        None,
        "--max-pages",
        min=1,
        help="GitHub: read at most N pages of 100 issues/PRs; commits are then pinned to their time window.",
    ),
    clone: Path = typer.Option(
        None, "--clone", help="GitHub: read commits from this local clone instead of the API."
    ),
    since: str = typer.Option(None, "--since", help="Local: only commits after this date."),
    until: str = typer.Option(None, "--until", help="Local: only commits before this date."),
    refresh: bool = typer.Option(
        False,
        "--refresh",
        help="GitHub: revalidate cached responses "
        "(304s are free) and fetch only items updated since last run.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars."),
    as_json: bool = JSON_OPT,
) -> None:
    """Ingest a repository's history (a second run adds only what is new)."""
    local = Path(target).expanduser()
    if local.exists():
        if max_pages or clone or refresh:
            raise InvalidInput("--max-pages, --clone and --refresh are for OWNER/REPO")
    elif not _SLUG.match(target):
        if "/" in target or target.startswith((".", "~")):  # a path: missing files are exit 3
            raise NotFound(f"no such file or folder: {target} (nor is it OWNER/REPO on GitHub)")
        raise InvalidInput(f"{target!r} is neither a folder nor OWNER/REPO")
    with RichProgress(quiet=quiet or as_json) as progress:
        if local.exists():
            result = ingest_git(local, since=since, until=until, progress=progress).as_dict()
        else:
            result = ingest_github(
                target, max_pages=max_pages, clone=clone, refresh=refresh, progress=progress
            ).as_dict()
    if as_json:
        print_json(result)
        return
    table = Table("", "", title=Text(f"Ingested {result['repo']}"), show_header=False)
    for key, value in result.items():
        if key != "repo":
            table.add_row(key.replace("_", " "), Text(_fmt(value)))
    console.print(table)


def _fmt(value: Any) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, list):
        return " → ".join(str(v) for v in value)
    return str(value)


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
        table.add_row(Text(r["name"]), Text(r["path"] or "-"), Text(r["github"] or "-"))
    console.print(table)


@app.command("stats")
@handle_errors
def stats(repo: str = REPO_OPT, as_json: bool = JSON_OPT) -> None:
    """Counts of nodes and edges, commits, bots, time span."""
    data = queries.stats(_repo(repo))
    if as_json:
        print_json(data)
        return
    table = Table("", "", title=Text(f"History of {data['repo']}"), show_header=False)
    table.add_row(
        "commits",
        f"{data['commits']:,} ({data['merges']:,} merges, "
        f"{data['bot_commits']:,} by bots, {data['commits_with_pr']:,} naming a PR)",
    )
    table.add_row("span", f"{_when(data['first_commit_at'])} → {_when(data['last_commit_at'])}")
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
    n: int = typer.Option(15, "-n", min=1, help="How many files."),
    since: str = typer.Option(None, "--since", help="Only changes after this date (or 90d)."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Files with the most lines added and removed (renames folded into the latest name)."""
    rows = queries.churn(_repo(repo), n=n, since=since)
    if as_json:
        print_json(rows)
        return
    table = Table("file", "churn", "+", "-", "commits", "authors", "last change", title="Churn")
    for r in rows:
        table.add_row(
            Text(r["path"]),
            f"{r['churn']:,}",
            f"{r['added']:,}",
            f"{r['removed']:,}",
            f"{r['commits']:,}",
            str(r["authors"]),
            _when(r["last_changed"]),
        )
    console.print(table)


@app.command("hotspots")
@handle_errors
def hotspots(
    days: int = typer.Option(90, "--days", min=1, help="Window: the last N days of the history."),
    n: int = typer.Option(15, "-n", min=1, help="How many files."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Files changed most often recently (the window ends at the last commit)."""
    data = queries.hotspots(_repo(repo), days=days, n=n)
    if as_json:
        print_json(data)
        return
    table = Table(
        "file",
        "changes",
        "churn",
        "authors",
        title=f"Hotspots {_when(data['window_start'])} → {_when(data['window_end'])}",
    )
    for r in data["files"]:
        table.add_row(Text(r["path"]), str(r["changes"]), f"{r['churn']:,}", str(r["authors"]))
    console.print(table)


@app.command("coupling")
@handle_errors
def coupling(
    min_revs: int = typer.Option(5, "--min-revs", min=1, help="Ignore files with fewer revisions."),
    min_shared: int = typer.Option(5, "--min-shared", min=1, help="Minimum commits shared by a pair."),
    min_degree: float = typer.Option(30, "--min-degree", min=0, max=100, help="Minimum coupling, percent."),
    max_changeset: int = typer.Option(
        30, "--max-changeset", min=1, help="Ignore commits touching more files than this."
    ),
    n: int = typer.Option(20, "-n", min=1, help="How many pairs."),
    since: str = typer.Option(None, "--since", help="Only commits after this date (or 90d)."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Files that change together (code-maat's logical coupling)."""
    data = queries.coupling(
        _repo(repo),
        min_revs=min_revs,
        min_shared=min_shared,
        min_degree=min_degree,
        max_changeset=max_changeset,
        n=n,
        since=since,
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
            Text(p["entity"]), Text(p["coupled"]), str(p["degree"]), str(p["shared"]), str(p["average_revs"])
        )
    console.print(table)


def _describe(row: dict[str, Any]) -> Text:
    """One node as a line of plain text with a few styles (no markup is parsed)."""
    if row["kind"] == "commit":
        bot = (" (bot)", "dim") if row.get("bot") else ""
        return Text.assemble((row["key"][:10], "cyan"), f" {row['label']} — {row.get('author', '')}", bot)
    if row["kind"] in ("pr", "issue"):
        state = (f" ({row['state']})", "dim") if row.get("state") else ""
        label = row["label"] if row["label"] and not row["label"].startswith(("PR #", "Issue #")) else ""
        name = f"{'PR' if row['kind'] == 'pr' else 'issue'} #{row['key']}"
        return Text.assemble((name, "magenta"), f" {label}", state)
    return Text(row["label"] or row["key"])


@app.command("file")
@handle_errors
def file(
    path: str = typer.Argument(..., help="A file path (or a unique end of one)."),
    limit: int = typer.Option(None, "--limit", min=1, help="Show at most N entries."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Every commit, PR and issue behind a file, nearest first, across renames."""
    data = queries.file_history(_repo(repo), path, limit=limit)
    if as_json:
        print_json(data)
        return
    paths = " ← ".join(p["path"] for p in data["paths"])
    counts = ", ".join(f"{k} {v}" for k, v in sorted(data["counts"].items()))
    shown = f"first {len(data['entries'])} of " if limit else ""
    table = Table("hops", "when", "how", "what", title=Text(f"{paths}  ({shown}{counts})"))
    for e in data["entries"]:
        table.add_row(str(e["depth"]), _when(e["at"]), e["how"].lower(), _describe(e))
    console.print(table)


def _start_name(start: dict[str, Any]) -> str:
    if start["kind"] in ("pr", "issue"):
        return f"{'PR' if start['kind'] == 'pr' else 'issue'} #{start['key']}"
    return f"{start['kind']} {start['label'] or start['key']}"


@app.command("walk")
@handle_errors
def walk(
    node: str = typer.Argument(
        ..., help="Start: a file path, a sha, #12, pr:12, issue:7, @login, an email or a name."
    ),
    depth: int = typer.Option(3, "--depth", "-d", min=1, max=6, help="Hops from the start (1-6)."),
    max_degree: int = typer.Option(
        20,
        "--max-degree",
        min=0,
        help="Do not expand through nodes with more edges than this (they are still listed); 0 = off.",
    ),
    rel: list[str] = typer.Option(
        None,
        "--rel",
        help="Follow only these edge types (repeat or comma-separate: MODIFIED,PART_OF,CLOSES...).",
    ),
    kind: list[str] = typer.Option(
        None, "--kind", help="List only these node kinds (commit, file, pr, issue, person)."
    ),
    since: str = typer.Option(None, "--since", help="Only edges after this date (or 90d)."),
    until: str = typer.Option(None, "--until", help="Only edges before this date."),
    max_changeset: int = typer.Option(
        None,
        "--max-changeset",
        min=1,
        help="Commits touching more files than this add no file-to-file bridge.",
    ),
    limit: int = typer.Option(50, "--limit", "-n", min=0, help="At most N results (0 = all)."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Walk the graph from a node: nearest first, then newest; hubs are not expanded."""
    data = queries.walk_from(
        _repo(repo),
        node,
        depth=depth,
        max_degree=max_degree or None,
        relations=rel,
        kinds=kind,
        since=since,
        until=until,
        max_changeset=max_changeset,
        limit=limit or None,
    )
    if as_json:
        print_json(data)
        return
    start = data["start"]
    table = Table(
        "hops",
        "kind",
        "when",
        "degree",
        "node",
        title=Text(f"From {_start_name(start)} (depth {depth}, max degree {max_degree or 'off'})"),
    )
    for r in data["results"]:
        degree = Text.assemble(str(r["degree"]), (" hub", "yellow") if r["hub"] else "")
        table.add_row(str(r["depth"]), r["kind"], _when(r["at"]), degree, _describe(r))
    console.print(table)
    if not data["results"]:
        console.print("[dim]nothing reachable with these limits[/dim]")
