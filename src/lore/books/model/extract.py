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
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.books.library import Stores, find_book, open_books
from lore.books.model.schema import SYSTEM, ChunkFacts, chunk_prompt
from lore.books.names.evidence import NameFinder, PassageRef, Position
from lore.books.names.words import TITLES
from lore.books.store import BooksStore
from lore.books.store.records import ChapterPassage
from lore.core.llm import BOOKS_EXTRACT, ModelClient, model_run, totals
from lore.core.quotes import find_quote

CHUNK_WORDS = 1200
BATCH = 8
IDENTIFIED_AS = "IDENTIFIED_AS"


@dataclass
class Chunk:
    chapter: int
    title: str
    passages: list[Any]  # rows: id, chapter_seq, passage_seq, start, text


@dataclass
class Verified:
    """One item whose quote was found in its passage: where it stands and its exact quote."""

    kind: str  # "entity", "relation" or "identity"
    item: Any
    passage: ChapterPassage
    quote: str
    quote_start: int  # chapter offsets
    quote_end: int
    horizon: tuple[int, int] = (0, 0)  # (chapter, passage) of the last passage the model read

    @property
    def position(self) -> tuple[int, int]:
        return (self.passage.chapter_seq, self.passage.passage_seq)

    def names(self) -> list[str]:
        """Every name the item uses: its entity and aliases, or the two ends it links."""
        if self.kind == "entity":
            return [self.item.name, *self.item.aliases]
        if self.kind == "relation":
            return [self.item.source, self.item.target]
        return [self.item.name, self.item.identified_as]


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
        counts = _write(tx, book.id, placed, label)
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


# -- resolution ---------------------------------------------------------------------------------


def name_key(name: str) -> str:
    """A name for matching: case, punctuation and leading honorifics do not count."""
    words = re.sub(r"[^\w\s'’-]", " ", name).split()
    while len(words) > 1 and words[0].rstrip(".") in TITLES:
        words.pop(0)
    return " ".join(words).casefold().replace("’", "'")


class Resolver:
    """Entities as they are met in reading order; a name joins an entity only when unambiguous."""

    def __init__(self, identity_pairs: set[frozenset[str]]):
        self.keys: dict[str, int] = {}
        self.kinds: dict[int, str] = {}
        self.names: dict[int, dict[str, tuple[int, int, int]]] = {}  # name -> first position
        self.identity_pairs = identity_pairs
        self._next = 0

    def find(self, name: str, kind: str | None = None) -> int | None:
        key = name_key(name)
        if not key:
            return None
        if key in self.keys:
            return self.keys[key]
        words = key.split()
        pool = {
            eid
            for k, eid in self.keys.items()
            if (kind is None or self.kinds[eid] == kind)
            and (
                (len(words) == 1 and len(k.split()) > 1 and words[0] in (k.split()[0], k.split()[-1]))
                or (len(words) > 1 and len(k.split()) == 1 and k == words[-1])
            )
        }
        return next(iter(pool)) if len(pool) == 1 else None

    def add(self, entity: int | None, name: str, kind: str, where: tuple[int, int, int]) -> int:
        if entity is None:
            entity = self._next
            self._next += 1
            self.kinds[entity] = kind
            self.names[entity] = {}
        key = name_key(name)
        if key and key not in self.keys:
            self.keys[key] = entity
        clean = " ".join(name.split())
        if clean and clean not in self.names[entity]:
            self.names[entity][clean] = where
        return entity

    def entity(self, name: str, aliases: list[str], kind: str, where: dict[str, Position]) -> int:
        """The entity for a name (and its aliases); `where` says from where each name is known."""
        found = self.find(name, kind)
        if found is None:
            found = self.find(name)
        for alias in aliases if found is None else []:
            if frozenset({name_key(name), name_key(alias)}) in self.identity_pairs:
                continue  # a claimed identity is an edge, never a merge
            found = self.find(alias, kind)
            if found is not None:
                break
        entity = self.add(found, name, kind, where[name])
        for alias in aliases:
            owner = self.find(alias)
            if owner not in (None, entity):
                continue  # the alias names someone else: keep them apart
            if frozenset({name_key(name), name_key(alias)}) in self.identity_pairs:
                continue
            self.add(entity, alias, kind, where[alias])
        return entity


