"""`lore books ...`: import books, record how far you have read, search and explore within it.

Every command that shows book content respects the reader's position: nothing past the
chapter you are on is shown (a book you have not started shows nothing).

This module is the group, what its parts share, and the library's commands (add, list, show,
progress, reindex, remove); its parts (`cli/lazy.py`) are `books_characters` (who and what the
reader has met, and the model layer), `books_search` and `books_ask`, each imported only when
one of its commands runs.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from lore.books import library
from lore.cli.common import console, err_console, existing, handle_errors, print_json
from lore.cli.model_use import NO_CACHE_OPTION, model_command
from lore.core.dates import local_minute
from lore.core.errors import InvalidInput

app = typer.Typer(
    help="Books: import EPUB/PDF/text, set your reading position, search spoiler-free.",
    no_args_is_help=True,
)

STAGES = {
    "reading": "reading the file",
    "passages": "splitting passages",
    "names": "finding names",
    "vectors": "embedding passages",
    "done": "done",
}


def progress_bar() -> Progress:
    """The bar long book work shows on stderr, only when stderr is a terminal."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    )


def authors_of(book: library.Book) -> str:
    return escape(", ".join(book.authors) or "-")


def series_of(book: library.Book) -> str:
    if not book.series:
        return "-"
    index = book.series_index
    if index is None:
        return escape(book.series)
    return escape(f"{book.series} #{int(index) if float(index).is_integer() else index}")


@app.command("add")
@handle_errors
def add(
    file: Path = typer.Argument(..., help="An EPUB (2 or 3), PDF or plain-text file."),
    series: str = typer.Option(None, "--series", help="Series name (overrides the file's)."),
    series_index: float = typer.Option(None, "--series-index", min=0, help="Position in the series."),
    title: str = typer.Option(None, "--title", help="Title (overrides the file's)."),
    author: str = typer.Option(None, "--author", help="Author (overrides the file's)."),
    no_cache: bool = NO_CACHE_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print the book as JSON."),
) -> None:
    """Import a book: chapters, passages, full-text index, names and passage vectors."""
    existing(file)
    with progress_bar() as bar:
        task = bar.add_task(escape(f"importing {file.name}"), total=None)

        def tick(stage: str, done: int, total: int) -> None:
            bar.update(
                task,
                description=escape(f"{file.name}: {STAGES.get(stage, stage)}"),
                completed=done,
                total=total,
            )

        with model_command("books add", no_cache=no_cache):
            book = library.add_book(
                file, series=series, series_index=series_index, title=title, author=author, progress=tick
            )
    if as_json:
        print_json(book.as_dict())
        return
    verb = "Already in your library" if book.already_present else "Added"
    console.print(
        f"{verb}: #{book.id} [bold]{escape(book.title)}[/bold] by {authors_of(book)} - {book.chapters}"
        f" chapters, {book.passages:,} passages, {book.words:,} words"
        f" ({escape(book.format)}; {escape(book.notes or '-')})",
        highlight=False,
    )
    for warning in book.warnings:
        console.print(f"Note: {escape(warning)}", highlight=False)
    if not book.already_present:
        console.print(
            f"Reading position: not started. Set it with `lore books progress {book.id} CHAPTER`.",
            highlight=False,
        )


