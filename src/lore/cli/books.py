"""`lore books ...`: import books, record how far you have read, search and explore within it.

Every command that shows book content respects the reader's position: nothing past the
chapter you are on is shown (a book you have not started shows nothing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


def _progress() -> Progress:
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


def _authors(book: library.Book) -> str:
    return escape(", ".join(book.authors) or "-")


def _series(book: library.Book) -> str:
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
    with _progress() as bar:
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
        f"{verb}: #{book.id} [bold]{escape(book.title)}[/bold] by {_authors(book)} - {book.chapters}"
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
            _authors(b),
            _series(b),
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
        f"#{info.id} [bold]{escape(info.title)}[/bold] by {_authors(info)} | series: {_series(info)} |"
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
            table.add_row(str(b.id), escape(b.title), _series(b), b.position.describe(b.chapters))
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


@app.command("characters")
@handle_errors
def characters_cmd(
    book: str = typer.Argument(..., help="Book id or a unique part of its title."),
    kind: str = typer.Option(
        None, "--kind", help="person/place/group/name, or with a model character/place/group/object/event."
    ),
    limit: int = typer.Option(30, "--limit", min=1, help="At most N entries."),
    source: str = typer.Option("auto", "--source", help="auto (model layer if extracted), names or model."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Characters, places and other names you have met so far, most mentioned first."""
    from lore.books import entities

    info, found = entities.characters(book, kind=kind, limit=limit, source=source)
    if as_json:
        print_json(
            {
                "book": {"id": info.id, "title": info.title},
                "position": info.as_dict()["position"],
                "entities": [e.as_dict() for e in found],
            }
        )
        return
    named = not found or found[0].source == "names"  # the model layer counts passages only
    table = Table(
        "name",
        "kind",
        *(["mentions"] if named else []),
        "passages",
        "first chapter",
        "also called",
        title=escape(f"{info.title}: names up to {info.position.describe(info.chapters)}"),
    )
    for e in found:
        table.add_row(
            escape(e.name),
            escape(e.kind),
            *([str(e.mentions)] if named else []),
            str(e.passages),
            str(e.first_chapter),
            escape(", ".join(e.aliases[:4])),
        )
    console.print(table)
    if not found:
        console.print(_nothing_yet(info), highlight=False)


@app.command("profile")
@handle_errors
def profile_cmd(
    book: str = typer.Argument(..., help="Book id or a unique part of its title."),
    name: str = typer.Argument(..., help="A name as the book uses it (or its start)."),
    source: str = typer.Option("auto", "--source", help="auto (model layer if extracted), names or model."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """One character or place as you know them so far: names, first appearances, company."""
    from lore.books import entities

    data = entities.profile(book, name, source=source)
    if as_json:
        print_json(data)
        return
    console.print(
        f"[bold]{escape(data['name'])}[/bold] ({escape(data['kind'])}) -"
        f" {_count(data['passages'], 'passage')}"
        f" in {_count(data['chapters'], 'chapter')}, first in chapter {data['first_chapter']}",
        highlight=False,
    )
    if data["aliases"]:
        console.print("also called: " + escape(", ".join(data["aliases"])), highlight=False)
    for f in data.get("facts", []):
        console.print(
            f"  [dim]ch {f['chapter']}.{f['passage']}[/dim] {escape(f['text'])} "
            f"[dim]“{escape(f['quote'])}”[/dim]",
            highlight=False,
        )
    for r in data["relations"] if data["source"] == "model" else []:
        console.print(
            f"  [dim]ch {r['chapter']}.{r['passage']}[/dim] {escape(r['source_name'])}"
            f" {escape(r['kind'])} {escape(r['target_name'])} [dim]“{escape(r['quote'])}”[/dim]",
            highlight=False,
        )
    for a in data.get("appearances", []):
        console.print(
            f"  [dim]ch {a['chapter']}.{a['passage']}[/dim] {escape(a['context'])}", highlight=False
        )
    if data.get("related"):
        console.print(
            "seen with: " + escape(", ".join(f"{r['name']} ({r['passages']})" for r in data["related"])),
            highlight=False,
        )


@app.command("names")
@handle_errors
def names_cmd(
    book: str = typer.Argument(..., help="Book id or a unique part of its title."),
    prefix: str = typer.Argument(..., help="The start of a name."),
    limit: int = typer.Option(10, "--limit", min=1, help="At most N names."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Autocomplete a name among those you have already met."""
    from lore.books import entities

    found = entities.autocomplete(book, prefix, limit=limit)
    if as_json:
        print_json(found)
        return
    for name in found:
        console.print(escape(name), highlight=False)


@app.command("graph")
@handle_errors
def graph_cmd(
    book: str = typer.Argument(..., help="Book id or a unique part of its title."),
    limit: int = typer.Option(30, "--limit", min=1, help="At most N entries."),
    source: str = typer.Option("auto", "--source", help="auto (model layer if extracted), names or model."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Who appears with whom (or, with a model layer, typed relations), within your position."""
    from lore.books import entities

    data = entities.graph(book, limit=limit, source=source)
    if as_json:
        print_json(data)
        return
    if data["source"] == "model":
        table = Table("from", "relation", "to", "chapter", "quote", title=escape(data["book"]["title"]))
        for e in data["edges"]:
            table.add_row(
                escape(e["source_name"]),
                escape(e["kind"]),
                escape(e["target_name"]),
                str(e["chapter"]),
                escape(e["quote"]),
            )
    else:
        table = Table("name", "with", "shared passages", "first chapter", title=escape(data["book"]["title"]))
        for e in data["edges"]:
            table.add_row(
                escape(e["source_name"]),
                escape(e["target_name"]),
                str(e["passages"]),
                str(e["first_chapter"]),
            )
    console.print(table)


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


@app.command("extract")
@handle_errors
def extract(
    book: str = typer.Argument(..., help="Book id or a unique part of its title."),
    no_cache: bool = NO_CACHE_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """With a model: characters, places, groups, objects, events, relations and identities,
    each with a quote checked against its passage. Replaces the book's model layer."""
    from lore.books.model import extract as model_extract

    with _progress() as bar:
        task = bar.add_task("reading with the model", total=None)

        def tick(stage: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        with model_command("books extract", no_cache=no_cache):
            report = model_extract.extract_book(book, progress=tick)
    if as_json:
        print_json(report.as_dict())
        return
    console.print(
        f"{escape(report.title)}: {report.entities} entities, {report.relations} relations,"
        f" {report.identities} identities from {report.chunks} chunks with {escape(report.model)};"
        f" {report.accepted} items kept, {report.rejected} dropped (quote not in its passage, or no"
        f" name the text had given yet), {report.names_set_aside} names set aside until the text"
        " gives them" + (f", {report.failed_chunks} chunk(s) failed" if report.failed_chunks else ""),
        highlight=False,
    )
    console.print(f"model use for this book: {escape(report.usage_line)}", highlight=False)


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
        escape(f"{_count(len(done), 'book')} ({_count(count, 'passage')}) embedded with {name}."),
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


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _clip(text: str, width: int = 700) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _nothing_yet(book: Any) -> str:
    if book.position.chapter <= 0:
        return f"You have not started this book: `lore books progress {book.id} CHAPTER`."
    return "No names in the part you have read."
