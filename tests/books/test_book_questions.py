"""The labelled reader questions hold what they promise, checked against the imported books.

The set (`bench/data/book_questions.jsonl`) is what book search is judged on: a quote that is not
in the book, that occurs twice, or that lies on the wrong side of the reader's position would
silently skew every figure `bench/books.py` prints. Each quote is located with the benchmark's own
functions in the shared books as Lore imports them (a real store, the session's library).
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

from lore.books import store as sql

BENCH = Path(__file__).resolve().parents[2] / "bench" / "book_questions.py"


def _bench():
    """The script as a module; registered first, as dataclasses look their module up."""
    if "bench_book_questions" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_book_questions", BENCH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_book_questions"] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_book_questions"]


def test_the_set_is_big_varied_and_split_in_halves() -> None:
    bench = _bench()
    questions = bench.load()
    assert len(questions) >= 80
    assert len({q.id for q in questions}) == len(questions)
    assert len({q.question.lower() + q.book for q in questions}) >= 75  # few repeats across positions
    verdicts = Counter(q.expect for q in questions)
    assert set(verdicts) == set(bench.VERDICTS)
    assert verdicts["not_reached"] >= 10 and verdicts["not_in_book"] >= 10
    books = {q.book for q in questions}
    assert len(books) == 8  # every shared book, EPUB and PDF
    splits = Counter(q.split for q in questions)
    assert set(splits) == set(bench.SPLITS)
    assert abs(splits["dev"] - splits["held_out"]) <= len(questions) * 0.1
    for verdict in bench.VERDICTS:  # each verdict is measured on both halves
        assert all(any(q.split == s and q.expect == verdict for q in questions) for s in bench.SPLITS)
    openers = Counter(q.question.split()[0].lower() for q in questions)
    for word in ("who", "what", "where", "why", "how", "when"):
        assert openers[word] >= 1, word
    assert sum(1 for q in questions if "deduce" in q.question or "work out" in q.question) >= 2
    for q in questions:
        assert q.question.endswith("?")
        assert bool(q.quotes) == (q.expect != "not_in_book"), q.id


def test_the_scoring_counts_false_statements_per_verdict() -> None:
    bench = _bench()
    found, reached, absent = (
        bench.Question(f"q{i}", "b", "?", 1, None, None, (), e, "dev") for i, e in enumerate(bench.VERDICTS)
    )
    outcomes = [
        bench.Outcome(found, "found", [5, 7], {7}),  # true: the answer is second
        bench.Outcome(found, "found", [1, 2, 3, 9], {9}),  # false: the answer is fourth
        bench.Outcome(reached, "not_in_book", [], set()),  # false: it is further on
        bench.Outcome(absent, "not_in_book", [], set()),  # true
        bench.Outcome(absent, "not_reached", [], set()),  # false: a hint about nothing
    ]
    s = bench.score(outcomes)
    assert (s.found, s.top3, s.top3_rate) == (2, 1, 0.5)
    assert s.said == {"found": 2, "not_reached": 1, "not_in_book": 2}
    assert (s.false_rate("found"), s.false_rate("not_reached"), s.false_rate("not_in_book")) == (
        0.5,
        1.0,
        0.5,
    )


@pytest.fixture
def layouts(shared) -> dict:
    bench = _bench()
    folder, lib = shared
    db = sql.books_store(lib.store)
    names = sorted({q.book for q in bench.load()})
    return {name: bench.layout(db, lib.book(folder, name).id) for name in names}


def test_every_quote_is_found_once_and_where_it_is_labelled(layouts) -> None:
    bench = _bench()
    problems = []
    for q in bench.load():
        book = layouts[q.book]
        chapter, passage = book.position(q)
        if not 1 <= chapter <= len(book.texts):
            problems.append(f"{q.id}: chapter {chapter} is not in the book")
            continue
        if passage is not None and not 1 <= passage <= len(book.passages[chapter]):
            problems.append(f"{q.id}: passage {passage} is not in chapter {chapter}")
        for quote in q.quotes:
            places = book.where(quote.quote)
            if [c for c, _, _ in places] != [quote.chapter]:
                problems.append(f"{q.id}: {quote.quote!r} is at {places}, labelled chapter {quote.chapter}")
                continue
            seen = bench.visible(book, q, *places[0])
            if seen != (q.expect == "found"):
                problems.append(f"{q.id}: {quote.quote!r} visible={seen} but expect={q.expect}")
        if q.expect != "not_in_book" and not bench.answer_passages(book, q):
            problems.append(f"{q.id}: no answering passage")
    assert problems == []
