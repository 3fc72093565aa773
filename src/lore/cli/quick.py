"""`lore history why` without Typer, when its arguments are plain.

`why` is asked many times in a row, by people and by agents, and most of what a short `why` cost
was starting Typer (its import and its parameter machinery) for one argument and a few options.
Here the console script (`lore.cli.entry`) reads those arguments itself and runs the same code
the Typer command runs (`lore.cli.why_view.run_why`), so the output is the same bytes. Only
plain arguments are read here: one TARGET and each option at most once, written `--opt VALUE`,
`--opt=VALUE` or `-n VALUE`, with a `--limit` inside its bounds. Anything else (`--help`, an
option this path does not know, a missing value, a bound crossed, `--`, a TARGET that starts
with `-`) is left to Typer, whose messages and exit codes stay the only ones.
"""

from __future__ import annotations

from lore.core.errors import LoreError

# option -> (the keyword it fills, whether it takes a value)
_OPTIONS = {
    "--as-of": ("as_of", True),
    "--limit": ("limit", True),
    "-n": ("limit", True),
    "--no-model": ("no_model", False),
    "--repo": ("repo", True),
    "-r": ("repo", True),
    "--json": ("as_json", False),
}
LIMITS = (1, 50)  # `--limit`'s bounds, as the Typer command declares them


def why_arguments(args: list[str]) -> dict[str, object] | None:
    """The keywords of `run_why` for `lore history why ARGS`, or None when Typer must read them."""
    found: dict[str, object] = {"as_of": None, "limit": 10, "no_model": False, "repo": None, "as_json": False}
    given: set[str] = set()
    targets: list[str] = []
    rest = list(args)
    while rest:
        token = rest.pop(0)
        if not token.startswith("-"):
            targets.append(token)
            continue
        name, eq, inline = token.partition("=")
        if name not in _OPTIONS or (eq and not name.startswith("--")):
            return None
        key, takes_value = _OPTIONS[name]
        if key in given or (eq and not takes_value):
            return None
        given.add(key)
        if not takes_value:
            found[key] = True
            continue
        if eq:
            value = inline
        elif rest and not rest[0].startswith("-"):
            value = rest.pop(0)
        else:
            return None
        if key == "limit":
            if not value.isdigit() or not LIMITS[0] <= int(value) <= LIMITS[1]:
                return None
            found[key] = int(value)
        else:
            found[key] = value
    if len(targets) != 1:
        return None
    return {"target": targets[0], **found}


def why(args: list[str]) -> int | None:
    """Run `lore history why ARGS` and return its exit code, or None when Typer must run it."""
    parsed = why_arguments(args)
    if parsed is None:
        return None
    from lore.cli.common import say_error, user_error
    from lore.cli.why_view import run_why

    try:
        run_why(**parsed)  # type: ignore[arg-type]
    except (LoreError, OSError) as exc:
        message, code = user_error(exc) or (str(exc), 1)
        say_error(message)
        return code
    return 0
