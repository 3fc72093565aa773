"""The terminal-safe rich consoles (`lore.cli.common.console` and `err_console` are made here).

Kept apart from `common` so that rich (a tenth of the CPU of a `lore review resolve`, which prints
plain text) is imported by the first command that prints through a console, not by every one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleDimensions, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from lore.core.terminal import UNWRAPPED, safe_text

__all__ = ["UNWRAPPED", "SafeConsole"]


class SafeConsole(Console):
    """A rich Console that cannot print terminal control sequences from the text it is given.

    Its own styling (colours, a progress bar's cursor moves) is added after the text is
    cleaned, so it keeps working. Its size is read when it prints, not when it is made: the
    consoles live for the whole process, and `COLUMNS` may change after they were made. Printing
    to something that is not a terminal, it does not wrap (rich would wrap at the size of
    another stream's terminal, or at 80 columns)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if kwargs.get("width") is None:
            self._width = None
        if kwargs.get("height") is None:
            self._height = None

    def _measured(self) -> ConsoleDimensions:
        size = Console.size.fget(self)  # type: ignore[attr-defined]
        if self._width is None and not self._environ.get("COLUMNS") and not self.is_terminal:
            return ConsoleDimensions(UNWRAPPED, size.height)
        return size

    size = property(_measured, Console.size.fset)  # type: ignore[attr-defined]

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
