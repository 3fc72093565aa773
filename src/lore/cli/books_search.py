"""`lore books search`: passages found by words and meaning within the reader's position, in
one book or across a series. A part of the `books` group (`cli/lazy.py`), imported only when it
runs."""

from __future__ import annotations

import typer
from rich.markup import escape

from lore.cli.common import console, handle_errors, print_json

app = typer.Typer()


@app.command("search")
@handle_errors
def search_cmd(
    book: str = typer.Argument(..., help="Book id or title part (or a series name with --series)."),
    query: str = typer.Argument(..., help="Words or a question."),
    k: int = typer.Option(5, "--k", "-k", min=1, max=50, help="How many passages."),
    series: bool = typer.Option(
        False, "--series", help="BOOK names a series (or its unique beginning): search all its books."
    ),
    spoilers: bool = typer.Option(False, "--spoilers", help="Search past your position, this once."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Hybrid passage search (full text + vectors) within your reading position."""
    from lore.books import search

    if series:
        result = search.search_series(book, query, k, spoilers=spoilers)
    else:
        result = search.search_book(book, query, k, spoilers=spoilers)
    if as_json:
        print_json(result.as_dict())
        return
    if result.verdict != search.FOUND:
        console.print(result.message, highlight=False)
        if result.verdict == search.NOT_REACHED:
            console.print("[dim]Add --spoilers to search the whole book this once.[/dim]")
        return
    for hit in result.hits:
        console.print(
            f"[bold]book {hit.book_id}, chapter {hit.chapter}, passage {hit.passage}[/bold]"
            f" [dim](score {hit.score:.4f})[/dim]",
            highlight=False,
        )
        console.print(escape(_clip(hit.text)), highlight=False)
        console.print()


def _clip(text: str, width: int = 700) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
