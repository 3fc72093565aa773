"""Helpers shared by CLI commands: consoles, JSON output, error translation."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import typer
from rich.console import Console

from lore.core.errors import LoreError

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def print_json(data: Any) -> None:
    """Machine-readable output on stdout (for agents and scripts)."""
    sys.stdout.write(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one unwrapped line on stderr (scripts and agents parse it) and give the exit."""
    sys.stderr.write(f"error: {message}\n")
    return typer.Exit(code)


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
