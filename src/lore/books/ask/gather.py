"""What an answer may stand on: passages, names and links, all under the reader's cap.

For each part of the question: the capped search (`books.search`); the names the question and
the best hits use (the starting entities); one hop of the co-occurrence graph from them, kept
only where it reaches another starting entity (the relationships the question is about); and
the passages those pairs share. Every read passes the caps, so a passage, name or link past the
reader's position is never gathered, and what is never gathered cannot reach a model. Passages
are listed in story order (series order, then chapter and passage) so a change across a series
reads in the order it happens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from lore.books.ask.records import Evidence
from lore.books.library import Book, Position, caps_for, find_book, series_books
from lore.books.names.display import choose_display
from lore.books.search import FOUND, NOT_REACHED, SearchResult, search_books
from lore.books.store import BooksStore
from lore.books.store.cap import Cap
from lore.core.errors import InvalidInput

HITS_PER_PART = 8
# the first hits come before the passages two named people share, the lower hits after them:
# an answer often lies in a passage search ranked lower, but the shared ones are not crowded out
FIRST_HITS = 5
MAX_EVIDENCE = 10
START_ENTITIES = 4
NEIGHBOURS = 8
SHARED_PER_PAIR = 2
HIT_NAMES = 4
# capitalised words that open sentences rather than name anyone
_COMMON = frozenset(
    "The A An It He She They We I You His Her Their This That Then When But And In On At".split()
)
_CAPITALISED = re.compile(r"\b[A-Z][a-z’']+(?:\s+[A-Z][a-z’']+)*")


@dataclass
class Target:
    """The books a question is about, each with the position it is asked at."""

    books: list[Book]
    spoilers: bool = False

    @property
    def caps(self) -> list[Cap]:
        return caps_for(self.books, spoilers=self.spoilers)


def target(
    db: BooksStore,
    book: str | int | None = None,
    series: str | None = None,
    *,
    position: tuple[int, int | None] | None = None,
    spoilers: bool = False,
) -> Target:
    """One book or a series (in series order); `position` asks at a chapter (and passage) other
    than the recorded one, without changing it (evaluations, the demo)."""
    if (book is None) == (series is None):
        raise InvalidInput("name a book, or a series with --series (not both)")
    books = [find_book(book, db)] if book is not None else series_books(str(series), db)
    books.sort(key=lambda b: (b.series_index is None, b.series_index or 0.0, b.id))
    if position is not None:
        if len(books) != 1:
            raise InvalidInput("a position applies to one book, not a series")
        chapter, passage = position
        books = [replace(books[0], position=Position(chapter, passage))]
    return Target(books, spoilers)


@dataclass
class Gathered:
    verdict: str
    message: str
    evidence: list[Evidence] = field(default_factory=list)
    names: dict[int, tuple[str, list[str]]] = field(default_factory=dict)  # entity -> (shown, aliases)
    links: list[tuple[int, int, int]] = field(default_factory=list)  # (entity, entity, passages shared)
    unanswered: list[str] = field(default_factory=list)  # parts nothing visible answers


def gather(db: BooksStore, where: Target, parts: list[str]) -> Gathered:
    caps = where.caps
    results = [search_books(where.books, p, HITS_PER_PART, spoilers=where.spoilers, store=db) for p in parts]
    found = [r for r in results if r.verdict == FOUND and r.hits]
    if not found:
        first = next((r for r in results if r.verdict == NOT_REACHED), results[0])
        return Gathered(first.verdict, first.message)
    picked = _interleave(found)
    texts = {h.passage_id: h.text for r in found for h in r.hits}
    starts = _starting_entities(db, caps, " ".join(parts), [texts[pid] for pid, _ in picked])
    links, shared = _walk(db, caps, starts)
    hit_ids = [pid for pid, _ in picked]
    ids = hit_ids[:FIRST_HITS] + [pid for pid in shared if pid not in hit_ids] + hit_ids[FIRST_HITS:]
    rows = {r.id: r for r in db.passages_by_id(caps, ids[:MAX_EVIDENCE])}
    titles = {b.id: b.title for b in where.books}
    order = {b.id: i for i, b in enumerate(where.books)}
    chosen = [rows[pid] for pid in ids[:MAX_EVIDENCE] if pid in rows]
    rank = {r.id: i for i, r in enumerate(chosen)}
    chosen.sort(key=lambda r: (order.get(r.book_id, 0), r.chapter_seq, r.passage_seq))
    evidence = [
        Evidence(
            n, r.id, r.book_id, titles.get(r.book_id, ""), r.chapter_seq, r.passage_seq, r.text, rank[r.id]
        )
        for n, r in enumerate(chosen, start=1)
    ]
    entity_ids = sorted({e for pair in links for e in pair[:2]} | set(starts))
    names = _display(db, caps, entity_ids)
    unanswered = [p for p, r in zip(parts, results, strict=True) if r.verdict != FOUND or not r.hits]
    return Gathered(FOUND, "", evidence, names, links, unanswered)


def _interleave(results: list[SearchResult]) -> list[tuple[int, float]]:
    """Each part's hits in turn (best first), so every part is represented."""
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for i in range(max(len(r.hits) for r in results)):
        for r in results:
            if i < len(r.hits) and r.hits[i].passage_id not in seen:
                seen.add(r.hits[i].passage_id)
                out.append((r.hits[i].passage_id, r.hits[i].score))
    return out


