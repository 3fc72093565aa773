"""Helpers shared by CLI commands: consoles, plain echo, JSON output, error translation.

The consoles (`console`, `err_console`: `lore.cli.consoles`) are made when a command first uses
one, so a command that prints plain text never imports rich.

Everything the CLI prints (but Lore's own version string) passes through here, and every path
runs stored text through `lore.core.terminal`: the consoles clean each string before markup and
layout, each `Text` a command built before it is laid out, and, as a net under both, every
segment before it is written; `echo`, `print_json` and `fail` do the same for plain output. Commands never call
`print`, `typer.echo` or `sys.stdout` themselves (a test checks), so none can forget.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lore.core.errors import LoreError, NotFound
from lore.core.terminal import safe_json, safe_text

if TYPE_CHECKING:  # Typer loads when a command uses it: the quick path (`cli.quick`) never does
    import typer

    from lore.cli.consoles import SafeConsole

    console: SafeConsole  # stdout; both made on first use (see `__getattr__`)
    err_console: SafeConsole  # stderr

_CONSOLES = {"console": {}, "err_console": {"stderr": True}}


def __getattr__(name: str) -> Any:
    """`console`, `err_console` and `SafeConsole`, made when a command first asks for them: a
    command that prints plain text (`echo`, `print_json`) never imports rich."""
    if name == "SafeConsole" or name in _CONSOLES:
        from lore.cli import consoles

        if name == "SafeConsole":
            return consoles.SafeConsole
        made = globals()[name] = consoles.SafeConsole(**_CONSOLES[name])
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def esc(text: str) -> str:
    """`text` with rich markup escaped, for a line printed through a console (rich loads then)."""
    from rich.markup import escape

    return escape(text)


def add_row(table: Any, *cells: object) -> None:
    """A row of plain text in a rich `Table`: stored text may hold `[...]`, which rich would
    otherwise read as markup."""
    table.add_row(*(esc(str(c)) for c in cells))


F = TypeVar("F", bound=Callable[..., Any])


def echo(text: str, *, err: bool = False) -> None:
    """Plain text (no markup, no wrapping) on stdout or stderr, made safe for a terminal."""
    import typer

    typer.echo(safe_text(text), err=err)


def write(text: str) -> None:
    """Text already laid out (its own newlines, no markup) on stdout, made safe for a terminal,
    without importing Typer or rich: the path a short command's plain output takes."""
    sys.stdout.write(safe_text(text))
    sys.stdout.flush()


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (False when it was replaced or closed)."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def stderr_is_terminal() -> bool:
    """Whether a person watches stderr (a progress bar is drawn only then)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        return False


def print_json(data: Any) -> None:
    """Machine-readable output on stdout (for agents and scripts), controls escaped."""
    text = json.dumps(data, indent=2, default=str, ensure_ascii=False)
    sys.stdout.write(safe_json(text) + "\n")


def say_error(message: str) -> None:
    """One unwrapped line on stderr, `error: MESSAGE` (scripts and agents parse it)."""
    sys.stderr.write(f"error: {safe_text(message, multiline=False)}\n")


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one unwrapped line on stderr (scripts and agents parse it) and give the exit."""
    import typer

    say_error(message)
    return typer.Exit(code)


def user_error(exc: BaseException) -> tuple[str, int] | None:
    """The line and exit code of an error a user can cause (a `LoreError`, a file or folder
    that cannot be read or written); None for anything else, which is a bug."""
    if isinstance(exc, LoreError):
        return str(exc), exc.exit_code
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}", 1
    return None


def existing(path: Path) -> Path:
    """`path` if it exists. One rule for every command that reads a file or folder the user
    named: a missing one is NotFound (exit 3), said before anything else is looked at."""
    if not path.expanduser().exists():
        raise NotFound(f"no such file or folder: {path}")
    return path


def handle_errors(fn: F) -> F:
    """Turn a LoreError into one line on stderr and its exit code."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (LoreError, OSError) as exc:  # OSError: a file or folder the user named
            message, code = user_error(exc) or (str(exc), 1)
            raise fail(message, code) from None

    return wrapper  # type: ignore[return-value]
