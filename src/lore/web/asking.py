"""One question answered for the page: the `books.ask` events, streamed, and a Stop that holds.

The pipeline is a generator whose steps block on model calls, so it runs in a thread of its
own (from a small pool) and hands each event to the reply through an asyncio queue. Stop (the stop route, or the
browser dropping the connection) sets a flag that the pipeline reads before each model step and
this thread after every event; the generator is then closed. So a model call already on its way
finishes, and none is made after it. Nothing is retried or asked again: a stopped answer ends
with a `stopped` event and that is all.

What the stream carries is what a reader may see: the parts, how many passages were found,
sentences with their citations (quotes checked against passages under the cap), and the answer's
verdict, message and notes. A claim the checks cut is counted, never shown: its words are the
model's, unverified, and may come from the model's memory of the whole book.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

from lore.books.ask import ask_stream
from lore.books.ask.records import Answer, Event
from lore.core.errors import LoreError
from lore.core.llm import model_configured

_RUNS: dict[str, AskRun] = {}
_LOCK = threading.Lock()
# long-lived threads: each keeps its SQLite connection (and the store's per-connection caches)
# from one question to the next; a new thread per question costs a new connection each time
_WORKERS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="lore-ask")


def _public(event: Event) -> dict[str, Any] | None:
    """The event as the page receives it, or None for what a reader must not see."""
    if event.kind == "parts":
        return {"kind": "parts", "parts": event.data["parts"]}
    if event.kind == "evidence":
        return {"kind": "evidence", "passages": len(event.data["passages"])}
    if event.kind == "claim":
        claim = event.data["claim"]
        return {"kind": "claim", "text": claim["text"], "citation": claim["citation"]}
    if event.kind == "cut":
        return {"kind": "cut"}
    if event.kind == "sentence":
        return {"kind": "sentence", "sentence": event.data["sentence"]}
    if event.kind == "answer":
        return {"kind": "answer", "answer": answer_view(event.data["answer"])}
    return None


def answer_view(answer: Answer) -> dict[str, Any]:
    """The finished answer without the cut claims' words (see the module's docstring)."""
    return {
        "question": answer.question,
        "verdict": answer.verdict,
        "message": answer.message,
        "mode": answer.mode,
        "sentences": [asdict(s) for s in answer.sentences],
        "notes": answer.notes,
        "claims": {
            "passed": sum(c.status == "passed" for c in answer.claims),
            "cut": sum(c.status == "cut" for c in answer.claims),
        },
        "passages": len(answer.evidence),
        "books": answer.books,
    }


class AskRun:
    """One answer in progress: its id (for Stop), the thread producing it, its queue of events."""

    def __init__(
        self,
        events: Iterator[Event],
        first: Event,
        stop: threading.Event,
        loop: asyncio.AbstractEventLoop,
    ):
        self.id = secrets.token_urlsafe(12)
        self._events = events
        self._first = first
        self._loop = loop
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._stop = stop
        self.finished = threading.Event()

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def _put(self, item: dict[str, Any] | None) -> None:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)
        except RuntimeError:  # the server's loop is gone: nobody is listening any more
            self._stop.set()

    def _produce(self) -> None:
        try:
            event: Event | None = self._first
            while event is not None:
                shown = _public(event)
                if shown is not None:
                    self._put(shown)
                if self._stop.is_set():
                    break
                event = next(self._events, None)
                if self._stop.is_set():  # stopped during that step: its result is not shown
                    break
        except LoreError as exc:
            self._put({"kind": "error", "error": str(exc)})
        except Exception:
            logging.getLogger("lore.web").exception("answering a question failed")
            self._put({"kind": "error", "error": "internal error; see the server's log"})
        finally:
            close = getattr(self._events, "close", None)
            if close is not None:
                close()  # no model call after this point
            if self._stop.is_set():
                self._put({"kind": "stopped"})
            self._put(None)
            with _LOCK:
                _RUNS.pop(self.id, None)
            self.finished.set()

    async def stream(self) -> AsyncIterator[bytes]:
        """NDJSON lines: `started` (with the id Stop needs), the events, and the last one."""
        yield _line({"kind": "started", "ask": self.id, "model": model_configured()})
        try:
            while True:
                item = await self._queue.get()
                if item is None:
                    return
                yield _line(item)
        finally:  # the reply ended, or the browser went away: either way, stop the work
            self.stop()


def _line(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, ensure_ascii=False) + "\n").encode()


def start(book: str | int, question: str, spoilers: bool, loop: asyncio.AbstractEventLoop) -> AskRun:
    """Check the question and take its first step here (a bad book or question is refused
    with its own status before any streaming starts), then run the rest in a thread."""
    stop_flag = threading.Event()  # also asked by the pipeline before each model step
    events = ask_stream(book, None, question, spoilers=spoilers, stopped=stop_flag.is_set)
    first = next(events)  # raises InvalidInput / NotFound for the route to answer
    run = AskRun(events, first, stop_flag, loop)
    with _LOCK:
        _RUNS[run.id] = run
    _WORKERS.submit(run._produce)
    return run


def stop(ask_id: str) -> bool:
    """Stop one answer; False when there is no such answer in progress (already finished)."""
    with _LOCK:
        run = _RUNS.get(ask_id)
    if run is None:
        return False
    run.stop()
    return True


def in_progress() -> int:
    """Answers still being produced (a stopped one counts until its thread has let go)."""
    with _LOCK:
        return len(_RUNS)
