"""Model extraction: characters, places, groups, objects, events, relations and identities.

The book is read in chunks of consecutive passages within a chapter. Every item the model
returns must quote the passage it cites; the quote is verified (`lore.core.quotes`) and the
exact source span stored, or the item is dropped. Items are then resolved in reading order:
"Mr. Sherlock Holmes" and a later "Holmes" become one entity, while a claimed identity ("the
veiled woman" is Clara Vane) becomes an IDENTIFIED_AS relation at the reveal, never a merge,
so a reader before the reveal still sees two people. Calls are counted under `book:<id>`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.books import store as sql
from lore.books.library import find_book
from lore.books.model_schema import SYSTEM, ChunkFacts, chunk_prompt
from lore.books.names import TITLES
from lore.core.llm import ModelClient, model_run, totals
from lore.core.quotes import find_quote
from lore.core.store import Store

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
    passage: Any
    quote: str
    quote_start: int  # chapter offsets
    quote_end: int

    @property
    def position(self) -> tuple[int, int]:
        return (self.passage["chapter_seq"], self.passage["passage_seq"])


@dataclass
class ExtractReport:
    book_id: int
    title: str
    model: str
    chunks: int
    failed_chunks: int
    accepted: int
    rejected: int
    entities: int
    relations: int
    identities: int
    usage: dict[str, Any] = field(default_factory=dict)
    usage_line: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def subject_of(book_id: int) -> str:
    return f"book:{book_id}"


def chunks_of(rows: list[Any], limit: int = CHUNK_WORDS) -> list[Chunk]:
    """Consecutive passages of one chapter, up to about `limit` words per chunk."""
    out: list[Chunk] = []
    words = 0
    for row in rows:
        size = len(row["text"].split())
        last = out[-1] if out else None
        if last is None or last.chapter != row["chapter_seq"] or words + size > limit:
            out.append(Chunk(row["chapter_seq"], row["chapter_title"], []))
            words = 0
        out[-1].passages.append(row)
        words += size
    return out


def extract_book(ref: str | int, *, store: Store | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> ExtractReport:
    """Run the model over a book and replace its model layer; needs a configured model."""
    db = sql.books_store(store)
    book = find_book(ref, db)
    subject = subject_of(book.id)
    client = ModelClient(task="books.extract", subject=subject)
    label = client.spec().label  # raises NeedsModel (with how to set one up) before any work
    chunks = chunks_of(sql.chapter_passages(db.connect(), book.id))
    tick = progress or (lambda stage, done, total: None)
    results: list[Any] = []
    with model_run("books extract", subject=subject):
        for start in range(0, len(chunks), BATCH):
            batch = chunks[start : start + BATCH]
            prompts = [
                chunk_prompt(book.title, c.title, [(i, p["text"]) for i, p in enumerate(c.passages, 1)])
                for c in batch
            ]
            results += client.structured_many_sync(prompts, ChunkFacts, system=SYSTEM,
                                                   return_exceptions=True)
            tick("extracting", len(results), len(chunks))
    verified, rejected, failed = [], 0, 0
    for chunk, result in zip(chunks, results, strict=True):
        if isinstance(result, BaseException):
            failed += 1
            continue
        good, bad = verify(chunk, result.value)
        verified += good
        rejected += bad
    with db.transaction() as tx:
        sql.clear_model_layer(tx, book.id)
        counts = _write(tx, book.id, verified, label)
        sql.record_model_run(tx, book.id, label, len(chunks), failed, len(verified), rejected)
    used = totals(subject=subject)
    return ExtractReport(book.id, book.title, label, len(chunks), failed, len(verified), rejected,
                         *counts, usage=used.as_dict(), usage_line=used.line())


def verify(chunk: Chunk, facts: ChunkFacts) -> tuple[list[Verified], int]:
    """The items whose quote is in the passage they cite; and how many were not."""
    good: list[Verified] = []
    rejected = 0
    items = ([("entity", e) for e in facts.entities] + [("relation", r) for r in facts.relations]
             + [("identity", i) for i in facts.identities])
    for kind, item in items:
        if not 1 <= item.passage <= len(chunk.passages):
            rejected += 1
            continue
        passage = chunk.passages[item.passage - 1]
        span = find_quote(item.quote, passage["text"])
        if span is None:
            rejected += 1
            continue
        good.append(Verified(kind, item, passage, passage["text"][span.start : span.end],
                             passage["start"] + span.start, passage["start"] + span.end))
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
            eid for k, eid in self.keys.items()
            if (kind is None or self.kinds[eid] == kind) and (
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

    def entity(self, name: str, aliases: list[str], kind: str, where: tuple[int, int, int]) -> int:
        found = self.find(name, kind)
        if found is None:
            found = self.find(name)
        for alias in aliases if found is None else []:
            if frozenset({name_key(name), name_key(alias)}) in self.identity_pairs:
                continue  # a claimed identity is an edge, never a merge
            found = self.find(alias, kind)
            if found is not None:
                break
        entity = self.add(found, name, kind, where)
        for alias in aliases:
            owner = self.find(alias)
            if owner not in (None, entity):
                continue  # the alias names someone else: keep them apart
            if frozenset({name_key(name), name_key(alias)}) in self.identity_pairs:
                continue
            self.add(entity, alias, kind, where)
        return entity


def _write(tx: Any, book_id: int, items: list[Verified], label: str) -> tuple[int, int, int]:
    items = sorted(items, key=lambda v: (v.position, {"entity": 0, "relation": 1, "identity": 2}[v.kind]))
    pairs = {frozenset({name_key(v.item.name), name_key(v.item.identified_as)})
             for v in items if v.kind == "identity"}
    resolver = Resolver(pairs)
    facts: list[tuple[int, Verified]] = []
    edges: list[tuple[int, int, str, Verified]] = []
    for v in items:
        where = (v.passage["id"], *v.position)
        if v.kind == "entity":
            eid = resolver.entity(v.item.name, v.item.aliases, v.item.kind, where)
            facts.append((eid, v))
        elif v.kind == "relation":
            source = resolver.entity(v.item.source, [], _kind_of(resolver, v.item.source), where)
            target = resolver.entity(v.item.target, [], _kind_of(resolver, v.item.target), where)
            if source != target:
                edges.append((source, target, " ".join(v.item.relation.lower().split()), v))
        else:
            before = resolver.entity(v.item.name, [], _kind_of(resolver, v.item.name), where)
            after = resolver.entity(v.item.identified_as, [], _kind_of(resolver, v.item.identified_as), where)
            if before != after:
                edges.append((before, after, IDENTIFIED_AS, v))
    ids = {eid: sql.insert_model_entity(tx, book_id, kind, label) for eid, kind in resolver.kinds.items()}
    sql.insert_model_names(tx, [
        (ids[eid], book_id, name, pid, ch, ps)
        for eid, names in resolver.names.items() for name, (pid, ch, ps) in names.items()
    ])
    sql.insert_model_facts(tx, [
        (book_id, ids[eid], v.item.description, v.passage["id"], *v.position, v.quote, v.quote_start,
         v.quote_end, label, None)
        for eid, v in facts
    ])
    sql.insert_model_relations(tx, [
        (book_id, ids[s], ids[t], rel, v.passage["id"], *v.position, v.quote, v.quote_start,
         v.quote_end, label, None)
        for s, t, rel, v in edges
    ])
    identities = sum(1 for *_, rel, _ in edges if rel == IDENTIFIED_AS)
    return len(ids), len(edges) - identities, identities


def _kind_of(resolver: Resolver, name: str) -> str:
    found = resolver.find(name)
    return resolver.kinds[found] if found is not None else "character"


def model_usage(book_id: int) -> dict[str, Any]:
    """Model calls and tokens spent on a book (all runs), for `books show`."""
    used = totals(subject=subject_of(book_id))
    return {**used.as_dict(), "line": used.line()}
