"""Console-script entry point.

`lore mcp` is started by agents at the beginning of every session, so it skips the Typer app
(and everything the other commands import) and goes straight to the server.
"""

from __future__ import annotations

import sys


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "mcp" and not {"-h", "--help"} & set(sys.argv[2:]):
        from lore.mcp.server import run_stdio

        run_stdio(sys.argv[2:])
        return
    from lore.cli.app import run

    run()


if __name__ == "__main__":
    main()
