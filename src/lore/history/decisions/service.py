"""Decisions on two time axes: when a decision held in the project, and when Lore learned it.

Valid time runs from `valid_from` (the deciding comment or commit) to `valid_to`, which is
derived here from the supersessions in force, never stored. Belief time is what the store held:
with `believed_at`, only decisions ingested by then count, and only supersessions judged by
then and not undone by then. The two combine: "what did we believe on 1 May about what held in
March?" is `decisions(repo, as_of="03-15", believed_at="05-01")`. A backfill makes them differ:
a history read today has every `ingested_at` today and `valid_from` spread over years.

`Decision` and `decisions()` are the stable interface `why` and the MCP server use. A decision
reaches an agent (`served_only`) only when it is grounded (its statement carried by its quote)
and authoritative (a rule of `authority` let its speaker bind the project); one stored before
those checks is held back until `lore history extract` checks it again (`recheck`).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import asdict, dataclass, replace
from typing import Any

from lore.core.dates import iso_utc, to_epoch
from lore.core.grounding import GROUNDED
from lore.history.decisions.authority import RULES
from lore.history.decisions.guards import words
from lore.history.decisions.schema import SCOPES
from lore.history.decisions.store import DecisionRow, SupersessionRow, open_decisions
from lore.history.repos import Repo, resolve_repo

When = str | float | int | dt.date | dt.datetime | None


@dataclass(frozen=True)
class Decision:
    """One project decision with its evidence and, when it no longer holds, what ended it.

    `quote` is the source's own text at `source_span` (offsets into the stored comment body or
    commit message). `valid_to`, `superseded_by` (a decision id), `superseded_at`,
    `supersede_reason`, `supersession_id` (the row `unsupersede` undoes) and
    `superseded_by_statement` are None while the decision is in force at the moment asked about."""

    id: int
    repo: str
    statement: str
    rationale: str
    scope: str
    files: tuple[str, ...]
    source_kind: str  # comment | commit
    comment_kind: str | None  # body | issue_comment | review_comment
    item_number: int | None  # the issue or PR (for a commit: the PR it belongs to, if known)
    comment_id: int | None
    commit_sha: str | None
    source_url: str | None
    speaker: str
    speaker_role: str
    quote: str
    source_span: tuple[int, int]
    valid_from: float
    valid_to: float | None
    superseded_by: int | None
    superseded_at: float | None
    supersede_reason: str | None
    extracted_by: str
    confidence: float | None
    ingested_at: float
    supersession_id: int | None = None
    superseded_by_statement: str | None = None
    authority: str | None = None  # the rule that let the speaker bind the project; None: unchecked
    grounding: str | None = None  # "grounded", or why its statement is not; None: unchecked

    @property
    def in_force(self) -> bool:
        return self.valid_to is None

    @property
    def served(self) -> bool:
        """Whether an agent may be told this decision: grounded and authoritative."""
        return self.grounding == GROUNDED and self.authority in RULES

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["source_span"] = list(self.source_span)
        data["files"] = list(self.files)
        for key in ("valid_from", "valid_to", "superseded_at", "ingested_at"):
            data[key] = iso_utc(data[key])
        data["in_force"] = self.in_force
        data["served"] = self.served
        return data


def _moment(value: When, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)  # epoch seconds as stored: no rounding to microseconds
    return to_epoch(value, what=what)


def in_force(rows: list[SupersessionRow], believed_at: float | None) -> list[SupersessionRow]:
    """The supersessions the store stood by at `believed_at` (now when None)."""
    if believed_at is None:
        return [s for s in rows if s.undone_at is None]
    return [
        s for s in rows if s.judged_at <= believed_at and (s.undone_at is None or s.undone_at > believed_at)
    ]


def with_intervals(
    repo: Repo, rows: list[DecisionRow], supersessions: list[SupersessionRow]
) -> list[Decision]:
    """Each row with the end its supersessions give it: the earliest replacement's start."""
    by_id = {r.id: r for r in rows}
    ends: dict[int, tuple[float, int, str, int]] = {}
    for s in supersessions:
        later = by_id.get(s.later)
        if later is None or s.earlier not in by_id or later.valid_from <= by_id[s.earlier].valid_from:
            continue  # a replacement Lore had not learned of then, or one not later: no end
        closing = (later.valid_from, later.id, s.reason, s.id)
        if s.earlier not in ends or closing < ends[s.earlier]:
            ends[s.earlier] = closing
    out = []
    for r in rows:
        end = ends.get(r.id)
        out.append(
            Decision(
                id=r.id,
                repo=repo.name,
                statement=r.statement,
                rationale=r.rationale,
                scope=r.scope,
                files=r.files,
                source_kind=r.source_kind,
                comment_kind=r.comment_kind,
                item_number=r.item_number,
                comment_id=r.comment_id,
                commit_sha=r.commit_sha,
                source_url=r.source_url,
                speaker=r.speaker,
                speaker_role=r.speaker_role,
                quote=r.quote,
                source_span=(r.span_start, r.span_end),
                valid_from=r.valid_from,
                valid_to=end[0] if end else None,
                superseded_by=end[1] if end else None,
                superseded_at=end[0] if end else None,
                supersede_reason=end[2] if end else None,
                extracted_by=r.extracted_by,
                confidence=r.confidence,
                ingested_at=r.ingested_at,
                supersession_id=end[3] if end else None,
                superseded_by_statement=by_id[end[1]].statement if end else None,
                authority=r.authority,
                grounding=r.grounding,
            )
        )
    return out


