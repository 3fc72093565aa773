"""The checks a proposed decision must pass, in code, before it is stored.

A model's say-so is never enough. A proposal is kept only when its quote is found in the very
section it cites (after normalising spacing, quote marks, dashes and case, with the exact span
recorded), the section's speaker can bind the project (OWNER, MEMBER or COLLABORATOR on GitHub,
or a committer of the repository), and it is not a second copy of a decision already held (the
same source with an overlapping quote, or a near-identical statement). Each refusal is counted
by its reason, so a run says what it dropped and why.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise

from lore.core.quotes import find_quote
from lore.history.decisions.schema import ProposedDecision, scope_of
from lore.history.decisions.sources import Section
from lore.history.decisions.store import DecisionRow, NewDecision

NO_SECTION = "cites no section of what it read"
NO_QUOTE = "quote not found in the cited section"
NO_AUTHORITY = "speaker cannot bind the project"
DUPLICATE = "duplicate of a decision already held"
EMPTY = "no statement"
NEAR_IDENTICAL = 0.8  # overlap (Jaccard) of word pairs at which two statements are one decision
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Checked:
    kept: list[NewDecision] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.casefold()))


def _pairs(text: str) -> frozenset[tuple[str, ...]]:
    seq = _WORD.findall(text.casefold())
    return frozenset(pairwise(seq)) if len(seq) > 1 else frozenset((w,) for w in seq)


def near_identical(a: str, b: str) -> bool:
    """Word pairs, not words: "use X, not Y" and "use Y, not X" share every word and are the
    opposite decisions, which a supersession must be able to connect."""
    pa, pb = _pairs(a), _pairs(b)
    if not pa or not pb:
        return False
    return len(pa & pb) / len(pa | pb) >= NEAR_IDENTICAL


def resolve_files(named: list[str], files: set[str], section: Section) -> tuple[str, ...]:
    """The repository paths a decision applies to: the model's names that are files of the
    repository (exactly, or as the unique file ending so) or folders holding some, and the file
    a review comment is on. A name the repository does not have is left out."""
    out: list[str] = [section.path] if section.path else []
    for raw in named:
        name = raw.strip().strip("`'\"").lstrip("./")
        if not name:
            continue
        if name.endswith("/"):
            if any(f.startswith(name) for f in files):
                out.append(name)
            continue
        if name in files:
            out.append(name)
            continue
        ends = [f for f in files if f.endswith("/" + name)]
        if len(ends) == 1:
            out.append(ends[0])
    return tuple(dict.fromkeys(out))


def _same_source(a: NewDecision | DecisionRow, b: NewDecision) -> bool:
    return (a.source_kind, a.comment_kind, a.comment_id, a.commit_sha, a.source_node) == (
        b.source_kind,
        b.comment_kind,
        b.comment_id,
        b.commit_sha,
        b.source_node,
    )


def is_duplicate(new: NewDecision, held: list[NewDecision] | list[DecisionRow]) -> bool:
    for old in held:
        if _same_source(old, new) and old.span_start < new.span_end and new.span_start < old.span_end:
            return True
        if near_identical(old.statement, new.statement):
            return True
    return False


def check(
    proposals: list[ProposedDecision],
    sections: dict[str, Section],
    *,
    repo_id: int,
    extracted_by: str,
    files: set[str],
    held: list[DecisionRow],
    kept_so_far: list[NewDecision],
) -> Checked:
    """The proposals of one call that pass every check, as rows to write; refusals counted."""
    out = Checked()
    for p in proposals:
        section = sections.get(p.source.strip().strip("[]").upper())
        if section is None:
            out.dropped[NO_SECTION] += 1
            continue
        if not p.statement.strip():
            out.dropped[EMPTY] += 1
            continue
        span = find_quote(p.quote, section.text)
        if span is None:
            out.dropped[NO_QUOTE] += 1
            continue
        if not section.authority:
            out.dropped[NO_AUTHORITY] += 1
            continue
        row = NewDecision(
            repo_id=repo_id,
            statement=" ".join(p.statement.split()),
            rationale=" ".join(p.rationale.split()),
            scope=scope_of(p.scope),
            files=resolve_files(p.files, files, section),
            source_kind=section.source_kind,
            comment_kind=section.comment_kind,
            source_node=section.source_node,
            item_number=section.item_number,
            comment_id=section.comment_id,
            commit_sha=section.commit_sha,
            source_url=section.url,
            speaker=section.speaker,
            speaker_role=section.role,
            quote=section.text[span.start : span.end],
            span_start=span.start,
            span_end=span.end,
            valid_from=section.when,
            extracted_by=extracted_by,
            confidence=p.confidence,
        )
        if is_duplicate(row, held) or is_duplicate(row, kept_so_far + out.kept):
            out.dropped[DUPLICATE] += 1
            continue
        out.kept.append(row)
    return out
