"""`lore history owners|authors|age`: who wrote each file, and how old its code is.

Names and paths come from the repository and are printed as plain `Text`, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from lore.cli import history
from lore.cli.common import console, handle_errors, print_json
from lore.history import ownership
from lore.history.queries import Filters
from lore.history.repos import resolve_repo

app = typer.Typer()

SINCE_OPT = typer.Option(None, "--since", help=f"Only changes authored after this: {history.SINCE_HELP}.")
UNTIL_OPT = typer.Option(None, "--until", help="Only changes authored before this date (or age).")
AUTHOR_OPT = typer.Option(None, "--author", help="Only changes whose author's name or email has this.")
LIMIT_OPT = typer.Option(None, "--limit", "-n", min=1, help="At most N files.")


def _window(repo, since, until, author, no_bots) -> ownership.Window:
    return ownership.window(repo, since, until, Filters(no_bots, (), author))


def _answer(repo: str, as_json: bool, ask: Callable[[Any], Any]) -> Any:
    """What `ask` finds in the repository; printed as JSON (and None returned) under `--json`."""
    data = ask(resolve_repo(repo))
    if as_json:
        print_json(data)
        return None
    return data


def _per_file(query, paths, n, since, until, author, no_bots, repo, as_json) -> Any:
    """`owners` and `age`: the same query over files, folders or globs, at most `n` files."""
    return _answer(
        repo,
        as_json,
        lambda row: query(
            row,
            paths=[history.in_repo(row, p) for p in paths or ()],
            n=n,
            win=_window(row, since, until, author, no_bots),
        ),
    )


def _share(value: float) -> str:
    return f"{value * 100:.0f}%"


@app.command("owners")
@handle_errors
def owners(
    paths: list[str] = typer.Argument(
        None, help="Files, folders or globs (e.g. 'src/**/*.py'); default: all."
    ),
    n: int = LIMIT_OPT,
    since: str = SINCE_OPT,
    until: str = UNTIL_OPT,
    author: str = AUTHOR_OPT,
    no_bots: bool = history.NO_BOTS_OPT,
    repo: str = history.REPO_OPT,
    as_json: bool = history.JSON_OPT,
) -> None:
    """Main developer of each file: by lines added and by commits, with their shares."""
    data = _per_file(ownership.owners, paths, n, since, until, author, no_bots, repo, as_json)
    if data is None:
        return
    table = Table(
        "file",
        "main developer (lines)",
        "share",
        "main developer (commits)",
        "share",
        "authors",
        title="Owners",
    )
    for r in data:
        table.add_row(
            Text(r["path"]),
            Text(r["main_dev"]),
            f"{_share(r['ownership'])} of {r['total_added']:,}",
            Text(r["main_dev_by_commits"]),
            f"{_share(r['commit_share'])} of {r['total_commits']:,}",
            str(r["authors"]),
        )
    console.print(table)


@app.command("authors")
@handle_errors
def authors(
    path: str = typer.Argument(..., help="A file path (or a unique end of one); followed across renames."),
    since: str = SINCE_OPT,
    until: str = UNTIL_OPT,
    author: str = AUTHOR_OPT,
    no_bots: bool = history.NO_BOTS_OPT,
    repo: str = history.REPO_OPT,
    as_json: bool = history.JSON_OPT,
) -> None:
    """Everyone who changed a file: commits, lines, first and last change."""
    data = _answer(
        repo,
        as_json,
        lambda row: ownership.authors(
            row, history.in_repo(row, path), win=_window(row, since, until, author, no_bots)
        ),
    )
    if data is None:
        return
    table = Table(
        "author", "commits", "share", "+", "-", "first", "last", title=Text(f"Authors of {data['file']}")
    )
    for a in data["authors"]:
        table.add_row(
            Text(f"{a['name']} <{a['email']}>"),
            str(a["commits"]),
            _share(a["share"]),
            f"{a['added']:,}",
            f"{a['removed']:,}",
            history.day(a["first"]),
            history.day(a["last"]),
        )
    console.print(table)


@app.command("age")
@handle_errors
def age(
    paths: list[str] = typer.Argument(None, help="Files, folders or globs; default: all."),
    n: int = LIMIT_OPT,
    since: str = SINCE_OPT,
    until: str = typer.Option(
        None, "--until", help="Count ages back from this date (default: the last commit)."
    ),
    author: str = AUTHOR_OPT,
    no_bots: bool = history.NO_BOTS_OPT,
    repo: str = history.REPO_OPT,
    as_json: bool = history.JSON_OPT,
) -> None:
    """Code age: months since each file last changed (youngest first), for hotspot context."""
    data = _per_file(ownership.age, paths, n, since, until, author, no_bots, repo, as_json)
    if data is None:
        return
    table = Table(
        "file", "months", "last change", "commits", title=f"Code age as of {history.day(data['as_of'])}"
    )
    for r in data["files"]:
        table.add_row(
            Text(r["path"]), f"{r['age_months']:.1f}", history.day(r["last_changed"]), str(r["commits"])
        )
    console.print(table)
