"""Benchmark: `lore books ask` on the labelled questions (held-out half reported, dev beside it).

- No-model answer latency, p50 and p95 per question (target: p95 under 150 ms), measured with
  the hash embedder so the figure is the pipeline's, not a model load.
- Model calls and prompt tokens per question by stage (claims, check, write), counted at the
  local fake OpenAI-compatible server (`tests/support/fake_llm.py`) scripted as in the tests.
- The deterministic metrics of `lore books eval` for both halves: exact-quote share, cited-sentence
  share, spoiler leaks (must be 0), retrieval hit@3.

    .venv/bin/python bench/books_ask.py [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-ask-")
    os.environ["LORE_EMBED"] = "hash"
    sys.path.insert(0, str(ROOT / "tests"))
    from lore.books import library
    from lore.books.ask import ask
    from lore.books.ask.evaluate import evaluate
    from lore.books.ask.questions import book_for, books_by_file, load, position
    from lore.books.store import books_store
    from support.ask_model import passages, script, stage
    from support.fake_llm import FakeLLM

    path = ROOT / "bench" / "data" / "book_questions.jsonl"
    questions = load(path)
    for name in sorted({q.book for q in questions}):
        library.add_book(args.shared / "books" / name)
    db = books_store()
    books = books_by_file(db)
    out: dict[str, object] = {}
    for split in ("dev", "held_out"):
        chosen = [q for q in questions if q.split == split]
        times = []
        for q in chosen:
            book = book_for(q, books)
            cap = position(db, book, q)
            start = time.perf_counter()
            ask(book.id, None, q.question, position=cap, use_model=False, store=db)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        metrics = evaluate(path, split=split, store=db).metrics["default"]
        out[split] = {
            "questions": len(chosen),
            "latency_ms_p50": round(statistics.median(times), 1),
            "latency_ms_p95": round(p95, 1),
            **{k: metrics[k] for k in ("exact_quote_share", "cited_sentence_share", "leaks", "hit_at_3")},
        }
    fake = FakeLLM().start()
    os.environ.update(
        LORE_MODEL="openai:fake-model", OPENAI_BASE_URL=fake.url, OPENAI_API_KEY="sk-test-fake-key-0000"
    )

    def first_sentence(held):  # claims the opening words of each of the first three passages
        return [
            {"text": f"Passage {n} says so.", "passage": n, "quote": " ".join(text.split()[:8])}
            for n, (_, text) in sorted(held.items())[:3]
        ]

    script(fake, first_sentence)
    held = [q for q in questions if q.split == "held_out"]
    per_stage: dict[str, dict[str, int]] = {}
    for q in held:
        book = book_for(q, books)
        ask(book.id, None, q.question, position=position(db, book, q), store=db)
    for r in fake.requests:
        s = per_stage.setdefault(stage(r) or "other", {"calls": 0, "prompt_tokens": 0, "passages": 0})
        s["calls"] += 1
        s["prompt_tokens"] += max(1, (len(r.prompt) + 3) // 4)
        s["passages"] += len(passages(r))
    fake.close()
    n = len(held)
    out["model_per_question_held_out"] = {
        k: {"calls": round(v["calls"] / n, 2), "prompt_tokens": round(v["prompt_tokens"] / n, 1)}
        for k, v in sorted(per_stage.items())
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
