"""The records the history store hands out: plain frozen dataclasses, never driver rows.

They live apart from the statements that fill them so a reader of the domain (queries, lineage,
ownership, `why`) can see what a read returns without reading its SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Repo:
    """An ingested repository: a local folder, a GitHub OWNER/REPO, or both."""

    id: int
    name: str
    path: str | None
    github: str | None


@dataclass(frozen=True)
class Node:
    """A node of the history graph (commit, file, pr, issue or person)."""

    id: int
    kind: str
    key: str
    label: str
    at: float | None
    degree: int


@dataclass(frozen=True)
class MergedPr:
    node_id: int
    number: int
    title: str
    body: str
    created_at: float | None
    merged_at: float


@dataclass(frozen=True)
class TimelineEntry:
    """A commit, PR or issue behind a file: its depth from the file and the edge that led there."""

    id: int
    kind: str
    key: str
    label: str
    at: float | None
    depth: int
    how: str


@dataclass(frozen=True)
class CommitDetail:
    node_id: int
    sha: str
    author_name: str
    author_email: str
    is_bot: bool
    pr_number: int | None
    files: int
    added: int
    removed: int


@dataclass(frozen=True)
class ItemDetail:
    node_id: int
    number: int
    kind: str
    title: str
    state: str | None
    author: str | None
    created_at: float | None
    closed_at: float | None
    merged_at: float | None


@dataclass(frozen=True)
class ReviewComment:
    """A PR review comment, with the PR it belongs to (what the rules domain learns from)."""

    id: int
    repo: str
    pr_number: int
    pr_title: str
    author: str | None
    author_association: str | None  # OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE...
    is_bot: bool
    body: str
    path: str | None
    line: int | None
    diff_hunk: str | None
    in_reply_to: int | None
    created_at: float | None
    url: str | None


@dataclass(frozen=True)
class GraphCommit:
    """A reachable commit as the lineage walk needs it: its node, parents and time."""

    node_id: int
    sha: str
    parents: tuple[str, ...]
    at: float


@dataclass(frozen=True)
class ChangeEvent:
    """One path touched by one reachable commit, with who made it (for churn and a file's story).

    `status` is git's letter: A added, M modified, D deleted, R renamed from `old_path`, C copied.
    """

    commit_id: int
    file_id: int
    path: str
    status: str
    old_path: str | None
    added: int
    removed: int
    at: float
    authored_at: float
    author_id: int | None
    author_name: str
    author_email: str
    is_bot: bool


@dataclass(frozen=True)
class CommitText:
    """A commit with its whole message (the why a subject line leaves out)."""

    node_id: int
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    authored_at: float
    committer_name: str
    committed_at: float
    subject: str
    message: str
    is_bot: bool
    pr_number: int | None
    files: int
    added: int
    removed: int
    reachable: bool
    boundary: bool
    lossy: bool

    @property
    def body(self) -> str:
        """The message without its subject line (empty when there is none)."""
        return self.message.partition("\n")[2].strip("\n")


def repo_of(row: Any) -> Repo:
    """The `Repo` of a `history_repos` row."""
    return Repo(row["id"], row["name"], row["path"], row["github"])


def node_of(row: Any) -> Node:
    """The `Node` of a `history_nodes` row."""
    return Node(row["id"], row["kind"], row["key"], row["label"], row["at"], row["degree"])
