"""The records the books store hands out: one frozen dataclass per shape a read returns.

Fields come in the order the queries select them, so a driver row becomes a record by position
(`as_records`, `as_record`) and no caller ever holds a driver row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar


@dataclass(frozen=True)
class BookRef:
    id: int
    title: str


@dataclass(frozen=True)
class BookRow:
    """A book with its reading position and sizes (no content)."""

    id: int
    title: str
    authors: str  # JSON list
    series: str | None
    series_index: float | None
    format: str
    source_path: str
    word_count: int
    notes: str
    added_at: float
    pos_chapter: int | None
    pos_passage: int | None
    chapter_count: int
    passage_count: int


@dataclass(frozen=True)
class ChapterInfo:
    chapter_seq: int
    title: str
    word_count: int
    passage_count: int


@dataclass(frozen=True)
class PassageSpan:
    id: int
    chapter_seq: int
    passage_seq: int
    start: int
    end: int


@dataclass(frozen=True)
class PassageText:
    id: int
    chapter_seq: int
    passage_seq: int
    text: str


@dataclass(frozen=True)
class PassageRow:
    id: int
    book_id: int
    chapter_seq: int
    passage_seq: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class ChapterPassage:
    id: int
    chapter_seq: int
    passage_seq: int
    start: int
    text: str
    chapter_title: str


@dataclass(frozen=True)
class TermHit:
    """A visible passage matching a term group: its length and how often it matches."""

    id: int
    size: int
    tf: int


@dataclass(frozen=True)
class NameSpan:
    """A name found in a passage, as offsets into the passage's text."""

    passage_id: int
    start: int
    end: int


@dataclass(frozen=True)
class EntityCount:
    id: int
    book_id: int
    kind: str
    mentions: int
    passages: int
    first_chapter: int
    chapters: int


@dataclass(frozen=True)
class ModelEntityCount:
    id: int
    book_id: int
    kind: str
    passages: int
    first_chapter: int
    chapters: int


@dataclass(frozen=True)
class FormCount:
    entity_id: int
    form: str
    n: int
    first_chapter: int


@dataclass(frozen=True)
class FormMatch:
    entity_id: int
    form: str
    n: int


@dataclass(frozen=True)
class EntityHits:
    entity_id: int
    n: int


@dataclass(frozen=True)
class NamedIn:
    """A name used in a passage, with the entity it stands for at the reader's position."""

    passage_id: int
    entity_id: int
    form: str
    surface: str


@dataclass(frozen=True)
class MentionRow:
    chapter_seq: int
    passage_seq: int
    start: int
    end: int
    surface: str
    passage_id: int
    text: str
    passage_start: int


@dataclass(frozen=True)
class Cooccurrence:
    source: int
    target: int
    passages: int
    first_chapter: int


@dataclass(frozen=True)
class ModelFact:
    text: str
    quote: str
    chapter_seq: int
    passage_seq: int
    passage_id: int
    extracted_by: str


@dataclass(frozen=True)
class ModelRelation:
    source_id: int
    target_id: int
    relation: str
    quote: str
    chapter_seq: int
    passage_seq: int
    passage_id: int
    extracted_by: str


_R = TypeVar("_R")


def as_records(record: type[_R], rows: Iterable[Sequence[Any]]) -> list[_R]:
    """Each row as the record whose fields it selects, in order."""
    return [record(*row) for row in rows]


def as_record(record: type[_R], row: Sequence[Any] | None) -> _R | None:
    """The row as its record, or None when there was no row."""
    return record(*row) if row is not None else None
