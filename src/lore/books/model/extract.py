"""Model extraction: characters, places, groups, objects, events, relations and identities.

The book is read in chunks of consecutive passages within a chapter. Every item the model
returns must quote the passage it cites; the quote is verified (`lore.core.quotes`) and the
exact source span stored, or the item is dropped. Items are then resolved in reading order:
"Mr. Sherlock Holmes" and a later "Holmes" become one entity, while a claimed identity ("the
veiled woman" is Clara Vane) becomes an IDENTIFIED_AS relation at the reveal, never a merge,
so a reader before the reveal still sees two people. Calls are counted under `book:<id>`.

The names are checked too, not just the quotes: a model that knows the book may call someone
by a name the text only gives later. An item stands only on names the book's text has given by
the end of the stretch the model read (`name_evidence`); a name it gives too early is kept
apart, as a bare name from the passage where the text first gives it (no fact, relation or
alias linked to it), and a name the text never gives is dropped. So neither a name nor a link
between two names can appear before the text makes it.

The records handed on are in `items`; resolution and writing in `resolve`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.books.library import Stores, find_book, open_books
from lore.books.model.items import Chunk, Verified
from lore.books.model.resolve import place_names, write_resolved
from lore.books.model.schema import SYSTEM, ChunkFacts, chunk_prompt
from lore.books.names.evidence import NameFinder, PassageRef
from lore.books.store.records import ChapterPassage
from lore.core.llm import BOOKS_EXTRACT, ModelClient, model_run, totals
from lore.core.quotes import find_quote

CHUNK_WORDS = 1200
BATCH = 8


@dataclass
class ExtractReport:
    book_id: int
    title: str
    model: str
    chunks: int
    failed_chunks: int
    accepted: int
    rejected: int
    names_set_aside: int  # names the text had not given yet where the model used them
    entities: int
    relations: int
    identities: int
    usage: dict[str, Any] = field(default_factory=dict)
    usage_line: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def subject_of(book_id: int) -> str:
    return f"book:{book_id}"


def chunks_of(rows: list[ChapterPassage], limit: int = CHUNK_WORDS) -> list[Chunk]:
    """Consecutive passages of one chapter, up to about `limit` words per chunk."""
    out: list[Chunk] = []
    words = 0
    for row in rows:
        size = len(row.text.split())
        last = out[-1] if out else None
        if last is None or last.chapter != row.chapter_seq or words + size > limit:
            out.append(Chunk(row.chapter_seq, row.chapter_title, []))
            words = 0
        out[-1].passages.append(row)
        words += size
    return out


def extract_book(
    ref: str | int, *, store: Stores = None, progress: Callable[[str, int, int], None] | None = None
) -> ExtractReport:
    """Run the model over a book and replace its model layer; needs a configured model."""
    db = open_books(store)
    book = find_book(ref, db)
    subject = subject_of(book.id)
    client = ModelClient(task=BOOKS_EXTRACT, subject=subject)
    label = client.spec().label  # raises NeedsModel (with how to set one up) before any work
    rows = db.chapter_passages(book.id)
    chunks = chunks_of(rows)
    tick = progress or (lambda stage, done, total: None)
    results: list[Any] = []
    with model_run("books extract", subject=subject):
        for start in range(0, len(chunks), BATCH):
            batch = chunks[start : start + BATCH]
            prompts = [
                chunk_prompt(book.title, c.title, [(i, p.text) for i, p in enumerate(c.passages, 1)])
                for c in batch
            ]
            results += client.structured_many_sync(prompts, ChunkFacts, system=SYSTEM, return_exceptions=True)
            tick("extracting", len(results), len(chunks))
    verified, rejected, failed = [], 0, 0
    for chunk, result in zip(chunks, results, strict=True):
        if isinstance(result, BaseException):
            failed += 1
            continue
        good, bad = verify(chunk, result.value)
        verified += good
        rejected += bad
    placed = place_names(
        verified, NameFinder([PassageRef(r.id, r.chapter_seq, r.passage_seq, r.text) for r in rows])
    )
    rejected += placed.dropped_items
    with db.transaction() as tx:
        tx.clear_model_layer(book.id)
        counts = write_resolved(tx, book.id, placed, label)
        tx.record_model_run(book.id, label, len(chunks), failed, len(placed.items), rejected)
    used = totals(subject=subject)
    return ExtractReport(
        book.id,
        book.title,
        label,
        len(chunks),
        failed,
        len(placed.items),
        rejected,
        placed.set_aside,
        *counts,
        usage=used.as_dict(),
        usage_line=used.line(),
    )


def verify(chunk: Chunk, facts: ChunkFacts) -> tuple[list[Verified], int]:
    """The items whose quote is in the passage they cite; and how many were not."""
    good: list[Verified] = []
    rejected = 0
    last = chunk.passages[-1]
    horizon = (last.chapter_seq, last.passage_seq)
    items = (
        [("entity", e) for e in facts.entities]
        + [("relation", r) for r in facts.relations]
        + [("identity", i) for i in facts.identities]
    )
    for kind, item in items:
        if not 1 <= item.passage <= len(chunk.passages):
            rejected += 1
            continue
        passage = chunk.passages[item.passage - 1]
        span = find_quote(item.quote, passage.text)
        if span is None:
            rejected += 1
            continue
        good.append(
            Verified(
                kind,
                item,
                passage,
                passage.text[span.start : span.end],
                passage.start + span.start,
                passage.start + span.end,
                horizon,
            )
        )
    return good, rejected


def model_usage(book_id: int) -> dict[str, Any]:
    """Model calls and tokens spent on a book (all runs), for `books show`."""
    used = totals(subject=subject_of(book_id))
    return {**used.as_dict(), "line": used.line()}
