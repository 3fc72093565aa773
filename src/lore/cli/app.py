"""The Typer application: `lore version`, `lore mcp` and a lazy table of domain commands.

Each domain's commands live in their own module, imported only when one of them runs
(`lore.cli.lazy`); this module imports nothing but Typer, so `lore --help` is quick.
"""

from __future__ import annotations

import typer

from lore import __version__
from lore.cli import coercion
from lore.cli.lazy import LazyGroup

coercion.install()  # plain values skip pydantic (see lore.cli.coercion)

app = typer.Typer(
    name="lore",
    cls=LazyGroup,
    help="Local-first memory for coding agents and readers: rules, engineering history, cited books.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"lore {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print Lore's version and exit."
    ),
) -> None:
    """Local-first memory for coding agents and readers: rules, engineering history, cited books."""


@app.command("version")
def version() -> None:
    """Print Lore's version."""
    typer.echo(__version__)


@app.command("mcp")
def mcp_command() -> None:
    """Run the MCP server on stdio (what agents start; see `lore install`)."""
    from lore.mcp.server import run_stdio

    run_stdio([])


def run() -> None:
    app()
