"""Benchmark: the reader through `lore serve` against the books service called directly.

- The no-model answer (`books.ask`, extractive) to a few questions, each asked `--runs` times:
  time to the first answer byte (the first sentence, or the verdict when there is none) and to
  the full answer, through the web app (a real uvicorn on 127.0.0.1, real HTTP, the streamed
  NDJSON read as a browser reads it) and through `ask_stream` in this process; p50 and p95 of
  each, and the ratio web / direct measured in the same run.
- Page weight: the bytes of HTML, JS and CSS each view loads, fetched from the running server,
  raw and gzip-compressed. A view is one entry in VIEWS; a new domain adds its own.

    .venv/bin/python bench/web.py [--shared ../shared/data] [--runs 20]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class View:
    name: str
    files: tuple[str, ...]  # paths on the server, as the page loads them


SHELL = ("/", "/static/app.js", "/static/app.css")  # index.html, the shell and rules, their style
VIEWS = [
    View("rules", SHELL),
    View("books", (*SHELL, "/static/books.js", "/static/books.css")),
    View("history", (*SHELL, "/static/history.js", "/static/history.css")),
]
# (book file in the shared data, chapter the reader is at, questions)
QUESTIONS = [
    "Who introduced Watson to Holmes?",
    "What does Rache mean?",
    "Who is Lestrade?",
    "Who was the murderer of Enoch Drebber?",
]
ANSWER_KINDS = ("sentence", "answer")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 2), "p95": round(_pct(values, 0.95), 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-web-")
    os.environ["LORE_EMBED"] = "hash"
    for var in ("LORE_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        os.environ.pop(var, None)  # the no-model path
    sys.path.insert(0, str(ROOT / "tests"))
    import httpx

    from lore.books import library
    from lore.books.ask import ask_stream
    from lore.web.guard import TOKEN_HEADER
    from support.ui_server import running_ui

    source = args.shared / "books" / "a-study-in-scarlet.epub"
    if not source.is_file():
        from support.books import make_epub, mystery_book

        source = make_epub(Path(tempfile.mkdtemp()) / "vane.epub", mystery_book(chapters=40))
    book = library.add_book(source)
    library.set_progress(book.id, "end")

    ui = ExitStack()
    port, token = ui.enter_context(running_ui())
    base = f"http://127.0.0.1:{port}"
    client = httpx.Client(base_url=base, headers={TOKEN_HEADER: token}, trust_env=False, timeout=60)

    def direct(question: str) -> tuple[float, float]:
        start = time.perf_counter()
        first = None
        for event in ask_stream(book.id, None, question):
            if first is None and event.kind in ANSWER_KINDS:
                first = time.perf_counter()
        end = time.perf_counter()
        return ((first or end) - start) * 1000, (end - start) * 1000

    def web(question: str) -> tuple[float, float, float]:
        start = time.perf_counter()
        first_byte = first = None
        with client.stream("POST", "/api/books/ask", json={"book": book.id, "question": question}) as reply:
            for line in reply.iter_lines():
                if first_byte is None:
                    first_byte = time.perf_counter()
                if first is None and line and json.loads(line)["kind"] in ANSWER_KINDS:
                    first = time.perf_counter()
        end = time.perf_counter()
        return ((first_byte or end) - start) * 1000, ((first or end) - start) * 1000, (end - start) * 1000

    for q in QUESTIONS:  # warm both paths (imports, caches, connections) before measuring
        direct(q)
        web(q)
    timings: dict[str, list[float]] = {
        k: [] for k in ("direct_first", "direct_full", "web_byte", "web_first", "web_full")
    }
    for _ in range(args.runs):
        for q in QUESTIONS:  # interleaved, so load on the machine hits both alike
            d_first, d_full = direct(q)
            w_byte, w_first, w_full = web(q)
            timings["direct_first"].append(d_first)
            timings["direct_full"].append(d_full)
            timings["web_byte"].append(w_byte)
            timings["web_first"].append(w_first)
            timings["web_full"].append(w_full)
    stats = {k: _summary(v) for k, v in timings.items()}

    weights = []
    for view in VIEWS:
        raw = b"".join(client.get(path).content for path in view.files)
        weights.append({"view": view.name, "bytes": len(raw), "gzip": len(gzip.compress(raw, 9))})
    client.close()
    ui.close()

    print(
        f"book: {book.title} ({book.words:,} words), {len(QUESTIONS)} questions x {args.runs} runs, no model"
    )
    print(f"{'':28} {'p50 ms':>9} {'p95 ms':>9}")
    rows = [
        ("direct: first answer", "direct_first"),
        ("direct: full answer", "direct_full"),
        ("web: first byte", "web_byte"),
        ("web: first answer", "web_first"),
        ("web: full answer", "web_full"),
    ]
    for label, key in rows:
        print(f"{label:28} {stats[key]['p50']:9.2f} {stats[key]['p95']:9.2f}")
    for what in ("first", "full"):
        w, d = stats[f"web_{what}"], stats[f"direct_{what}"]
        print(
            f"ratio web/direct, {what} answer: p50 {w['p50'] / d['p50']:.2f}  p95 {w['p95'] / d['p95']:.2f}"
        )
    print(f"{'view':10} {'bytes':>9} {'gzip':>8}")
    for w in weights:
        print(f"{w['view']:10} {w['bytes']:9,} {w['gzip']:8,}")
    print(json.dumps({"timings_ms": stats, "page_weight": weights}))


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="the books service called directly in the same process, interleaved"):
        main()
