"""The checks a proposed decision must pass, in code, before it is stored.

A model's say-so is never enough. A proposal is kept only when its quote is informative on its
own (not "the", not a few characters, not the prompt's own header text) and found in the very
section it cites (after normalising spacing, quote marks, dashes and case, with the exact span
recorded), the section's speaker can bind the project (`authority`: GitHub's
`author_association`, or the default branch's first-parent committers), its statement is
carried by its quote and its rationale by the section (`lore.core.grounding`: names, numbers,
content words, meaning), and it is not a second copy of a decision already held (the same
source with an overlapping quote, or a near-identical statement). Each refusal is counted by
its reason, so a run says what it dropped and why.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise

from lore.core.grounding import GROUNDED, HEADER_QUOTE, Grounding, GroundingCheck, informative
from lore.core.quotes import find_quote
from lore.history.decisions.schema import ProposedDecision, scope_of
from lore.history.decisions.sources import Section
from lore.history.decisions.store import DecisionRow, NewDecision

NO_SECTION = "cites no section of what it read"
NO_QUOTE = "quote not found in the cited section"
THIN = "quote says too little on its own"
HEADER = "quote is the prompt's own wording"
UNGROUNDED = "statement not carried by its quote"
UNGROUNDED_WHY = "rationale not carried by its source"
NO_AUTHORITY = "speaker cannot bind the project"
DUPLICATE = "duplicate of a decision already held"
EMPTY = "no statement"
# words a statement may use without its quote: the prompt asks for each decision "as the
# project's choice", so a neutral verb of choosing is its framing, not a claim of the source
# (verbs that say which way the choice went, "drop", "keep", "forbid", must be carried)
FRAMING = ("use", "adopt", "choose", "prefer", "decide", "project")
NEAR_IDENTICAL = 0.8  # overlap (Jaccard) of word pairs at which two statements are one decision
_WORD = re.compile(r"[a-z0-9]+")
# where a reason's clause starts or ends: sentence ends, semicolons, colons, dashes, "because"
_CLAUSE = re.compile(r"(?<=[.!?;:])\s+|\n+|\s+(?:-+|–|—)\s+|,?\s+(?=(?:because|since|as|so that)\s)", re.I)


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


def context_words(name: str, github: str | None) -> list[str]:
    """What every section's evidence carries without saying it: the repository's own name (the
    prompt gives it once) and the framing of a decision."""
    return [w for w in (name, github) if w] + list(FRAMING)


def statement_grounding(check: GroundingCheck, statement: str, quote: str, unit: str) -> Grounding:
    """Whether a decision's statement is carried by its quote (and the section it is cut from)."""
    return check.check(statement, quote, unit)


def rationale_grounding(check: GroundingCheck, rationale: str, quote: str, unit: str) -> Grounding:
    """Whether a rationale is carried by its source (`unit`: the section, and the opening post of
    the thread it answers): a rationale usually rests on another clause
    than the quote ("..., because the mobile client cannot keep cookies"), so its meaning is
    compared with the quote and with the section's clauses that share most words with it."""
    if not rationale.strip():
        return Grounding(True)
    first = check.check(rationale, quote, unit)
    if first.grounded:
        return first
    said = words(rationale)
    sentences = [t.strip() for t in _CLAUSE.split(unit) if t.strip() and t.strip() != quote]
    sentences.sort(key=lambda t: -len(said & words(t)))
    for sentence in sentences[:3]:
        if informative(sentence) is None and check.check(rationale, sentence, unit).grounded:
            return Grounding(True)
    return first


def check(
    proposals: list[ProposedDecision],
    sections: dict[str, Section],
    *,
    repo_id: int,
    extracted_by: str,
    files: set[str],
    held: list[DecisionRow],
    kept_so_far: list[NewDecision],
    grounding: GroundingCheck | None = None,
) -> Checked:
    """The proposals of one call that pass every check, as rows to write; refusals counted.
    `grounding`: the check for this call's prompt (its headers, the repository's name, the
    embedder); a bare word check when not given."""
    grounding = grounding or GroundingCheck()
    out = Checked()
    for p in proposals:
        section = sections.get(p.source.strip().strip("[]").upper())
        if section is None:
            out.dropped[NO_SECTION] += 1
            continue
        if not p.statement.strip():
            out.dropped[EMPTY] += 1
            continue
        thin = informative(p.quote, grounding.headers)
        if thin is not None:
            out.dropped[HEADER if thin == HEADER_QUOTE else THIN] += 1
            continue
        span = find_quote(p.quote, section.text)
        if span is None:
            out.dropped[NO_QUOTE] += 1
            continue
        if not section.authority:
            out.dropped[NO_AUTHORITY] += 1
            continue
        quote = section.text[span.start : span.end]
        statement = " ".join(p.statement.split())
        rationale = " ".join(p.rationale.split())
        if not statement_grounding(grounding, statement, quote, section.text).grounded:
            out.dropped[UNGROUNDED] += 1
            continue
        if not rationale_grounding(
            grounding, rationale, quote, f"{section.text}\n{section.opening}"
        ).grounded:
            out.dropped[UNGROUNDED_WHY] += 1
            continue
        row = NewDecision(
            repo_id=repo_id,
            statement=statement,
            rationale=rationale,
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
            quote=quote,
            span_start=span.start,
            span_end=span.end,
            valid_from=section.when,
            extracted_by=extracted_by,
            confidence=p.confidence,
            authority=section.rule,
            grounding=GROUNDED,
        )
        if is_duplicate(row, held) or is_duplicate(row, kept_so_far + out.kept):
            out.dropped[DUPLICATE] += 1
            continue
        out.kept.append(row)
    return out
