"""Benchmark: `lore books ask` on the labelled questions (held-out half reported, dev beside it).

- No-model answer latency, p50 and p95 per question (target: p95 under 150 ms), measured with
  the hash embedder so the figure is the pipeline's, not a model load.
- Model calls and prompt tokens per question by stage (claims, check, write), counted at the
  local fake OpenAI-compatible server (`tests/support/fake_llm.py`) scripted as in the tests.
- The deterministic metrics of `lore books eval` for both halves: exact-quote share, cited-sentence
  share, spoiler leaks (must be 0), retrieval hit@3.
- Search as a reader meets it, with the default embedder (WordLlama), before (the search of
  commit BEFORE, loaded from git) and after, per half: the answering passage in the top 3 / top
  5 and the mean reciprocal rank over the answerable questions, top-3 per answer type
  (`lore.books.retrieve.question`), search latency p50/p95, and each verdict's false-statement rate:
  "the book doesn't say" is false when the answer is under the cap (and, counted apart, when it
  is past it), "not reached" when the answer is under the cap or nowhere in the book.

    .venv/bin/python bench/books_ask.py [--shared ../shared/data] [--search-only]
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
BEFORE = "aea7ace"  # main before issue 11 item 3's question understanding and calibrated verdicts


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def search_figures(shared: Path) -> dict[str, object]:
    """Retrieval and verdicts of the search before and after, per half, with the default embedder."""
    sys.path.insert(0, str(ROOT / "bench"))
    import book_questions as labels
    from books import old_search
    from lore.books import library, search
    from lore.books.retrieve.question import understand
    from lore.books.store import books_store
    from lore.core.store.open import forget_stores

    os.environ.pop("LORE_EMBED", None)
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-search-")
    forget_stores()
    questions = labels.load()
    db = books_store()
    ids = {name: library.add_book(shared / "books" / name).id for name in sorted({q.book for q in questions})}
    layouts = {name: labels.layout(db, ids[name]) for name in ids}
    out: dict[str, object] = {}
    for label, module in (("before", old_search(BEFORE, "bench_before")), ("after", search)):
        for split in labels.SPLITS:
            chosen = [q for q in questions if q.split == split]
            times: list[float] = []
            ranks: list[int | None] = []
            types: dict[str, list[int]] = {}
            said: dict[str, int] = dict.fromkeys(labels.VERDICTS, 0)
            false = {"not_in_book_answer_visible": 0, "not_in_book_answer_ahead": 0, "not_reached": 0}
            for q in chosen:
                book = layouts[q.book]
                chapter, passage = book.position(q)
                library.set_progress(book.book_id, chapter, passage)
                start = time.perf_counter()
                result = module.search_book(book.book_id, q.question, k=10)
                times.append((time.perf_counter() - start) * 1000)
                said[result.verdict] = said.get(result.verdict, 0) + 1
                if result.verdict == "not_in_book":
                    false["not_in_book_answer_visible"] += q.expect == "found"
                    false["not_in_book_answer_ahead"] += q.expect == "not_reached"
                if result.verdict == "not_reached":
                    false["not_reached"] += q.expect != "not_reached"
                if q.expect != "found":
                    continue
                answers = labels.answer_passages(book, q)
                top = [h.passage_id for h in result.hits] if result.verdict == "found" else []
                rank = next((i + 1 for i, pid in enumerate(top) if pid in answers), None)
                ranks.append(rank)
                types.setdefault(understand(q.question).answer_type, []).append(
                    int(rank is not None and rank <= 3)
                )
            n = len(ranks)
            out[f"{label}_{split}"] = {
                "found_questions": n,
                "top3": round(sum(r is not None and r <= 3 for r in ranks) / n, 3),
                "top5": round(sum(r is not None and r <= 5 for r in ranks) / n, 3),
                "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
                "top3_by_type": {t: f"{sum(v)}/{len(v)}" for t, v in sorted(types.items())},
                "said": said,
                "false_not_in_book": f"{false['not_in_book_answer_visible']}/{said['not_in_book']}"
                f" (answer past the cap: {false['not_in_book_answer_ahead']})",
                "false_not_reached": f"{false['not_reached']}/{said['not_reached']}",
                "search_ms_p50": round(statistics.median(times), 1),
                "search_ms_p95": round(pct(times, 0.95), 1),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--search-only", action="store_true", help="only the search figures")
    args = parser.parse_args()
    figures = search_figures(args.shared)
    if args.search_only:
        print(json.dumps(figures, indent=2))
        return
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-ask-")
    os.environ["LORE_EMBED"] = "hash"
    from lore.core.store.open import forget_stores

    forget_stores()
    sys.path.insert(0, str(ROOT / "tests"))
    from lore.books import library
    from lore.books.ask import ask
    from lore.books.ask.evaluate import evaluate
    from lore.books.ask.labelled import book_for, books_by_file, load, position
    from lore.books.store import books_store
    from support.ask_model import passages, script, stage
    from support.fake_llm import FakeLLM

    path = ROOT / "bench" / "data" / "book_questions.jsonl"
    questions = load(path)
    for name in sorted({q.book for q in questions}):
        library.add_book(args.shared / "books" / name)
    db = books_store()
    books = books_by_file(db)
    out: dict[str, object] = {"search": figures}
    for split in ("dev", "held_out"):
        chosen = [q for q in questions if q.split == split]
        times = []
        for q in chosen:
            book = book_for(q, books)
            cap = position(db, book, q)
            start = time.perf_counter()
            ask(book.id, None, q.question, position=cap, use_model=False, store=db)
            times.append((time.perf_counter() - start) * 1000)
        p95 = pct(times, 0.95)
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
    from report import recorded

    with recorded(
        baseline="the targets it prints (no-model answer p95 under 150 ms, spoiler leaks 0); model calls counted at the local fake server"
    ):
        main()