@app.command("list")
@handle_errors
def list_cmd(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text.")) -> None:
    """List the books in your library: format (epub, pdf, text), size and your position in each."""
    books = library.list_books()
    if as_json:
        print_json([b.as_dict() for b in books])
        return
    table = Table(
        "id", "title", "author", "series", "format", "chapters", "words", "position", title="Library"
    )
    for b in books:
        table.add_row(
            str(b.id),
            escape(b.title),
            authors_of(b),
            series_of(b),
            escape(b.format),
            str(b.chapters),
            f"{b.words:,}",
            b.position.describe(b.chapters),
        )
    console.print(table)
    if not books:
        console.print("No books yet: `lore books add FILE`.")


@app.command("show")
@handle_errors
def show(
    book: str = typer.Argument(..., help="Book id or a unique part of its title."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """A book's chapters and your position (titles of chapters ahead of you stay hidden)."""
    from lore.books.model import extract as model_extract

    info, outline = library.chapters(book)
    usage = model_extract.model_usage(info.id)
    if as_json:
        print_json({"book": info.as_dict(), "chapters": outline, "model_usage": usage})
        return
    console.print(
        f"#{info.id} [bold]{escape(info.title)}[/bold] by {authors_of(info)} | series: {series_of(info)} |"
        f" {escape(info.format)} | {info.words:,} words | position: "
        f"{info.position.describe(info.chapters)}",
        highlight=False,
    )
    added = local_minute(info.added_at)
    console.print(
        f"[dim]{escape(info.source_path)} (added {added}; {escape(info.notes)})[/dim]", highlight=False
    )
    used = usage["line"] if usage["calls"] or usage["cache_hits"] else "none (no model has read it)"
    console.print(f"model use: {escape(used)}", highlight=False)
    table = Table("chapter", "title", "words", "passages")
    for ch in outline:
        title = escape(ch["title"]) if ch["reached"] else "[dim](not reached)[/dim]"
        if ch["reached"]:
            table.add_row(str(ch["chapter"]), title, f"{ch['words']:,}", str(ch["passages"]))
        else:
            table.add_row(str(ch["chapter"]), title, "", "")
    console.print(table)


@app.command("progress")
@handle_errors
def progress(
    book: str = typer.Argument(None, help="Book id or title part (omit to list every position)."),
    chapter: str = typer.Argument(None, help="Chapter you have read up to: 1..n, 0 = not started, end."),
    passage: int = typer.Option(None, "--passage", min=1, help="Passage within that chapter you are at."),
    percent: float = typer.Option(
        None, "--percent", min=0, max=100, help="How far you are, as a share of the book's words."
    ),
    at: str = typer.Option(
        None,
        "--at",
        help="A few words you have just read (found further on: the first place past your position).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Show or set how far you have read: the cap every search and list respects.

    Say where you are as a chapter (with --passage N), as --percent P of the book's words, or
    with --at "the words you just read"; the passage you are in is visible whole."""
    ways = [chapter is not None, percent is not None, at is not None]
    if sum(ways) > 1:
        raise InvalidInput("give one of CHAPTER, --percent or --at")
    if passage is not None and chapter is None:
        raise InvalidInput("--passage needs a CHAPTER")
    if book is None and any(ways):
        raise InvalidInput("name the book whose position to set")
    if percent is not None or at is not None:
        if percent is not None:
            updated = library.set_progress_percent(book, percent)
        else:
            updated = library.set_progress_at(book, at)
        _print_position(updated, as_json)
        return
    if book is None:
        books = library.list_books()
        if as_json:
            print_json([{"id": b.id, "title": b.title, **b.as_dict()["position"]} for b in books])
            return
        table = Table("id", "title", "series", "position", title="Reading positions")
        for b in books:
            table.add_row(str(b.id), escape(b.title), series_of(b), b.position.describe(b.chapters))
        console.print(table)
        return
    if chapter is None:
        found = library.find_book(book)
        if as_json:
            print_json({"id": found.id, "title": found.title, **found.as_dict()["position"]})
            return
        console.print(f"{escape(found.title)}: {found.position.describe(found.chapters)}", highlight=False)
        return
    _print_position(library.set_progress(book, chapter, passage), as_json)


def _print_position(updated: library.Book, as_json: bool) -> None:
    if as_json:
        print_json({"id": updated.id, "title": updated.title, **updated.as_dict()["position"]})
        return
    console.print(f"{escape(updated.title)}: {updated.position.describe(updated.chapters)}", highlight=False)


@app.command("reindex")
@handle_errors
def reindex(
    book: str | None = typer.Argument(
        None,
        help="Book id or a unique part of its title; none: every book the current embedder has not embedded.",
    ),
    no_cache: bool = NO_CACHE_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Embed passages with the embedder configured now: one book again, or every book whose
    vectors another model made (searches do this too, on first use after a switch)."""
    from lore.books.passage_vectors import embedder

    with model_command("books reindex", no_cache=no_cache):
        if book is not None:
            info, count = library.reindex(book)
        else:
            done, count = library.reindex_stale()
    name = embedder().name
    if book is not None:
        if as_json:
            print_json({"id": info.id, "title": info.title, "passages": count, "embedder": name})
            return
        console.print(escape(f"{info.title}: {count} passages embedded with {name}."), highlight=False)
        return
    if as_json:
        print_json({"books": [b.id for b in done], "passages": count, "embedder": name})
        return
    if not done:
        console.print(escape(f"Every book already has {name} vectors; nothing to embed."), highlight=False)
        return
    console.print(
        escape(f"{count_of(len(done), 'book')} ({count_of(count, 'passage')}) embedded with {name}."),
        highlight=False,
    )


@app.command("remove")
@handle_errors
def remove(
    book: str = typer.Argument(..., help="Book id or a unique part of its title."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Remove a book and everything derived from it."""
    gone = library.remove_book(book)
    if as_json:
        print_json({"removed": gone.id, "title": gone.title})
        return
    console.print(escape(f"Removed #{gone.id} {gone.title}."), highlight=False)


def count_of(n: int, noun: str) -> str:
    """A count and its noun, plural unless it is one ("3 passages", "1 book")."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
