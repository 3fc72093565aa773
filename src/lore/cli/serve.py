"""`lore serve`: the local web app (rules to review, books to read, history)."""

from __future__ import annotations

import contextlib

import typer

from lore.cli.common import console, handle_errors

app = typer.Typer(help="Serve the local web app.")


@app.command("serve")
@handle_errors
def serve(
    port: int = typer.Option(
        0, "--port", "-p", min=0, max=65535, help="Port on 127.0.0.1 (default: a free one)."
    ),
    no_open: bool = typer.Option(False, "--no-open", help="Do not open a browser."),
) -> None:
    """Serve the web app (rules, books, history) on 127.0.0.1 with a token for this run.

    Only that address, with its token, opens the UI; Ctrl+C stops it."""
    from lore.web.server import serve as run_server

    def announce(url: str) -> None:
        console.print(f"Lore UI: {url}", highlight=False, soft_wrap=True)
        console.print("[dim]Only this address (with its token) opens the UI. Ctrl+C stops it.[/dim]")

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is how one stops it
        run_server(port, open_browser=not no_open, announce=announce)


def register(root: typer.Typer) -> None:
    """Add `serve` as a top-level command of `root`."""
    root.command("serve")(serve)
