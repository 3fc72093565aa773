"""The progress bar of `lore history ingest` on a terminal: counts, rate, rate-limit countdowns.

Kept apart from the command so that rich's progress machinery is imported only when a person
is watching a terminal; an ingest whose stderr is a pipe, a file or a log shows no bar.
"""

from __future__ import annotations

import time
from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from lore.cli.common import err_console


class _Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f}/s" if speed else "", style="cyan")


class RichProgress:
    """Progress bars with counts and rates on stderr; rate-limit waits as a countdown."""

    def __init__(self) -> None:
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _Rate(),
            TimeElapsedColumn(),
            console=err_console,
            transient=False,
        )
        self.task: Any = None

    def __enter__(self) -> RichProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def start(self, label: str, total: int | None = None) -> None:
        if self.task is not None:
            self.bar.update(self.task, total=self.bar.tasks[-1].completed)
        self.task = self.bar.add_task(label, total=total)

    def advance(self, n: int = 1) -> None:
        if self.task is not None and n:
            self.bar.advance(self.task, n)

    def wait(self, seconds: float, reason: str) -> None:
        countdown = self.bar.add_task(f"[yellow]waiting: {reason}", total=max(seconds, 0.01))
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self.bar.update(
                countdown, completed=seconds - left, description=f"[yellow]{reason}: {left:,.0f}s left"
            )
            time.sleep(min(1.0, left))
        self.bar.remove_task(countdown)

    def note(self, message: str) -> None:
        self.bar.console.print(Text.assemble(("note:", "yellow"), " ", message), highlight=False)
