"""`lore history extract | supersede | supersessions | unsupersede | decisions`: layer 2.

A part of the `history` group (`cli/lazy.py`), so the layer-1 commands do not load the model
client. `extract` and `supersede` call a model (and say plainly what one would add
when none is set up, exit code 5); the three others only read or stamp rows and need none.
Decision text came from the repository and a model, so it is shown as plain `Text`, never as
markup.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from lore.cli.common import console, err_console, handle_errors, print_json
from lore.cli.history import JSON_OPT, REPO_OPT
from lore.cli.model_use import NO_CACHE_OPTION, model_command
from lore.core.dates import iso_utc

app = typer.Typer()

DEFAULT_MAX_CALLS = 100
MAX_CALLS_OPT = typer.Option(
    DEFAULT_MAX_CALLS, "--max-calls", min=1, help="Call budget: at most N model calls this run."
)


@contextmanager
def _bar(label: str) -> Iterator[Any]:
    """A progress bar on stderr (only when it is a terminal); yields `tick(done, total)`."""
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    )
    with bar:
        task = bar.add_task(label, total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield tick


def _day(seconds: float | None) -> str:
    return (iso_utc(seconds) or "-")[:10]


@app.command("extract")
@handle_errors
def extract_cmd(
    repo: str = REPO_OPT,
    since: str = typer.Option(None, "--since", help="Only threads updated and commits made after this date."),
    max_calls: int = MAX_CALLS_OPT,
    no_cache: bool = NO_CACHE_OPTION,
    as_json: bool = JSON_OPT,
) -> None:
    """With a model: the project's decisions in threads and commit messages, each kept only
    when its quote is in the cited comment or commit, its speaker can bind the project and its
    statement is carried by its quote."""
    from lore.history.decisions.extract import extract

    with _bar("reading with the model") as tick, model_command("history extract", no_cache=no_cache):
        report = extract(repo, since=since, max_calls=max_calls, progress=tick)
    if as_json:
        print_json(report.as_dict())
        return
    dropped = ", ".join(f"{n} {why}" for why, n in sorted(report.dropped.items())) or "none"
    console.print(
        Text(
            f"{report.repo}: {report.kept} decision(s) kept of {report.proposed} proposed, from"
            f" {report.threads} thread(s) and {report.commits} commit message(s) in"
            f" {report.calls_planned} call(s) with {report.model}"
        )
    )
    console.print(Text(f"dropped: {dropped}"))
    if report.rechecked:
        again = ", ".join(f"{n} {why}" for why, n in sorted(report.rechecked.items()))
        console.print(Text(f"checked again (stored before these checks): {again}"))
    console.print(
        Text(
            f"skipped: {report.already_read} source(s) read before, {report.skipped_threads} thread(s)"
            f" nobody with standing wrote in, {report.skipped_commits} commit(s) (bots, no body, an"
            " author who cannot bind the project)"
        )
    )
    if report.calls_left_for_budget:
        console.print(Text(f"{report.calls_left_for_budget} call(s) left for the budget: run again for more"))
    if report.failed_calls:
        console.print(Text(f"{report.failed_calls} call(s) failed; their sources are read again next run"))
    console.print(Text(f"this run: {report.usage_line}"))


@app.command("supersede")
@handle_errors
def supersede_cmd(
    repo: str = REPO_OPT,
    max_calls: int = MAX_CALLS_OPT,
    no_cache: bool = NO_CACHE_OPTION,
    as_json: bool = JSON_OPT,
) -> None:
    """With a model: which later decisions replaced earlier ones (same scope and anchor only)."""
    from lore.history.decisions.supersede import supersede

    with _bar("judging pairs") as tick, model_command("history supersede", no_cache=no_cache):
        report = supersede(repo, max_calls=max_calls, progress=tick)
    if as_json:
        print_json(report.as_dict())
        return
    console.print(
        Text(
            f"{report.repo}: {report.pairs_sharing_anchor} pair(s) share a scope, an anchor and a"
            f" grounded word ({report.pairs_without_shared_words} share no word and are not judged),"
            f" {report.candidates} alike enough to judge, {report.already_judged} judged before;"
            f" {report.judged} judged now, {report.superseded} replacement(s) recorded"
        )
    )
    for row in report.new:
        console.print(
            Text(f"  #{row['id']}: decision {row['earlier']} replaced by {row['later']} ({row['anchor']})")
        )
    if report.calls_left_for_budget:
        console.print(Text(f"{report.calls_left_for_budget} pair(s) left for the budget: run again for more"))
    if report.failed_calls:
        console.print(Text(f"{report.failed_calls} call(s) failed; those pairs are asked again next run"))
    console.print(Text(f"this run: {report.usage_line}"))


@app.command("supersessions")
@handle_errors
def supersessions_cmd(repo: str = REPO_OPT, as_json: bool = JSON_OPT) -> None:
    """List the supersessions (which decision replaced which, when judged, undone or not)."""
    from lore.history.decisions.supersede import supersessions

    rows = supersessions(repo)
    if as_json:
        print_json([r.as_dict() for r in rows])
        return
    table = Table("id", "earlier", "replaced by", "judged", "undone", "reason", title="Supersessions")
    for r in rows:
        table.add_row(
            str(r.id),
            Text(f"{r.earlier}: {r.earlier_statement}"),
            Text(f"{r.later}: {r.later_statement}"),
            _day(r.judged_at),
            _day(r.undone_at) if r.undone_at else "",
            Text(r.reason),
        )
    console.print(table)


@app.command("unsupersede")
@handle_errors
def unsupersede_cmd(
    supersession: int = typer.Argument(..., help="The supersession's id (see `lore history supersessions`)."),
    as_json: bool = JSON_OPT,
) -> None:
    """Undo a supersession: the row is kept, stamped undone, and the earlier decision holds again
    (unless another supersession still replaces it: then that is said)."""
    from lore.history.decisions.supersede import unsupersede

    row = unsupersede(supersession)
    if as_json:
        print_json(row.as_dict())
        return
    if row.still_superseded_by:
        names = " and ".join(str(d) for d in row.still_superseded_by)
        several = "s" if len(row.still_superseded_by) > 1 else ""
        console.print(
            Text(
                f"supersession {row.id} undone; decision {row.earlier} is still superseded"
                f" by decision{several} {names} (see `lore history supersessions`)"
            )
        )
        return
    console.print(Text(f"supersession {row.id} undone: decision {row.earlier} is in force again"))


@app.command("decisions")
@handle_errors
def decisions_cmd(
    repo: str = REPO_OPT,
    as_of: str = typer.Option(None, "--as-of", help="Decisions that held on this date (valid time)."),
    believed_at: str = typer.Option(
        None, "--believed-at", help="As the store stood on this date (what Lore had learned by then)."
    ),
    topic: str = typer.Option(None, "--topic", help="A scope (api, dependency...) or words."),
    file: str = typer.Option(None, "--file", help="Decisions about this file or folder."),
    as_json: bool = JSON_OPT,
) -> None:
    """Decisions in force now (or on a date, or as believed on a date), each with its quote."""
    from lore.history.decisions.service import decisions

    rows = decisions(repo, as_of=as_of, believed_at=believed_at, topic=topic, file=file)
    if as_json:
        print_json([d.as_dict() for d in rows])
        return
    if not rows:
        console.print(Text("no decisions match (run `lore history extract` with a model to find them)"))
        return
    for d in rows:
        source = f"#{d.item_number}" if d.source_kind == "comment" else f"commit {(d.commit_sha or '')[:10]}"
        until = f" until {_day(d.valid_to)} (replaced by {d.superseded_by})" if d.valid_to else ""
        console.print(Text(f"[{d.id}] {d.statement}", style="bold"))
        console.print(
            Text(
                f"    {d.scope}, from {_day(d.valid_from)}{until}; {source} by {d.speaker} ({d.speaker_role})"
            )
        )
        console.print(Text(f'    "{d.quote}"'))
        if d.files:
            console.print(Text("    files: " + ", ".join(d.files)))
        if d.source_url:
            console.print(Text(f"    {d.source_url}"))
