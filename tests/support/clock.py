"""A clock that moves only when told: waiting out a rate limit costs the test no time.

A client given `sleep=clock.sleep, clock=clock.now` and a fake server given `clock=clock.now`
agree on what time it is, so the whole wait (the server's reset, the client's countdown, the
retry) runs end to end while no thread ever sleeps.
"""

from __future__ import annotations

import threading
import time


class FakeClock:
    def __init__(self, start: float | None = None):
        self._now = time.time() if start is None else start  # epoch-like, as servers send resets
        self._lock = threading.Lock()
        self.waits: list[tuple[float, str]] = []

    def now(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float, reason: str = "") -> None:
        """Record the wait and move time forward by it, at once."""
        with self._lock:
            self.waits.append((seconds, reason))
            self._now += max(0.0, seconds)
