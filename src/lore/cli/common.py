"""Helpers shared by CLI commands: consoles, plain echo, JSON output, error translation.

Everything the CLI prints (but Lore's own version string) passes through here, and every path
runs stored text through `lore.core.terminal`: the consoles clean each string before markup and
layout, each `Text` a command built before it is laid out, and, as a net under both, every
segment before it is written; `echo`, `print_json` and `fail` do the same for plain output. Commands never call
`print`, `typer.echo` or `sys.stdout` themselves (a test checks), so none can forget.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from lore.core.errors import LoreError, NotFound
from lore.core.terminal import safe_json, safe_text


class SafeConsole(Console):
    """A rich Console that cannot print terminal control sequences from the text it is given.

    Its own styling (colours, a progress bar's cursor moves) is added after the text is
    cleaned, so it keeps working. Its size is read when it prints, not when it is made: the
    consoles live for the whole process, and `COLUMNS` may change after they were made."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if kwargs.get("width") is None:
            self._width = None
        if kwargs.get("height") is None:
            self._height = None

    def render_str(self, text: str, *args: Any, **kwargs: Any) -> Text:
        return super().render_str(safe_text(text), *args, **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        if isinstance(renderable, Text) and safe_text(renderable.plain) != renderable.plain:
            renderable = _safe_copy(renderable, self)
        return super().render(renderable, options)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control else Segment(safe_text(segment.text), segment.style)
            for segment in buffer
        )


def _safe_copy(text: Text, console: Console) -> Text:
    """A `Text` built by a command, cleaned before layout with its styles kept: each styled
    piece is cleaned on its own (rich has already dropped BEL, so an OSC title sequence runs
    to the end of its piece and goes with it)."""
    pieces = (
        (safe_text(segment.text), segment.style or "") for segment in text.render(console) if segment.text
    )
    copy = Text.assemble(
        *pieces, justify=text.justify, overflow=text.overflow, no_wrap=text.no_wrap, end=text.end
    )
    copy.tab_size = text.tab_size
    return copy


console = SafeConsole()
err_console = SafeConsole(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def echo(text: str, *, err: bool = False) -> None:
    """Plain text (no markup, no wrapping) on stdout or stderr, made safe for a terminal."""
    typer.echo(safe_text(text), err=err)


def print_json(data: Any) -> None:
    """Machine-readable output on stdout (for agents and scripts), controls escaped."""
    text = json.dumps(data, indent=2, default=str, ensure_ascii=False)
    sys.stdout.write(safe_json(text) + "\n")


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one unwrapped line on stderr (scripts and agents parse it) and give the exit."""
    sys.stderr.write(f"error: {safe_text(message, multiline=False)}\n")
    return typer.Exit(code)


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
        except LoreError as exc:
            raise fail(str(exc), exc.exit_code) from None
        except OSError as exc:  # a file or folder the user named cannot be read or written
            where = f": {exc.filename}" if exc.filename else ""
            raise fail(f"{exc.strerror or exc}{where}", 1) from None

    return wrapper  # type: ignore[return-value]
