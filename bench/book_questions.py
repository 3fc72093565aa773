"""The labelled reader questions (`bench/data/book_questions.jsonl`): loading, placing, scoring.

Each question names a shared book, the reader's position when asking (a chapter, optionally a
passage or a percent of that chapter), the verdict a truthful search gives (`found`,
`not_reached`, `not_in_book`) and short verbatim quotes that identify the answering passages.
A quote is located in the imported chapter text (up to case, spacing, quote marks and dashes,
`lore.core.quotes`) and mapped to the passages its span overlaps, so the labels name passages
by what they say, not by ids that change with the passage splitter.

Scoring (`score`): for `found` questions, the share whose answering passage is among the first
three hits of a `found` reply; for each verdict X, of the times search said X, how often X was
false (the false-statement rate; "not reached" when the book never says it, "found" with
nothing relevant, "the book doesn't say" when it does).

The test (`tests/books/test_book_questions.py`) checks the file with the same functions the
benchmark uses, so a broken label fails there before it skews a figure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.core.quotes import comparable

DATA = Path(__file__).resolve().parent / "data" / "book_questions.jsonl"
VERDICTS = ("found", "not_reached", "not_in_book")
SPLITS = ("dev", "held_out")


@dataclass(frozen=True)
class Quote:
    chapter: int
    quote: str


@dataclass(frozen=True)
class Question:
    id: str
    book: str
    question: str
    chapter: int
    passage: int | None
    percent: float | None
    quotes: tuple[Quote, ...]
    expect: str
    split: str


def load(path: Path = DATA) -> list[Question]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        pos = row["position"]
        out.append(
            Question(
                id=row["id"],
                book=row["book"],
                question=row["question"],
                chapter=int(pos["chapter"]),
                passage=pos.get("passage"),
                percent=pos.get("percent"),
                quotes=tuple(Quote(int(q["chapter"]), q["quote"]) for q in row["answer_quotes"]),
                expect=row["expect"],
                split=row["split"],
            )
        )
    return out


def occurrences(quote: str, text: str) -> list[tuple[int, int]]:
    """Every (start, end) span of `quote` in `text`, compared as `lore.core.quotes` compares."""
    needle, _ = comparable(quote)
    needle = needle.strip(" ")
    hay, where = comparable(text)
    spans, at = [], hay.find(needle)
    while needle and at >= 0:
        spans.append((where[at], where[at + len(needle) - 1] + 1))
        at = hay.find(needle, at + 1)
    return spans


@dataclass
class BookLayout:
    """One imported book as the labels need it: chapter texts and passage spans."""

    book_id: int
    texts: list[str]  # index chapter_seq - 1
    passages: dict[int, list[tuple[int, int, int, int]]]  # chapter -> (id, seq, start, end)

    def passages_of(self, chapter: int, start: int, end: int) -> list[tuple[int, int]]:
        """(passage id, passage seq) of the passages a span of a chapter overlaps."""
        return [(pid, seq) for pid, seq, s, e in self.passages.get(chapter, []) if s < end and start < e]

    def where(self, quote: str) -> list[tuple[int, int, int]]:
        """Every place a quote occurs in the book: (chapter, start, end)."""
        return [(n, s, e) for n, text in enumerate(self.texts, start=1) for s, e in occurrences(quote, text)]

    def position(self, q: Question) -> tuple[int, int | None]:
        """The reader's cap for a question: chapter, and the last visible passage of it."""
        if q.passage is not None:
            return q.chapter, int(q.passage)
        if q.percent is not None:
            count = len(self.passages.get(q.chapter, []))
            return q.chapter, max(1, math.ceil(count * float(q.percent) / 100.0))
        return q.chapter, None


def layout(store: Any, book_id: int) -> BookLayout:
    """Read a book's chapters and passage spans through the books store (no SQL here)."""
    texts = store.chapter_texts(book_id)
    passages: dict[int, list[tuple[int, int, int, int]]] = {}
    for p in store.passage_spans(book_id):
        passages.setdefault(p.chapter_seq, []).append((p.id, p.passage_seq, p.start, p.end))
    return BookLayout(book_id, texts, passages)


def answer_passages(book: BookLayout, q: Question) -> set[int]:
    """The passage ids the question's quotes identify (each quote at its labelled chapter)."""
    ids: set[int] = set()
    for quote in q.quotes:
        for chapter, start, end in book.where(quote.quote):
            if chapter == quote.chapter:
                ids.update(pid for pid, _ in book.passages_of(chapter, start, end))
    return ids


def visible(book: BookLayout, q: Question, chapter: int, start: int, end: int) -> bool:
    """Whether a span lies wholly under the question's cap."""
    cap_chapter, cap_passage = book.position(q)
    if chapter != cap_chapter:
        return chapter < cap_chapter
    return cap_passage is None or all(seq <= cap_passage for _, seq in book.passages_of(chapter, start, end))


@dataclass
class Outcome:
    question: Question
    verdict: str
    top: list[int]  # passage ids of the first hits, best first
    answers: set[int]

    @property
    def hit3(self) -> bool:
        return self.verdict == "found" and bool(self.answers & set(self.top[:3]))


@dataclass
class Scores:
    questions: int = 0
    found: int = 0
    top3: int = 0
    said: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    false: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))

    @property
    def top3_rate(self) -> float:
        return self.top3 / self.found if self.found else 0.0

    def false_rate(self, verdict: str) -> float | None:
        return self.false[verdict] / self.said[verdict] if self.said[verdict] else None


def score(outcomes: Iterable[Outcome]) -> Scores:
    """Top-3 hit rate over `found` questions, and each verdict's false-statement rate.

    A `found` reply is false when the question is not answered by a visible passage (it expected
    another verdict) or when none of its first three hits is an answering passage: it says
    "here is the answer" and the answer is not among what it shows."""
    s = Scores()
    for o in outcomes:
        s.questions += 1
        expect = o.question.expect
        if expect == "found":
            s.found += 1
            s.top3 += o.hit3
        s.said[o.verdict] += 1
        wrong = o.verdict != expect or (o.verdict == "found" and not o.hit3)
        s.false[o.verdict] += wrong
    return s


def by_split(outcomes: list[Outcome]) -> dict[str, Scores]:
    return {split: score(o for o in outcomes if o.question.split == split) for split in SPLITS}


def run(
    questions: list[Question],
    books: dict[str, BookLayout],
    ask: Callable[[BookLayout, Question, tuple[int, int | None]], tuple[str, list[int]]],
) -> list[Outcome]:
    """Ask every question at its position; `ask` returns (verdict, passage ids best first)."""
    out = []
    for q in questions:
        book = books[q.book]
        verdict, top = ask(book, q, book.position(q))
        out.append(Outcome(q, verdict, top, answer_passages(book, q)))
    return out
