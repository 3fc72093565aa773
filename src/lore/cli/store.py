"""`lore store`: what the store holds, and moving the embedded store into PostgreSQL."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import asdict

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from lore.cli.common import console, err_console, handle_errors, print_json
from lore.core.home import ensure_home
from lore.core.store.base import DB_NAME, Migration
from lore.core.store.move import check as check_store
from lore.core.store.move import move
from lore.core.store.open import open_database, open_store

app = typer.Typer(help="The store: what it holds, and moving it into PostgreSQL.", no_args_is_help=True)


def domain_migrations() -> dict[str, list[Migration]]:
    """Every domain's migrations, the order its tables were made in."""
    from lore.books.store.migrations import MIGRATIONS as BOOKS
    from lore.core.store.http_cache_store import MIGRATIONS as HTTP
    from lore.core.store.llm_store import CACHE_MIGRATIONS, USAGE_MIGRATIONS
    from lore.core.store.vectors.schema import MIGRATIONS as VECTORS
    from lore.history.decisions.store import MIGRATIONS as DECISIONS
    from lore.history.store.schema import MIGRATIONS as HISTORY
    from lore.history.why.store import MIGRATIONS as WHY
    from lore.rules.store.rules import MIGRATIONS as RULES
    from lore.rules.store.sessions import SESSION_MIGRATIONS

    # vectors are no domain of their own: they live (and move) with the texts they index
    return {
        "rules": RULES + SESSION_MIGRATIONS,
        "history": HISTORY,
        "decisions": HISTORY + DECISIONS,
        "why": HISTORY + WHY + VECTORS,  # why's reads join the history tables: one database
        "books": BOOKS + VECTORS,
        "model cache": CACHE_MIGRATIONS + USAGE_MIGRATIONS,
        "http cache": HTTP,
    }


def _mib(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"


def _not_on_postgres() -> list[str]:
    return [name for name, steps in domain_migrations().items() if any(m.postgres is None for m in steps)]


@app.command("check")
@handle_errors
def check(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print the backend, where it is, the schema version per domain, every table's rows and,
    on PostgreSQL, every index's size (the search graphs built so far named)."""
    store = open_store()
    elsewhere = _not_on_postgres() if store.dialect != "sqlite" else []
    report = check_store(store, elsewhere)
    if as_json:
        print_json(asdict(report))
        return
    console.print(f"backend   {report.backend}")
    console.print(f"location  {escape(report.location)}")
    console.print(f"schema    {report.migrations} migrations applied")
    for domain, last in sorted(report.schema.items()):
        console.print(f"  {escape(domain):<12} {escape(last)}")
    for table in report.tables:
        console.print(f"  {escape(table.name):<32} {table.rows:>10,} rows")
    if report.indexes:
        from lore.core.store.vectors.indexes import describe_index  # numpy: only when there is one

        total = sum(i.bytes for i in report.indexes)
        console.print(
            f"indexes   {len(report.indexes)}, {_mib(total)} in all; built by searches on first use:"
        )
        built = [(i, what) for i in report.indexes if (what := describe_index(i.name))]
        for index, what in built:
            console.print(f"  {escape(index.name):<40} {_mib(index.bytes):>10}  {what}")
        if not built:
            console.print("  none yet")
    if report.elsewhere:
        local = ensure_home() / DB_NAME
        console.print(
            f"not on PostgreSQL yet (kept in {escape(str(local))}): {escape(', '.join(report.elsewhere))}"
        )


@app.command("migrate")
@handle_errors
def migrate(
    to: str = typer.Option(..., "--to", help="The PostgreSQL database to copy into: postgresql://..."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Copy the embedded store into PostgreSQL: every table it has a schema for, counts verified.

    Safe to run again: finished tables are skipped and a table cut short is completed, never
    doubled. Point LORE_DATABASE_URL (or database_url in config.json) at it afterwards.
    """
    target = open_database(to)
    source = open_store(ensure_home() / DB_NAME)
    for steps in domain_migrations().values():  # the source is current before it is read
        source.migrate(steps)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err_console,
        transient=True,
    )
    tasks: dict[str, TaskID] = {}

    def progress(table: str, done: int, total: int) -> None:
        if table not in tasks:
            tasks[table] = bar.add_task(table, total=total or 1)
        bar.update(tasks[table], completed=done if total else 1)

    with bar if not (quiet or as_json) else nullcontext():
        report = move(source, target, list(domain_migrations().values()), progress)
    if as_json:
        print_json(asdict(report))
        return
    for table in report.tables:
        state = (
            "already moved"
            if table.skipped
            else f"{table.copied:,} copied" + (f", {table.already:,} already there" if table.already else "")
        )
        console.print(f"  {escape(table.name):<32} {table.source_rows:>10,} rows  {state}")
    if report.rebuilt:
        console.print(f"rebuilt by the database from the moved rows: {escape(', '.join(report.rebuilt))}")
    if report.left:
        console.print(f"kept in your own file: {escape(', '.join(report.left))}")
    console.print(f"moved into {escape(report.target)}; set LORE_DATABASE_URL to use it")
