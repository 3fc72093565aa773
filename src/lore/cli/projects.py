"""`lore projects`: register and list projects; also the top-level `lore demo`."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer
from rich.markup import escape as esc
from rich.table import Table

from lore.cli.common import console, echo, existing, handle_errors, print_json
from lore.rules import service

app = typer.Typer(
    help="Register and list projects (git repositories Lore knows).",
    invoke_without_command=True,
    no_args_is_help=False,
)


@app.callback()
@handle_errors
def projects(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List registered projects (or use a subcommand)."""
    if ctx.invoked_subcommand:
        return
    items = service.list_projects()
    if as_json:
        print_json([p.to_dict() for p in items])
        return
    if not items:
        console.print("No projects yet. Register one with `lore projects add PATH`.")
        return
    table = Table("name", "path", "sections", "rules (active/pending)")
    for p in items:
        rules = service.list_rules(p)
        active = sum(r.status == "active" for r in rules)
        table.add_row(
            esc(p.name),
            esc(str(p.path)),
            esc(", ".join(p.sections)) or "-",
            f"{active}/{len(rules) - active}",
        )
    console.print(table)


@app.command("add")
@handle_errors
def add(
    path: Path = typer.Argument(Path("."), help="A folder or file inside the git repository."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Register the git repository holding PATH and print its name."""
    project, new = service.register_project(existing(path))
    if as_json:
        print_json({**project.to_dict(), "new": new})
        return
    verb = "registered" if new else "already registered"
    console.print(f"{esc(project.name)}  ({verb}: {esc(str(project.path))})", highlight=False)


@app.command("refresh")
@handle_errors
def refresh(name: str = typer.Argument(None, help="Project name (default: this folder's).")) -> None:
    """Rebuild a project's map of sections after folders changed."""
    project = service.refresh_map(service.find_project(name))
    console.print(
        f"{esc(project.name)}: sections {esc(', '.join(project.sections)) or '(none)'}", highlight=False
    )


def register_top_level(root: typer.Typer) -> None:
    @root.command("demo")
    @handle_errors
    def demo(
        task: str = typer.Option("add pagination to the orders endpoint", help="The change to describe."),
        path: list[str] = typer.Option(
            None, "--path", help="Files of the change (default: src/api/orders.py)."
        ),
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
