"""`lore model`: see the model setup, try it, and look after the cache and the bill."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from lore.cli.common import console, handle_errors, print_json
from lore.cli.model_use import NO_CACHE_OPTION, model_command
from lore.core.llm import cache, overview, usage
from lore.core.llm.tasks import known_tasks_text

app = typer.Typer(
    help="Language models and embedders: setup, a test call, the cache, the bill.",
    no_args_is_help=True,
)
cache_app = typer.Typer(help="The content-hash cache of completions and embeddings.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@app.command("show")
@handle_errors
def show(
    task: str = typer.Option(None, "--task", help=f"Show the model this task goes to: {known_tasks_text()}."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Print the model configuration (the API key masked) and where each value came from."""
    info = overview.setup_overview(task)
    if as_json:
        print_json(info)
        return
    chat = info["chat"]
    missing = info.get("missing_key")
    table = Table("setting", "value", "from", show_header=True)
    if missing is not None:
        table.add_row("chat model", escape(missing["model"]), escape(missing["from"]))
        table.add_row("API key", "[yellow]missing[/yellow]", "see below")
    elif chat is None:
        table.add_row("chat model", "[yellow]none[/yellow]", "")
    else:
        sources = chat["sources"]
        table.add_row("chat model", f"{chat['provider']}:{chat['model']}", sources.get("model", ""))
        table.add_row("base URL", chat["base_url"], sources.get("base_url", ""))
        table.add_row("API key", chat["api_key"] or "-", sources.get("api_key", ""))
        table.add_row("structured output", chat["structured"], "")
    for name, entry in info["tasks"].items():
        table.add_row(
            f"task {name}",
            escape(entry["model"]) if entry["model"] else "[yellow]none[/yellow]",
            escape(entry["from"]),
        )
    embed = info["embedder_info"]
    line = escape(info["embedder"]) if embed.get("usable") else f"[yellow]{escape(info['embedder'])}[/yellow]"
    table.add_row("embedder", line, escape(str(embed.get("from", ""))))
    table.add_row("vector search", info["vector_search"], "")
    limits = info["limits"]
    table.add_row(
        "limits",
        f"timeout {limits['timeout']:g}s, {limits['max_retries']} retries,"
        f" {limits['max_concurrency']} at once",
        "",
    )
    prices = ", ".join(f"{m} ${p['input']:g}/${p['output']:g}" for m, p in info["prices"].items())
    table.add_row("prices (per 1M tokens)", prices or "-", "config model.prices")
    console.print(table)
    if missing is not None:
        console.print(
            f"[yellow]No API key[/yellow] for {escape(missing['model'])}; Lore looked in, in this order:",
            highlight=False,
        )
        for place in missing["places"]:
            console.print(f"  {escape(place)}", highlight=False)
        console.print("Run `lore model setup` to point Lore at the key (only a reference is saved).")
    elif chat is None:
        console.print(f"[yellow]No model:[/yellow] {info['needs_model']}", highlight=False)
        console.print(
            "Without one, everything deterministic still works (rules, the history graph,"
            " book search); interpreted features say what they need."
        )


@app.command("test")
@handle_errors
def model_test(
    task: str = typer.Option(None, "--task", help=f"Test the model this task goes to: {known_tasks_text()}."),
    no_cache: bool = NO_CACHE_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Make one tiny call (never from the cache) and report the latency and the model's name."""
    with model_command("model test", no_cache=no_cache):
        result = overview.ping_model(task)
    if as_json:
        print_json(result)
        return
    tokens = f"{result['prompt_tokens']} prompt + {result['completion_tokens']} completion tokens"
    if result["estimated_tokens"]:
        tokens += " (estimated)"
    console.print(
        f"[green]ok[/green] {result['model']} answered in {result['latency_ms']:.0f} ms"
        f" (model {result['reply_model']}): {result['reply']!r}; {tokens}",
        highlight=False,
    )


@cache_app.command("stats")
@handle_errors
def cache_stats(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """How many completions and vectors are cached, and how often the cache answered."""
    stats = cache.cache_stats()
    if as_json:
        print_json(stats.as_dict())
        return
    console.print(
        f"{stats.chat_entries} completions ({stats.chat_hits} cache hits,"
        f" {stats.chat_bytes / 1024:.1f} KiB), {stats.embed_entries} vectors"
        f" ({stats.embed_bytes / 1024:.1f} KiB)",
        highlight=False,
    )
    if stats.by_model:
        table = Table("kind", "model", "entries", "hits")
        for row in stats.by_model:
            table.add_row(
                row["kind"],
                row["model"],
                str(row["entries"]),
                "-" if row["hits"] is None else str(row["hits"]),
            )
        console.print(table)


@cache_app.command("clear")
@handle_errors
def cache_clear(
    kind: str = typer.Option(None, "--kind", help="Only `chat` completions or `embed` vectors."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Delete cached completions and/or vectors (the next run pays for them again)."""
    if not yes:
        typer.confirm("Delete the cached model replies? Re-running will call (and pay) again", abort=True)
    removed = cache.clear_cache(kind)
    if as_json:
        print_json({"removed": removed, "kind": kind or "all"})
        return
    console.print(f"removed {removed} cached entries", highlight=False)


@app.command("usage")
@handle_errors
def usage_report(
    by: str = typer.Option("subject", "--by", help="Group by `subject`, `model` or `run`."),
    subject: str = typer.Option(None, "--subject", help="Only subjects starting with this."),
    run: str = typer.Option(None, "--run", help="Only this run id."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """What model use cost: calls, tokens, cache hits and (with a price table) dollars."""
    groups = usage.usage_report(by, subject_prefix=subject, run_id=run)
    if as_json:
        print_json({k: v.as_dict() for k, v in groups.items()})
        return
    if not groups:
        console.print("No model use recorded yet.")
        return
    table = Table(by, "calls", "cache hits", "prompt tok", "completion tok", "embedded", "cost")
    for name, t in groups.items():
        table.add_row(
            name or "-",
            str(t.calls),
            str(t.cache_hits + t.embed_cache_hits),
            f"{t.prompt_tokens:,}" + ("~" if t.estimated_tokens else ""),
            f"{t.completion_tokens:,}",
            f"{t.embedded_texts:,}",
            "-" if t.cost is None else f"${t.cost:.4f}",
        )
    console.print(table)
    if any(t.estimated_tokens for t in groups.values()):
        console.print("~ some token counts are estimates (the provider sent none)", style="dim")
