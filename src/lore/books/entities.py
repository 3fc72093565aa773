"""Characters, places and the graph, as the reader can know them.

Two sources: the names found without a model (mentions and their co-occurrence in passages),
and, once `lore books extract` has run with a model, the model layer (typed entities, facts
with quotes, relations, identities). `source="auto"` uses the model layer when there is one.

Everything here is computed from rows under the reader's cap, so an entity first named after
the cap has no node, no alias and no count. Which names form one entity and what kind it is are
decided under the cap too (the grouping is a timeline of links, `name_groups`), and the name
shown is chosen among the visible forms: a character known so far only as "Hope" is not shown
as "Jefferson Hope", and "Prophet" does not join "Mormon" before the text says "Mormon Prophet".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.books.library import Book, Stores, caps_for, find_book, open_books
from lore.books.model import graph as model_graph
from lore.books.names.display import choose_display
from lore.books.store import BooksStore
from lore.core.errors import InvalidInput, NotFound


@dataclass
class EntitySummary:
    id: int
    name: str
    kind: str
    mentions: int  # times named (with a model layer: passages about it)
    first_chapter: int
    chapters: int
    aliases: list[str] = field(default_factory=list)
    source: str = "names"  # "names" (no model) or "model"
    passages: int = 0  # passages it appears in

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Relation:
    source: int
    target: int
    source_name: str
    target_name: str
    passages: int
    first_chapter: int
    kind: str = "CO_OCCURS"


def _names(db: BooksStore, caps: list[Any], ids: list[int]) -> dict[int, tuple[str, list[str]]]:
    forms: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for row in db.visible_forms(caps, ids):
        forms[row.entity_id].append((row.form, row.n))
    return {eid: choose_display(f) for eid, f in forms.items()}


SOURCES = ("auto", "names", "model")
NAME_KINDS = ("person", "place", "group", "name")
MODEL_KINDS = ("character", "place", "group", "object", "event")


def _use_model(db: BooksStore, book: Book, source: str) -> bool:
    if source not in SOURCES:
        raise InvalidInput(f"source must be one of {', '.join(SOURCES)}")
    has = db.has_model_layer(book.id)
    if source == "model" and not has:
        raise InvalidInput(f"{book.title} has no model layer yet: run `lore books extract {book.id}`")
    return has and source != "names"


# What a name needs before `characters` lists it: passages it appears in; a name no mention has
# said what it is (no title, no speech verb, no place preposition: kind "name") needs more.
MIN_PASSAGES = 2
MIN_PASSAGES_UNTYPED = 3


def strong(row: Any) -> bool:
    """Whether the visible text gives a name enough evidence to be listed among the characters.

    One passage is not enough to tell a character from a word capitalised once ("Latitude", a
    king in a history lesson); a name the text has said something about (a title, "said X",
    "in X") is shown from its second passage, any other from its third. The list is meant to
    hold the strongest names only: early in a book, fewer than a full list have that much, and
    the list is shorter rather than padded with words capitalised once or twice."""
    need = MIN_PASSAGES_UNTYPED if row.kind == "name" else MIN_PASSAGES
    return int(row.passages) >= need


def characters(
    ref: str | int,
    *,
    kind: str | None = None,
    limit: int = 50,
    source: str = "auto",
    spoilers: bool = False,
    every: bool = False,
    store: Stores = None,
) -> tuple[Book, list[EntitySummary]]:
    """Entities the reader has met, most present first: without a model layer, only those the
    text gives enough evidence for (`strong`), or `every` name met."""
    db = open_books(store)
    book = find_book(ref, db)
    caps = caps_for([book], spoilers=spoilers)
    if _use_model(db, book, source):
        if kind is not None and kind not in MODEL_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(MODEL_KINDS)}")
        model_rows = model_graph.entity_rows(db, caps, kind, max(1, limit))
        seqs = db.model_entity_seqs([r["id"] for r in model_rows])
        return book, [EntitySummary(**{**r, "id": seqs[r["id"]]}, source="model") for r in model_rows]
    if kind is not None and kind not in NAME_KINDS:
        raise InvalidInput(
            f"kind must be one of {', '.join(NAME_KINDS)} (run `lore books extract`"
            " with a model for characters, places, groups, objects and events)"
        )
    rows = db.entity_list(caps, kind, max(1, limit) if every else max(1, limit) * 3 + 50)
    rows = rows if every else [r for r in rows if strong(r)][: max(1, limit)]
    names = _names(db, caps, [r.id for r in rows])
    seqs = db.entity_seqs([r.id for r in rows])
    return book, [
        EntitySummary(
            id=seqs[r.id],
            name=names[r.id][0],
            kind=r.kind,
            mentions=r.mentions,
            first_chapter=r.first_chapter,
            chapters=r.chapters,
            aliases=names[r.id][1],
            passages=r.passages,
        )
        for r in rows
    ]


def autocomplete(
    ref: str | int, prefix: str, *, limit: int = 10, spoilers: bool = False, store: Stores = None
) -> list[str]:
    """Names the reader has seen that start with `prefix` (any word of the name)."""
    db = open_books(store)
    book = find_book(ref, db)
    prefix = prefix.strip()
    if not prefix:
        return []
    caps = caps_for([book], spoilers=spoilers)
    rows = list(db.autocomplete(caps, prefix, limit * 3))
    if db.has_model_layer(book.id):
        rows = list(db.model_autocomplete(caps, prefix, limit * 3)) + rows
    out: list[str] = []
    for row in rows:
        if row.form not in out:
            out.append(row.form)
    return out[:limit]


def profile(
    ref: str | int,
    name: str,
    *,
    spoilers: bool = False,
    appearances: int = 5,
    related: int = 10,
    source: str = "auto",
    store: Stores = None,
) -> dict[str, Any]:
    """What the reader knows of one entity: names, counts, first passages, who appears with it."""
    db = open_books(store)
    book = find_book(ref, db)
    caps = caps_for([book], spoilers=spoilers)
    head = {"book": {"id": book.id, "title": book.title}}
    if _use_model(db, book, source):
        wanted = " ".join(name.split())
        entity = model_graph.resolve(db, caps, wanted) if wanted else None
        found = model_graph.profile(db, caps, entity, related) if entity is not None else None
        if found is None:
            raise NotFound(_unknown(wanted))
        return {**head, **_public(found, db.model_entity_seqs), "source": "model"}
    entity_id = _resolve(db, caps, book, name)
    summary = next(iter(db.entity_list(caps, None, 1, entity_id=entity_id)), None)
    if summary is None:  # cannot happen: _resolve only returns visible entities
        raise NotFound(_unknown(name))
    shown, aliases = _names(db, caps, [entity_id])[entity_id]
    seen = [
        {
            "chapter": r.chapter_seq,
            "passage": r.passage_seq,
            "passage_id": r.passage_id,
            "surface": r.surface,
            "context": _context(r),
        }
        for r in db.entity_mentions(caps, entity_id, appearances)
    ]
    neighbours = db.cooccurrences(caps, entity_id, related)
    names = _names(db, caps, [r.target for r in neighbours])
    seqs = db.entity_seqs([entity_id, *(r.target for r in neighbours)])
    return {
        **head,
        "id": seqs[entity_id],
        "name": shown,
        "kind": summary.kind,
        "aliases": aliases,
        "mentions": summary.mentions,
        "passages": summary.passages,
        "first_chapter": summary.first_chapter,
        "chapters": summary.chapters,
        "appearances": seen,
        "related": [
            {
                "id": seqs[r.target],
                "name": names[r.target][0],
                "passages": r.passages,
                "first_chapter": r.first_chapter,
            }
            for r in neighbours
        ],
        "source": "names",
    }


def graph(
    ref: str | int,
    *,
    limit: int = 200,
    spoilers: bool = False,
    source: str = "auto",
    store: Stores = None,
) -> dict[str, Any]:
    """The visible graph: typed relations (model layer) or co-occurrence in passages between any
    names met (`characters(every=True)`), the most shared first."""
    db = open_books(store)
    book = find_book(ref, db)
    caps = caps_for([book], spoilers=spoilers)
    head = {"book": {"id": book.id, "title": book.title}}
    if _use_model(db, book, source):
        return {
            **head,
            **_public(model_graph.graph(db, caps, limit), db.model_entity_seqs),
            "source": "model",
        }
    rows = db.cooccurrences(caps, None, limit)
    ids = sorted({r.source for r in rows} | {r.target for r in rows})
    names = _names(db, caps, ids)
    kinds = db.group_kinds(caps, ids)
    seqs = db.entity_seqs(ids)
    return {
        **head,
        "nodes": sorted(
            ({"id": seqs[i], "name": names[i][0], "kind": kinds.get(i, "name")} for i in ids),
            key=lambda n: n["id"],
        ),
        "edges": [
            asdict(
                Relation(
                    seqs[r.source],
                    seqs[r.target],
                    names[r.source][0],
                    names[r.target][0],
                    r.passages,
                    r.first_chapter,
                )
            )
            for r in rows
        ],
        "source": "names",
    }


def _public(data: dict[str, Any], seqs_of: Callable[[list[int]], dict[int, int]]) -> dict[str, Any]:
    """A model-layer answer with reader-facing ids (ranks in the book) in place of row ids."""
    rows = [data, *data.get("nodes", []), *data.get("relations", []), *data.get("edges", [])]
    ids = {r[k] for r in rows for k in ("id", "source", "target") if k in r}
    seqs = seqs_of(sorted(ids))

    def mapped(row: dict[str, Any]) -> dict[str, Any]:
        return {k: seqs[v] if k in ("id", "source", "target") else v for k, v in row.items()}

    out = mapped(data)
    for key in ("nodes", "relations", "edges"):
        if key in data:
            out[key] = [mapped(r) for r in data[key]]
    return out


def _resolve(db: BooksStore, caps: list[Any], book: Book, name: str) -> int:
    wanted = " ".join(name.split())
    if not wanted:
        raise InvalidInput("name a character, place or other entity")
    exact = db.entities_by_form(caps, wanted)
    if exact:
        return exact[0].entity_id
    rows = db.autocomplete(caps, wanted, 20)
    ids = list(dict.fromkeys(r.entity_id for r in rows))
    if len(ids) == 1:
        return ids[0]
    if len(ids) > 1:
        options = ", ".join(dict.fromkeys(r.form for r in rows[:6]))
        raise InvalidInput(f"{wanted!r} could be several: {options}")
    raise NotFound(_unknown(wanted))


def _unknown(name: str) -> str:
    return f"no one and nothing called {name!r} in the part of the book you have read"


def _context(row: Any, width: int = 160) -> str:
    """A window of the passage around the mention (offsets are chapter offsets)."""
    text = row.text
    at = row.start - row.passage_start
    lo = max(0, at - width // 2)
    hi = min(len(text), at + width // 2)
    snippet = " ".join(text[lo:hi].split())
    return ("…" if lo > 0 else "") + snippet + ("…" if hi < len(text) else "")