@dataclass
class PlacedNames:
    """Items kept with where each of their names is known, and names set aside as bare names."""

    items: list[tuple[Verified, list[str], dict[str, Position]]] = field(default_factory=list)
    bare: list[tuple[str, str | None, Position]] = field(default_factory=list)  # name, kind, where
    dropped_items: int = 0
    set_aside: int = 0


def _later(a: Position, b: Position) -> Position:
    return a if (a[1], a[2]) >= (b[1], b[2]) else b


def place_names(items: list[Verified], finder: NameFinder) -> PlacedNames:
    """Check every name an item uses against the book's text, up to what the model read.

    A name the text has given by the end of the item's chunk is known from the item's passage,
    or from its first occurrence if that comes later within the chunk. An item keeps only such
    names; an entity with none left, or a relation or identity missing an end, is dropped. A
    name used too early becomes a bare name from its first occurrence; a name the text never
    gives is dropped."""
    out = PlacedNames()
    for v in items:
        where: Position = (v.passage.id, *v.position)
        known: dict[str, Position] = {}
        for name in v.names():
            name = " ".join(name.split())
            first = finder.first(name) if name else None
            if first is not None and (first[1], first[2]) <= v.horizon:
                known.setdefault(name, _later(where, first))
                continue
            out.set_aside += 1
            if first is not None:
                kind = v.item.kind if v.kind == "entity" else None
                out.bare.append((name, kind, first))
        ends = [" ".join(n.split()) for n in v.names()]
        names = list(known) if v.kind == "entity" else ends
        if names and all(n in known for n in names):
            out.items.append((v, names, known))
        else:
            out.dropped_items += 1
    return out


def _write(tx: BooksStore, book_id: int, placed: PlacedNames, label: str) -> tuple[int, int, int]:
    rank = {"entity": 0, "relation": 1, "identity": 2}
    steps = sorted(
        [((v.position, rank[v.kind]), (v, names, where)) for v, names, where in placed.items]
        + [(((w[1], w[2]), 3), (name, kind, w)) for name, kind, w in placed.bare],
        key=lambda step: step[0],
    )
    pairs = {
        frozenset({name_key(v.item.name), name_key(v.item.identified_as)})
        for v, _, _ in placed.items
        if v.kind == "identity"
    }
    resolver = Resolver(pairs)
    facts: list[tuple[int, Verified]] = []
    edges: list[tuple[int, int, str, Verified]] = []
    for _, step in steps:
        if isinstance(step[0], str):  # a bare name, from where the text first gives it
            name, kind, w = step
            resolver.entity(name, [], kind or _kind_of(resolver, name), {name: w})
            continue
        v, names, where = step
        if v.kind == "entity":
            facts.append((resolver.entity(names[0], names[1:], v.item.kind, where), v))
            continue
        one, other = names
        first = resolver.entity(one, [], _kind_of(resolver, one), where)
        second = resolver.entity(other, [], _kind_of(resolver, other), where)
        if first != second:
            relation = IDENTIFIED_AS if v.kind == "identity" else " ".join(v.item.relation.lower().split())
            edges.append((first, second, relation, v))
    ids = {eid: tx.insert_model_entity(book_id, kind, label) for eid, kind in resolver.kinds.items()}
    tx.insert_model_names(
        [
            (ids[eid], book_id, name, pid, ch, ps)
            for eid, names in resolver.names.items()
            for name, (pid, ch, ps) in names.items()
        ],
    )
    tx.insert_model_facts(
        [
            (
                book_id,
                ids[eid],
                v.item.description,
                v.passage.id,
                *v.position,
                v.quote,
                v.quote_start,
                v.quote_end,
                label,
                None,
            )
            for eid, v in facts
        ],
    )
    tx.insert_model_relations(
        [
            (
                book_id,
                ids[s],
                ids[t],
                rel,
                v.passage.id,
                *v.position,
                v.quote,
                v.quote_start,
                v.quote_end,
                label,
                None,
            )
            for s, t, rel, v in edges
        ],
    )
    tx.number_model_entities(book_id)  # reader-facing ids: rank by the first passage naming them
    identities = sum(1 for *_, rel, _ in edges if rel == IDENTIFIED_AS)
    return len(ids), len(edges) - identities, identities


def _kind_of(resolver: Resolver, name: str) -> str:
    found = resolver.find(name)
    return resolver.kinds[found] if found is not None else "character"


def model_usage(book_id: int) -> dict[str, Any]:
    """Model calls and tokens spent on a book (all runs), for `books show`."""
    used = totals(subject=subject_of(book_id))
    return {**used.as_dict(), "line": used.line()}