def _starting_entities(db: BooksStore, caps: list[Cap], question: str, hit_texts: list[str]) -> list[int]:
    """Entities the question names (as the visible text names them), then those the best hits
    name most: the names an answer is likely about."""
    out: list[int] = []
    for phrase in _CAPITALISED.findall(question):
        for candidate in (phrase, phrase.split()[-1]):
            hits = db.entities_by_form(caps, candidate)
            if hits:
                out += [h.entity_id for h in hits[:1] if h.entity_id not in out]
                break
    counts: dict[str, int] = {}
    for text in hit_texts[:2]:
        for phrase in _CAPITALISED.findall(text):
            if len(phrase) > 2 and phrase not in _COMMON:
                counts[phrase] = counts.get(phrase, 0) + 1
    for phrase in sorted(counts, key=lambda p: -counts[p])[:HIT_NAMES]:
        if len(out) >= START_ENTITIES:
            break
        hits = db.entities_by_form(caps, phrase)
        out += [h.entity_id for h in hits[:1] if h.entity_id not in out]
    return out[:START_ENTITIES]


def _walk(db: BooksStore, caps: list[Cap], starts: list[int]) -> tuple[list[tuple[int, int, int]], list[int]]:
    """One hop from each starting entity; the links between starting entities, strongest first,
    and the passages each such pair shares (the first ones, in reading order)."""
    links: list[tuple[int, int, int]] = []
    wanted = set(starts)
    for eid in starts:
        for row in db.cooccurrences(caps, eid, NEIGHBOURS):
            if (row.target in wanted and row.source < row.target) or len(starts) == 1:
                links.append((row.source, row.target, row.passages))
    shared: list[int] = []
    for a, b, _ in sorted(links, key=lambda link: -link[2])[:3]:
        if len(starts) == 1:
            continue  # one name: its neighbours describe it, their shared passages do not answer
        mine = {m.passage_id for m in db.entity_mentions(caps, a, 400)}
        both = [m.passage_id for m in db.entity_mentions(caps, b, 400) if m.passage_id in mine]
        shared += [pid for pid in dict.fromkeys(both) if pid not in shared][:SHARED_PER_PAIR]
    return links, shared


def _display(db: BooksStore, caps: list[Cap], ids: list[int]) -> dict[int, tuple[str, list[str]]]:
    forms: dict[int, list[tuple[str, int]]] = {}
    for row in db.visible_forms(caps, ids):
        forms.setdefault(row.entity_id, []).append((row.form, row.n))
    return {eid: choose_display(f) for eid, f in forms.items()}
