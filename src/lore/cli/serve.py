"""`lore serve`: the local web app (rules to review, books to read, history), and with `--mcp`
the remote MCP connector; `lore serve tokens` lists and revokes what the connector granted."""

from __future__ import annotations

import contextlib
from pathlib import Path

import typer

from lore.cli.common import console, handle_errors, print_json

app = typer.Typer()
tokens_app = typer.Typer()
app.add_typer(tokens_app, name="tokens")


@app.callback(invoke_without_command=True)
@handle_errors
def serve(
    ctx: typer.Context,
    port: int = typer.Option(
        0, "--port", "-p", min=0, max=65535, help="Port to listen on (default: a free one)."
    ),
    no_open: bool = typer.Option(False, "--no-open", help="Do not open a browser."),
    mcp: bool = typer.Option(
        False,
        "--mcp",
        help="Also serve MCP over streamable HTTP at /mcp, behind OAuth (see docs/connector.md).",
    ),
    project: Path | None = typer.Option(
        None, "--project", help="The project remote MCP sessions serve (default: the current folder's)."
    ),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        help="Address to listen on; other than loopback needs TLS or --insecure-remote.",
    ),
    tls_cert: Path | None = typer.Option(None, "--tls-cert", help="TLS certificate (PEM), with --tls-key."),
    tls_key: Path | None = typer.Option(None, "--tls-key", help="TLS private key (PEM), with --tls-cert."),
    insecure_remote: bool = typer.Option(
        False, "--insecure-remote", help="Serve a non-loopback --host without TLS (only behind a TLS proxy)."
    ),
    public_url: str | None = typer.Option(
        None, "--public-url", help="The address clients reach (e.g. https://lore.example.com), if not --host."
    ),
) -> None:
    """Serve the web app (rules, books, history) on 127.0.0.1 with a token for this run
    (with --mcp, the connector too).

    Only that address, with its token, opens the UI; Ctrl+C stops it."""
    if ctx.invoked_subcommand is not None:
        return
    from lore.core.errors import InvalidInput
    from lore.web.server import Tls
    from lore.web.server import serve as run_server

    if (tls_cert is None) != (tls_key is None):
        raise InvalidInput("--tls-cert and --tls-key go together")
    if project is not None and not mcp:
        raise InvalidInput("--project chooses what remote MCP sessions serve; it needs --mcp")
    tls = Tls(tls_cert, tls_key) if tls_cert and tls_key else None
    remote = None
    chosen = None
    if mcp:
        from lore.web.mcp_http import Remote, served_project

        chosen = served_project(project)

        def remote(base: str) -> Remote:
            return Remote(base, chosen)

    def announce(url: str) -> None:
        console.print(f"Lore UI: {url}", highlight=False, soft_wrap=True)
        if mcp:
            base = url.split("/?token=")[0]
            console.print(f"MCP connector: {base}/mcp", highlight=False, soft_wrap=True)
            if chosen is None:
                console.print(
                    "[dim]No project for remote sessions (--project PATH): rules tools say so.[/dim]"
                )
        console.print("[dim]Only this address (with its token) opens the UI. Ctrl+C stops it.[/dim]")

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is how one stops it
        run_server(
            port,
            open_browser=not no_open,
            announce=announce,
            host=host,
            remote=remote,
            tls=tls,
            insecure=insecure_remote,
            public_url=public_url,
        )


@tokens_app.callback(invoke_without_command=True)
@handle_errors
def tokens(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the connector's grants (client, created, expires, last used)."""
    if ctx.invoked_subcommand is not None:
        return
    from lore.core.dates import local_minute, to_epoch
    from lore.web.oauth.grants import list_grants

    grants = list_grants()
    if as_json:
        print_json([g.as_dict() for g in grants])
        return
    if not grants:
        console.print("No grants: no client has been approved (see docs/connector.md).")
        return

    def when(text: str | None) -> str:
        return local_minute(to_epoch(text)) if text else "-"

    for g in grants:
        console.print(
            f"{g.id}  {g.client[:40]:<40}  {g.state:<7}  created {when(g.created)}  "
            f"expires {when(g.expires)}  last used {when(g.last_used)}",
            highlight=False,
            markup=False,
        )


@tokens_app.command("revoke")
@handle_errors
def revoke(
    grant_id: str | None = typer.Argument(None, metavar="ID", help="A grant's id from `lore serve tokens`."),
    every: bool = typer.Option(False, "--all", help="Revoke every grant."),
) -> None:
    """Revoke a grant (its access and refresh tokens stop working at once), or --all."""
    from lore.web.oauth.grants import revoke as revoke_grants

    count = revoke_grants(grant_id, every=every)
    console.print(f"Revoked {count} grant{'s' if count != 1 else ''}.")
