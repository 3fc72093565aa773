"""Ctrl-C during an ingest: stop at the next commit, keep what was read, then raise.

A `KeyboardInterrupt` can land anywhere, also half-way through turning one commit into rows,
and whatever is still buffered then is lost: a whole batch of commits read since the last
write. While `deferred_interrupt` is active, a first SIGINT only sets `requested`; the ingest
looks at it between two commits, writes what it read with the point it reached (so the next
run resumes there) and raises `KeyboardInterrupt` itself. A second SIGINT interrupts at once,
for someone who will not wait for that write.

Signal handlers belong to the main thread: elsewhere (a web worker) nothing is deferred.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Deferral:
    """Whether a Ctrl-C arrived while deferred."""

    def __init__(self) -> None:
        self.requested = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:  # the second one: stop now
            raise KeyboardInterrupt
        self.requested = True


@contextmanager
def deferred_interrupt() -> Iterator[Deferral]:
    """A first Ctrl-C inside the block sets `requested` instead of raising (main thread only)."""
    deferral = Deferral()
    if threading.current_thread() is not threading.main_thread():
        yield deferral
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:  # started with Ctrl-C ignored (a background job): keep it so
        yield deferral
        return
    signal.signal(signal.SIGINT, deferral._handle)
    try:
        yield deferral
    finally:
        signal.signal(signal.SIGINT, previous)
