"""`lore books characters`, `profile`, `names`, `graph` and `extract`: the characters, places
and other names a reader has met within their position, and the model layer that extraction
builds. A part of the `books` group (`cli/lazy.py`), imported only when one of them runs."""

from __future__ import annotations

from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from lore.cli.books import count_of, progress_bar
from lore.cli.common import console, handle_errors, print_json
from lore.cli.model_use import NO_CACHE_OPTION, model_command

app = typer.Typer()


@app.command("characters")
@handle_errors
def characters_cmd(
    book: str = typer.Argument(..., help="Book id or a unique part of its title."),
    kind: str = typer.Option(
        None, "--kind", help="person/place/group/name, or with a model character/place/group/object/event."
    ),
    limit: int = typer.Option(30, "--limit", min=1, help="At most N entries."),
    source: str = typer.Option("auto", "--source", help="auto (model layer if extracted), names or model."),
    every: bool = typer.Option(
        False, "--all", help="Every name met, also those seen in only one or two passages."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Characters, places and other names you have met so far, the most present first.

    Ranked by the passages a name appears in, then by its mentions. Without a model layer only
    names with enough evidence are listed: seen in two passages when the text says what they
    are (a title, "said X", "in X"), else in three; --all lists every name met."""
    from lore.books import entities

    info, found = entities.characters(book, kind=kind, limit=limit, source=source, every=every)
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
        console.print(
            _nothing_yet(info) if not every else "No names in the part you have read.", highlight=False
        )


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
        f" {count_of(data['passages'], 'passage')}"
        f" in {count_of(data['chapters'], 'chapter')}, first in chapter {data['first_chapter']}",
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

    with progress_bar() as bar:
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


def _nothing_yet(book: Any) -> str:
    if book.position.chapter <= 0:
        return f"You have not started this book: `lore books progress {book.id} CHAPTER`."
    return "No name is seen often enough yet in the part you have read (--all lists every name met)."
