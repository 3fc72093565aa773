"""The Typer application: one group per domain, each defined in its own module."""

from __future__ import annotations

import typer

from lore import __version__

app = typer.Typer(
    name="lore",
    help="Local-first memory for coding agents and readers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command("version")
def version() -> None:
    """Print Lore's version."""
    typer.echo(__version__)


@app.command("mcp")
def mcp_command() -> None:
    """Run the MCP server on stdio (what agents start; see `lore install`)."""
    from lore.mcp.server import run_stdio

    run_stdio([])


# one line per command group; each module owns its commands
from lore.cli import projects, review  # noqa: E402

app.add_typer(projects.app, name="projects")
app.add_typer(review.app, name="review")
projects.register_top_level(app)
from lore.cli import books  # noqa: E402

app.add_typer(books.app, name="books")
from lore.cli import install, review_lint, rules_files  # noqa: E402, F401  (install; lint; file commands)

install.register(app)
rules_files.register(app)
from lore.cli import model  # noqa: E402

app.add_typer(model.app, name="model")
from lore.cli import serve  # noqa: E402

serve.register(app)
from lore.cli import history  # noqa: E402

app.add_typer(history.app, name="history")


def run() -> None:
    app()
