"""How long-running ingest work reports itself; the CLI renders it, tests ignore it.

A progress that shows no total sets `total_wanted = False`: the ingest then does not ask git
to count the commits ahead (a walk of the whole history) only for a bar nobody sees.
"""

from __future__ import annotations

import time
from typing import Protocol


class Progress(Protocol):
    def start(self, label: str, total: int | None = None) -> None:
        """A new phase (`commits`, `issues page 3`...), with a total when known."""

    def advance(self, n: int = 1) -> None:
        """`n` more units of the current phase are done."""

    def wait(self, seconds: float, reason: str) -> None:
        """Sleep `seconds` (a rate limit); a renderer shows a countdown meanwhile."""

    def note(self, message: str) -> None:
        """A one-line remark worth showing (a warning, a skipped stream)."""


class QuietProgress:
    """Reports nothing; waits really wait."""

    total_wanted = False

    def start(self, label: str, total: int | None = None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def wait(self, seconds: float, reason: str) -> None:
        time.sleep(max(0.0, seconds))

    def note(self, message: str) -> None:
        pass
