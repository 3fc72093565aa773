"""Console-script entry point.

`lore mcp` is started by agents at the beginning of every session, so it skips the Typer app
(and everything the other commands import) and goes straight to the server. `lore version`
and `lore --version` skip it too: running any Typer command goes through its parameter
machinery, which would be most of what printing a version costs. `lore history why` with plain
arguments skips it as well (`lore.cli.quick`), and goes to Typer for anything else.

Every other command runs with one OpenBLAS thread unless the user chose a number: when numpy
loads, OpenBLAS starts a thread per core, and starting them costs about as much CPU as the rest
of numpy's import (more with more cores), for products that Lore keeps below its threading
threshold anyway (`rules.serve.meaning.blocked_product`) or that are a single matrix-vector
product, bound by memory rather than by cores.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["mcp"] and not {"-h", "--help"} & set(args[1:]):
        from lore.mcp.server import run_stdio

        run_stdio(args[1:])
        return
    if args in (["version"], ["--version"]):
        from lore import __version__

        sys.stdout.write(f"{'lore ' if args[0] == '--version' else ''}{__version__}\n")
        return
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args[:2] == ["history", "why"]:  # plain arguments need no Typer (see `lore.cli.quick`)
        from lore.cli.quick import why

        code = why(args[2:])
        if code is not None:
            sys.exit(code)
    from lore.cli.app import run

    run()


if __name__ == "__main__":
    main()
