"""Labelled questions for evaluation: the file format of `bench/data/book_questions.jsonl`.

Each line names a book file, a reading position (chapter, and a passage or a percent of that
chapter), the verdict a truthful search gives and short verbatim quotes of the answering
passages. A quote is found in the imported chapter's text (quotes compared as
`lore.core.quotes` compares them) and stands for the passages its span overlaps, so labels
survive a change of passage splitter. Questions are split `dev` / `held_out`: tune on the first,
report the second.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from lore.books.library import Book, list_books
from lore.books.store import BooksStore
from lore.core.errors import InvalidInput, NotFound
from lore.core.quotes import find_quote


@dataclass(frozen=True)
class Labelled:
    id: str
    book: str  # the book's file name
    question: str
    chapter: int
    passage: int | None
    percent: float | None
    quotes: tuple[tuple[int, str], ...]  # (chapter, quote)
    expect: str
    split: str
    answers: tuple[str, ...] = ()  # the answer's forms (`answer`, `answer_aliases`), when labelled


def load(path: Path) -> list[Labelled]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            pos = row["position"]
            out.append(
                Labelled(
                    str(row["id"]),
                    str(row["book"]),
                    str(row["question"]),
                    int(pos["chapter"]),
                    pos.get("passage"),
                    pos.get("percent"),
                    tuple((int(q["chapter"]), str(q["quote"])) for q in row.get("answer_quotes", [])),
                    str(row.get("expect", "found")),
                    str(row.get("split", "dev")),
                    tuple(str(a) for a in [row.get("answer"), *row.get("answer_aliases", [])] if a),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"{path.name}:{n}: not a labelled question ({exc})") from None
    return out


def books_by_file(db: BooksStore) -> dict[str, Book]:
    """Library books by the file name they were imported from."""
    return {Path(b.source_path).name: b for b in list_books(db)}


def book_for(q: Labelled, books: dict[str, Book]) -> Book:
    if q.book not in books:
        raise NotFound(f"question {q.id}: {q.book} is not in the library (`lore books add` it first)")
    return books[q.book]


def position(db: BooksStore, book: Book, q: Labelled) -> tuple[int, int | None]:
    if q.passage is not None:
        return q.chapter, int(q.passage)
    if q.percent is not None:
        count = {c.chapter_seq: c.passage_count for c in db.chapter_outline(book.id)}.get(q.chapter, 1)
        return q.chapter, max(1, math.ceil(count * float(q.percent) / 100.0))
    return q.chapter, None


def answer_passages(db: BooksStore, book: Book, q: Labelled) -> set[int]:
    """The passage ids the labelled quotes stand for (each quote in its labelled chapter)."""
    texts = db.chapter_texts(book.id)
    spans = db.passage_spans(book.id)
    out: set[int] = set()
    for chapter, quote in q.quotes:
        if not 1 <= chapter <= len(texts):
            continue
        found = find_quote(quote, texts[chapter - 1])
        if found is None:
            continue
        out |= {
            p.id for p in spans if p.chapter_seq == chapter and p.start < found.end and found.start < p.end
        }
    return out
