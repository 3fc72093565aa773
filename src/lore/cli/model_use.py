"""What every command that calls a model shares: `--no-cache` and one line of cost at the end.

Its own module, importing the model layer only when a command actually runs one, so that
`lore books list` and the other commands that never call a model start without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from lore.cli.common import err_console

# for any command that calls a model: `no_cache: bool = NO_CACHE_OPTION`, then `model_command`
NO_CACHE_OPTION = typer.Option(
    False,
    "--no-cache",
    help="Ask the model again instead of replaying cached replies (the fresh ones are kept).",
)


@contextmanager
def model_command(label: str, *, no_cache: bool = False, subject: str | None = None) -> Iterator[str]:
    """A command's model work as one run, with its `--no-cache` applied and its cost reported
    in one line on stderr at the end (nothing when no model was used); yields the run id.

        with model_command("books extract", no_cache=no_cache):
            report = model_extract.extract_book(book)
    """
    from lore.core.llm import cache, usage

    with usage.model_run(label, subject=subject) as run, cache.bypass_cache(no_cache):
        yield run
    report_model_use(run)


def report_model_use(run_id: str) -> None:
    """One line on stderr at the end of a command: what its model use cost (nothing if none).

    `model_command` calls it; call it yourself only for a run made with `model_run`."""
    from lore.core.llm import usage

    totals = usage.totals(run_id=run_id)
    if totals.calls or totals.cache_hits or totals.embed_calls or totals.embed_cache_hits:
        err_console.print(f"model use: {totals.line()}", style="dim", highlight=False, soft_wrap=True)
