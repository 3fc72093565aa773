"""The typed records the decisions store hands out and takes in, and the row converters that
build them: decisions as written and as proposed, supersessions, and the read-only views of
layer 1 (threads, their posts, commits) that extract reads its sources from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DecisionRow:
    """A stored decision as written: no validity end (that is derived, never stored)."""

    id: int
    repo_id: int
    statement: str
    rationale: str
    scope: str
    files: tuple[str, ...]
    source_kind: str  # comment | commit
    comment_kind: str | None  # body | issue_comment | review_comment (None for a commit)
    source_node: int | None  # the item's or the commit's layer-1 node
    item_number: int | None
    comment_id: int | None
    commit_sha: str | None
    source_url: str | None
    speaker: str
    speaker_role: str  # OWNER, MEMBER, COLLABORATOR or committer
    quote: str
    span_start: int
    span_end: int
    valid_from: float
    extracted_by: str
    confidence: float | None
    ingested_at: float
    # the rule that let the speaker bind the project (`authority.RULES`); "none" when no rule
    # grants it (a decision stored before the rules, checked again); None: never checked
    authority: str | None = None
    # "grounded", or why the statement is not carried by its quote; None: never checked
    grounding: str | None = None


@dataclass(frozen=True)
class NewDecision:
    """A decision that passed every check, ready to be written."""

    repo_id: int
    statement: str
    rationale: str
    scope: str
    files: tuple[str, ...]
    source_kind: str
    comment_kind: str | None
    source_node: int | None
    item_number: int | None
    comment_id: int | None
    commit_sha: str | None
    source_url: str | None
    speaker: str
    speaker_role: str
    quote: str
    span_start: int
    span_end: int
    valid_from: float
    extracted_by: str
    confidence: float | None
    authority: str | None = None
    grounding: str | None = None


@dataclass(frozen=True)
class SupersessionRow:
    id: int
    earlier: int
    later: int
    judged_at: float
    judge: str
    reason: str
    undone_at: float | None


@dataclass(frozen=True)
class ThreadSummary:
    """What the salience order needs to know about an issue or PR, without its text."""

    node_id: int
    number: int
    kind: str
    title: str
    created_at: float | None
    updated_at: float | None
    comments: int
    maintainer_posts: int  # body and comments by OWNER / MEMBER / COLLABORATOR
    links: int  # CLOSES and MENTIONS edges at the item


@dataclass(frozen=True)
class Post:
    """One piece of a thread a decision can rest on: the item's body or one comment."""

    kind: str  # body | issue_comment | review_comment
    comment_id: int | None
    author: str | None
    association: str | None
    is_bot: bool
    body: str
    path: str | None
    created_at: float | None
    url: str | None


@dataclass(frozen=True)
class Thread:
    node_id: int
    number: int
    kind: str  # pr | issue
    title: str
    url: str | None
    posts: tuple[Post, ...]


@dataclass(frozen=True)
class CommitText:
    node_id: int
    sha: str
    author_name: str
    author_email: str
    committer_email: str
    committed_at: float
    message: str
    parents: int
    pr_number: int | None
    is_bot: bool
    pr_by_member: bool  # the PR it belongs to was opened by an OWNER / MEMBER / COLLABORATOR


def decision_row(r: Any) -> DecisionRow:
    return DecisionRow(
        id=r["id"],
        repo_id=r["repo_id"],
        statement=r["statement"],
        rationale=r["rationale"],
        scope=r["scope"],
        files=tuple(json.loads(r["files"] or "[]")),
        source_kind=r["source_kind"],
        comment_kind=r["comment_kind"],
        source_node=r["source_node"],
        item_number=r["item_number"],
        comment_id=r["comment_id"],
        commit_sha=r["commit_sha"],
        source_url=r["source_url"],
        speaker=r["speaker"],
        speaker_role=r["speaker_role"],
        quote=r["quote"],
        span_start=r["span_start"],
        span_end=r["span_end"],
        valid_from=r["valid_from"],
        extracted_by=r["extracted_by"],
        confidence=r["confidence"],
        ingested_at=r["ingested_at"],
        authority=r["authority"],
        grounding=r["grounding"],
    )


def supersession_row(r: Any) -> SupersessionRow:
    return SupersessionRow(
        r["id"], r["earlier"], r["later"], r["judged_at"], r["judge"], r["reason"], r["undone_at"]
    )
