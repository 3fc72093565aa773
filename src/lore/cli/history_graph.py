"""`lore history file | walk | show`: the graph of a history read from one node: a file's story
across its renames, a walk from any node, one commit whole.

Paths, subjects, names and titles come from the repository and are shown as plain `Text`,
never parsed as Rich markup: `pages/[id].tsx` keeps its brackets, `dependabot[bot]` its
suffix, and a subject holding `[/api]` cannot break the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from lore.cli.common import console, echo, handle_errors, print_json
from lore.cli.history import JSON_OPT, NO_BOTS_OPT, REPO_OPT, SINCE_HELP, clip, day, in_repo
from lore.core.terminal import safe_text
from lore.history import queries
from lore.history.queries import Filters
from lore.history.repos import resolve_repo

app = typer.Typer()


# Up to this many rows a table is drawn by rich; beyond it, as plain aligned columns: rich
# measures and lays out every cell, which for thousands of rows (a walk with hubs expanded and
# no limit) costs seconds, while the plain columns cost about what `--json` does.
_DRAWN_ROWS = 200


def _print_table(title: Text, headers: tuple[str, ...], rows: Sequence[Sequence[str | Text]]) -> None:
    """A table of one-line cells: rich's up to `_DRAWN_ROWS` rows, plain columns beyond."""
    if len(rows) <= _DRAWN_ROWS:
        table = Table(*headers, title=title)
        for row in rows:
            table.add_row(*row)
        console.print(table)
        return
    from rich.cells import cell_len  # the width a terminal gives the text (wide characters: 2)

    cells: list[list[str]] = [list(headers)]
    cells += [
        [safe_text(cell.plain if isinstance(cell, Text) else cell, multiline=False) for cell in row]
        for row in rows
    ]
    widths = [max(cell_len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [safe_text(title.plain, multiline=False)]
    for line in cells:
        padded = [
            cell + " " * (width - cell_len(cell)) for cell, width in zip(line[:-1], widths, strict=False)
        ]
        lines.append("  ".join([*padded, line[-1]]))
    echo("\n".join(lines))


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
    limit: int = typer.Option(None, "--limit", "-n", min=1, help="Show at most N entries."),
    since: str = typer.Option(None, "--since", help=f"Only commits authored after this: {SINCE_HELP}."),
    until: str = typer.Option(None, "--until", help="Only commits authored before this date."),
    author: str = typer.Option(None, "--author", help="Only commits whose author's name or email has this."),
    no_bots: bool = NO_BOTS_OPT,
    bodies: bool = typer.Option(True, "--bodies/--no-bodies", help="Show commit message bodies."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Every commit, PR and issue behind a file, nearest first, across renames."""
    row = resolve_repo(repo)
    data = queries.file_history(
        row, in_repo(row, path), limit=limit, since=since, until=until, filters=Filters(no_bots, (), author)
    )
    if as_json:
        print_json(data)
        return
    paths = " ← ".join(p["path"] for p in data["paths"])
    counts = ", ".join(f"{k} {v}" for k, v in sorted(data["counts"].items()))
    shown = f"first {len(data['entries'])} of " if limit else ""
    table = Table("hops", "when", "how", "+/-", "what", title=Text(f"{paths}  ({shown}{counts})"))
    for e in data["entries"]:
        how = e["how"].lower()
        if e.get("old_path") and how in ("renamed", "copied"):
            how = f"{how} from {e['old_path']}"
        lines = f"+{e['added']} -{e['removed']}" if e["kind"] == "commit" else ""
        what = _describe(e)
        if bodies and e.get("body"):
            what.append("\n" + clip(e["body"]), style="dim")
        table.add_row(str(e["depth"]), day(e["at"]), Text(how), lines, what)
    console.print(table)
    fate = data["fate"]
    if fate["status"] == "renamed":
        console.print(Text(f"{data['file']} was renamed to {fate['to']}; its story goes on there"))
    elif fate["status"] == "deleted":
        console.print(Text(f"{data['file']} was deleted ({day(fate.get('at'))})"))


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
    order: str = typer.Option(
        "relevance",
        "--order",
        help="relevance (distance, then how strongly connected, then recency) or size"
        " (a file's commits by the size of their change to it).",
    ),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Walk the graph from a node: nearest first, then the strongest ties; hubs are not expanded."""
    data = queries.walk_from(
        resolve_repo(repo),
        node,
        depth=depth,
        max_degree=max_degree or None,
        relations=rel,
        kinds=kind,
        since=since,
        until=until,
        max_changeset=max_changeset,
        limit=limit or None,
        order=order,
    )
    if as_json:
        print_json(data)
        return
    start = data["start"]
    rows = [
        (
            str(r["depth"]),
            r["kind"],
            day(r["at"]),
            Text.assemble(str(r["degree"]), (" hub", "yellow") if r["hub"] else ""),
            _describe(r),
        )
        for r in data["results"]
    ]
    title = Text(f"From {_start_name(start)} (depth {depth}, max degree {max_degree or 'off'})")
    _print_table(title, ("hops", "kind", "when", "degree", "node"), rows)
    if not data["results"]:
        console.print("[dim]nothing reachable with these limits[/dim]")


@app.command("show")
@handle_errors
def show(
    commit: str = typer.Argument(..., help="A commit sha (or a unique start of one)."),
    repo: str = REPO_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """One commit: its whole message, its PR and the issues closed, every file it changed."""
    data = queries.show_commit(resolve_repo(repo), commit)
    if as_json:
        print_json(data)
        return
    console.print(Text.assemble((data["sha"][:12], "cyan"), f" {data['subject']}"))
    console.print(Text(f"{data['author']} <{data['email']}>  {data['when']}", style="dim"))
    if data["pr"]:
        closes = ", ".join(f"#{n}" for n in data["closes"])
        console.print(Text(f"PR #{data['pr']}" + (f", closes {closes}" if closes else "")))
    if data["body"]:
        console.print(Text("\n" + data["body"] + "\n"))
    if not data["reachable"]:
        console.print(Text("no ref reaches this commit any more (rewritten history)", "yellow"))
    table = Table("how", "+", "-", "file")
    for f in data["files"]:
        how = f"{f['how']} from {f['old_path']}" if f["old_path"] else f["how"]
        table.add_row(Text(how), str(f["added"]), str(f["removed"]), Text(f["path"]))
    console.print(table)
