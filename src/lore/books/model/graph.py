"""The model layer as the reader can know it: entities, facts and typed relations under the cap.

An entity exists for the reader once one of its names is established in the visible text; a
relation once its passage is visible and both ends are; an IDENTIFIED_AS edge only from the
passage of the reveal. Every fact carries its quote and where it stands.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from lore.books.names.display import choose_display
from lore.books.store import BooksStore
from lore.books.store.cap import Cap
from lore.books.store.records import ModelRelation


def display_names(db: BooksStore, caps: list[Cap], ids: list[int]) -> dict[int, tuple[str, list[str]]]:
    forms: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for row in db.model_names(caps, ids):
        forms[row.entity_id].append((row.form, row.n))
    return {eid: choose_display(f) for eid, f in forms.items()}


def entity_rows(db: BooksStore, caps: list[Cap], kind: str | None, limit: int) -> list[dict[str, Any]]:
    rows = db.model_entity_list(caps, kind, limit)
    names = display_names(db, caps, [r.id for r in rows])
    return [
        {
            "id": r.id,
            "name": names[r.id][0],
            "kind": r.kind,
            "mentions": r.passages,
            "passages": r.passages,
            "first_chapter": r.first_chapter,
            "chapters": r.chapters,
            "aliases": names[r.id][1],
        }
        for r in rows
    ]


def resolve(db: BooksStore, caps: list[Cap], name: str) -> int | None:
    rows = db.model_entity_by_name(caps, name)
    if rows:
        return rows[0].entity_id
    from lore.books.model.resolve import name_key

    wanted = name_key(name)
    for row in entity_rows(db, caps, None, 100000):
        if wanted in {name_key(n) for n in [row["name"], *row["aliases"]]}:
            return row["id"]
    return None


def profile(db: BooksStore, caps: list[Cap], entity_id: int, limit: int = 20) -> dict[str, Any] | None:
    row = next((r for r in entity_rows(db, caps, None, 100000) if r["id"] == entity_id), None)
    if row is None:
        return None
    facts = [
        {
            "text": f.text,
            "quote": f.quote,
            "chapter": f.chapter_seq,
            "passage": f.passage_seq,
            "passage_id": f.passage_id,
            "extracted_by": f.extracted_by,
        }
        for f in db.model_facts(caps, entity_id, limit)
    ]
    relations = _relations(db, caps, db.model_relations(caps, entity_id, limit))
    return {**row, "facts": facts, "relations": relations}


def graph(db: BooksStore, caps: list[Cap], limit: int) -> dict[str, Any]:
    rows = db.model_relations(caps, None, limit)
    edges = _relations(db, caps, rows)
    ids = sorted({e["source"] for e in edges} | {e["target"] for e in edges})
    names = display_names(db, caps, ids)
    kinds = db.model_kinds(ids)
    return {
        "nodes": [{"id": i, "name": names[i][0], "kind": kinds.get(i, "character")} for i in ids],
        "edges": edges,
    }


def _relations(db: BooksStore, caps: list[Cap], rows: list[ModelRelation]) -> list[dict[str, Any]]:
    ids = sorted({r.source_id for r in rows} | {r.target_id for r in rows})
    names = display_names(db, caps, ids)
    return [
        {
            "source": r.source_id,
            "target": r.target_id,
            "source_name": names[r.source_id][0],
            "target_name": names[r.target_id][0],
            "kind": r.relation,
            "quote": r.quote,
            "chapter": r.chapter_seq,
            "passage": r.passage_seq,
            "passage_id": r.passage_id,
            "extracted_by": r.extracted_by,
        }
        for r in rows
    ]
