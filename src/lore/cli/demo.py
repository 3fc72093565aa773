"""`lore demo`: the three faces of Lore on a demo project, a demo repository and a shipped book,
in a home of their own."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer

from lore.cli.common import console, echo, esc, handle_errors
from lore.rules import service

app = typer.Typer()


@app.command("demo")
@handle_errors
def demo(
    task: str = typer.Option("add pagination to the orders endpoint", help="The change to describe."),
    path: list[str] = typer.Option(None, "--path", help="Files of the change (default: src/api/orders.py)."),
) -> None:
    """Show what an agent is sent, a repository's history asked why, and a cited book answer.

    The demo keeps to a home of its own (LORE_HOME/demo, with its own store): your projects,
    history and library are not touched. It ends with how to look around in it and remove it."""
    from lore.rules.demo import ensure_demo_project, in_demo, kept_apart

    with kept_apart() as home:
        project = ensure_demo_project()
        files = path or ["src/api/orders.py"]
        console.print(
            f"[bold]Demo project[/bold] {esc(project.name)} at {esc(str(project.path))}", highlight=False
        )
        console.print(
            f"[bold]Files[/bold] {esc(', '.join(files))}   [bold]Task[/bold] {esc(task)}\n",
            highlight=False,
        )
        reply = service.rules_for_change(project, files, task=task)
        echo(reply.render())
        resolve = f"lore review --name {project.name} resolve src/db/models.py --task 'add a column'"
        console.print(
            f"\n[dim]{len(reply.served)} of {reply.eligible_count} eligible rules sent. Try "
            f"`{esc(in_demo(f'lore review --name {project.name} list', home))}` or "
            f"`{esc(in_demo(resolve, home))}`.[/dim]",
            highlight=False,
        )
        _history_demo(project.path, home)
        _book_demo(home)
    console.print(
        f"\nThe demo keeps to its own home, {esc(str(home))}: your projects, history and library"
        f" are untouched. Remove it with `rm -rf {esc(shlex.quote(str(home)))}`.",
        highlight=False,
    )


def _history_demo(folder: Path, home: Path) -> None:
    """The history face: the demo repository's own commits, read, and asked why."""
    from lore.history.ingest.git import ingest_git
    from lore.history.repos import resolve_repo
    from lore.history.why.service import why
    from lore.history.why.text import report_text
    from lore.rules.demo import in_demo

    repo = resolve_repo(ingest_git(folder).path)
    question = "why is the orders list paginated?"
    console.print(
        f"\n[bold]History[/bold] {esc(repo.name)}   [bold]Question[/bold] {esc(question)}", highlight=False
    )
    report = why(repo, question, limit=3, use_model=False)
    echo(report_text(report))
    console.print(
        f"[dim]{esc(report.note)} Try "
        f"`{esc(in_demo(f'lore history why src/api/orders.py --repo {repo.name}', home))}`.[/dim]",
        highlight=False,
    )


def _book_demo(home: Path) -> None:
    """The book face: a cited answer from a shipped public-domain story at a reading position."""
    from lore.books.demo import demo_answer
    from lore.rules.demo import in_demo

    shown = demo_answer()
    chapter, _ = shown.position
    console.print(
        f"\n[bold]Book[/bold] {esc(shown.book.title)} (in the demo's library), read up to part {chapter} of"
        f" {shown.book.chapters}   [bold]Question[/bold] {esc(shown.answer.question)}",
        highlight=False,
    )
    echo(shown.answer.text())
    ask = f"lore books ask {shown.book.id} 'Where does Irene Adler live?'"
    console.print(
        f"[dim]Nothing past part {chapter} was read to answer. Try `{esc(in_demo(ask, home))}`.[/dim]",
        highlight=False,
    )
