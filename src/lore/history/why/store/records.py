"""The typed records why's store hands out: indexed texts, their sources, the index's freshness
and the sizes of changes; no SQL here, only what the rooms of the store return.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Doc:
    """One indexed source text: a commit message, a PR or issue, or a comment."""

    id: int
    repo_id: int
    kind: str
    source_id: int
    thread_id: int | None
    at: float | None
    text: str


@dataclass(frozen=True)
class DocHit:
    doc_id: int
    score: float  # minus its BM25 score (`why.keywords.ranked`): lower is better


@dataclass(frozen=True)
class SourceMeta:
    """What a reader needs beside a source's text: its name, author, link and thread."""

    kind: str
    source_id: int
    ref: str  # a sha, or the number of a PR or issue
    title: str
    author: str | None
    association: str | None
    url: str | None
    thread_number: int | None
    thread_kind: str | None
    thread_title: str | None


@dataclass(frozen=True)
class Look:
    """The index's freshness at one moment (`WhyStore.look`)."""

    fingerprint: str  # layer 1 now
    indexed: str | None  # layer 1 when the index was last brought up to date
    docs: tuple[int, int]  # the texts' count and newest id (`doc_state`)

    @property
    def fresh(self) -> bool:
        return self.indexed == self.fingerprint


Sourced = tuple[Doc, SourceMeta]  # an indexed text with what a reader needs of its source


@dataclass(frozen=True)
class ChangeSize:
    commit_node: int
    lines: int
    at: float
    created: bool = False  # the commit added one of the files (its first version)


Counter = Callable[[str], dict[str, int]]  # a text -> its words and how often each occurs


def doc_of(row: Sequence) -> Doc:
    """A text from its row: id, repo_id, kind, source_id, thread_id, at, text."""
    return Doc(*row)