_NO_END: dict[str, Any] = dict.fromkeys(
    (
        "valid_to",
        "superseded_by",
        "superseded_at",
        "supersede_reason",
        "supersession_id",
        "superseded_by_statement",
    )
)


def as_it_stood(found: list[Decision], moment: float | None) -> list[Decision]:
    """The decisions made by `moment` as they stood then (all of them when None): one
    superseded only after that moment was still in force, so its end is not shown."""
    if moment is None:
        return list(found)
    return [
        replace(d, **_NO_END) if d.valid_to is not None and d.valid_to > moment else d
        for d in found
        if d.valid_from <= moment
    ]


def touches(d: Decision, path: str) -> bool:
    """The decision applies to `path`: the same file, a folder holding it, or a file in it."""
    path = path.strip().lstrip("./")
    for f in d.files:
        if (
            f == path
            or (f.endswith("/") and path.startswith(f))
            or (path.endswith("/") and f.startswith(path))
        ):
            return True
        if "/" not in path and f.rsplit("/", 1)[-1] == path:
            return True
    return False


def about(d: Decision, topic: str) -> bool:
    """A scope name matches the scope; other words must all be in the statement, rationale or quote."""
    topic = topic.strip().lower()
    if topic in SCOPES:
        return d.scope == topic
    wanted = words(topic)
    return bool(wanted) and wanted <= words(f"{d.statement} {d.rationale} {d.quote} {d.scope}")


def decisions(
    repo: str | Repo | None,
    *,
    as_of: When = None,
    believed_at: When = None,
    topic: str | None = None,
    file: str | None = None,
    served_only: bool = False,
) -> list[Decision]:
    """The decisions of a repository, oldest first.

    Default: those in force now. `as_of`: those whose valid interval contains that moment.
    `believed_at`: as the store stood then (rows ingested by then; supersessions judged and not
    undone by then). `topic` (a scope, or words) and `file` (a path or folder) narrow the list;
    `served_only` keeps those an agent may be told (`Decision.served`).
    """
    target = repo if isinstance(repo, Repo) else resolve_repo(repo)
    at = _moment(as_of, "--as-of")
    believed = _moment(believed_at, "--believed-at")
    db = open_decisions()
    rows = db.decisions(target.id, believed_at=believed)
    found = with_intervals(target, rows, in_force(db.supersessions(target.id), believed))
    moment = at if at is not None else time.time()
    out = [d for d in found if d.valid_from <= moment and (d.valid_to is None or moment < d.valid_to)]
    if topic:
        out = [d for d in out if about(d, topic)]
    if file:
        out = [d for d in out if touches(d, file)]
    if served_only:
        out = [d for d in out if d.served]
    return out


def file_decisions(repo: str | Repo | None, path: str, *, as_of: When = None) -> list[Decision]:
    """Every decision about a file or folder, superseded ones included with their end, oldest
    first; with `as_of`, only those made by then, as they stood then (`as_it_stood`)."""
    found = [d for d in all_decisions(repo) if touches(d, path)]
    return as_it_stood(found, _moment(as_of, "as_of"))


def all_decisions(repo: str | Repo | None) -> list[Decision]:
    """Every decision ever stored for a repository, superseded ones included (with their end)."""
    target = repo if isinstance(repo, Repo) else resolve_repo(repo)
    db = open_decisions()
    return with_intervals(target, db.decisions(target.id), in_force(db.supersessions(target.id), None))
