"""Resolution: verified items turned into entities, relations and identities, in reading order.

Every name an item uses is checked against the book's text up to what the model read
(`place_names`); a name joins an entity only when unambiguous (`Resolver`); a claimed identity
is an IDENTIFIED_AS edge, never a merge; and the result is written with reader-facing ids
(`write_resolved`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lore.books.model.items import IDENTIFIED_AS, Verified
from lore.books.names.evidence import NameFinder, Position
from lore.books.names.words import TITLES
from lore.books.store import BooksStore


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


def write_resolved(tx: BooksStore, book_id: int, placed: PlacedNames, label: str) -> tuple[int, int, int]:
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
