"""`lore history supersede`: which later decisions replaced earlier ones, judged conservatively.

Every yes closes an interval, and a closed interval removes a stretch of the project's history
from every question about a date, so yes must be rare and earned. A pair is put to the judge
only when the two decisions share a scope, share an anchor (a file or folder, or the lineage of
an issue or PR: the same item, the PR a commit belongs to, a PR and the issue it closes), share
a grounded word (a name, identifier, path or content word both statements say and both quotes
carry: two decisions that have no subject in common cannot replace one another, whatever a
judge answers), and the later one really is later (a tie is never a replacement, and the earlier one is never asked
whether it replaced the later). Embedding similarity of the statements only filters for recall
among those; the model decides, giving its reasoning before its verdict, and only `replaces`
counts. Every verdict is recorded, so a second run asks nothing it has asked before.

A supersession is its own row; `unsupersede` stamps it undone (nothing is deleted) and the
earlier decision's interval is open again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from lore.core.dates import iso_utc
from lore.core.embed import get_embedder
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.grounding import GROUNDED, anchors, evidence_words
from lore.core.llm import ModelClient, StructuredResult, model_run, totals
from lore.core.llm.errors import ModelCallError
from lore.core.llm.tasks import HISTORY_SUPERSEDE
from lore.history.decisions.authority import RULES
from lore.history.decisions.guards import FRAMING
from lore.history.decisions.schema import JUDGE_SYSTEM, JUDGE_VERSION, Verdict, judge_prompt
from lore.history.decisions.store import DecisionRow, SupersessionRow, open_decisions
from lore.history.repos import Repo, resolve_repo

# cosine similarity below which two statements are not even put to the judge: set loose on
# purpose (no labelled pairs exist to tune it on), since it only saves calls on clear misses
MIN_SIMILARITY = 0.2
BATCH = 4


@dataclass(frozen=True)
class Candidate:
    earlier: DecisionRow
    later: DecisionRow
    anchor: str  # what they share, e.g. "file src/auth.py" or "lineage #12"
    similarity: float


@dataclass
class SupersedeReport:
    repo: str
    judge: str
    pairs_sharing_anchor: int
    pairs_without_shared_words: int  # sharing a file or lineage, but no grounded word: never judged
    candidates: int  # past the similarity filter
    already_judged: int
    judged: int
    superseded: int
    failed_calls: int
    calls_left_for_budget: int
    new: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    usage_line: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def shared_anchor(a: DecisionRow, b: DecisionRow, lineage: dict[int, set[int]]) -> str | None:
    """What two decisions are both about, or None: a file (or folder holding it), or a lineage."""
    for fa in a.files:
        for fb in b.files:
            if (
                fa == fb
                or (fa.endswith("/") and fb.startswith(fa))
                or (fb.endswith("/") and fa.startswith(fb))
            ):
                return f"file {fb if len(fb) >= len(fa) else fa}"
    if a.source_node is None or b.source_node is None:
        return None
    if lineage.get(a.source_node, {a.source_node}) & lineage.get(b.source_node, {b.source_node}):
        number = a.item_number or b.item_number
        return f"lineage of #{number}" if number else "lineage"
    return None


def grounded_words(r: DecisionRow) -> frozenset[str]:
    """The names and content words (stems) a decision's statement says and its quote carries."""
    said = anchors(r.statement)
    held = evidence_words([r.quote])
    framing = set(FRAMING)
    return frozenset(w for w in (*said.names, *said.content) if w in held.words and w not in framing)


def shared_words(a: DecisionRow, b: DecisionRow) -> tuple[str, ...]:
    """The grounded words two decisions share, sorted."""
    return tuple(sorted(grounded_words(a) & grounded_words(b)))


def pairs(
    rows: list[DecisionRow], lineage: dict[int, set[int]], *, need_words: bool = True
) -> list[tuple[DecisionRow, DecisionRow, str]]:
    """(earlier, later, anchor) for every pair of one scope, sharing an anchor and (with
    `need_words`) a grounded word, strictly ordered."""
    out = []
    by_scope: dict[str, list[DecisionRow]] = {}
    for r in rows:
        by_scope.setdefault(r.scope, []).append(r)
    for group in by_scope.values():
        group.sort(key=lambda r: (r.valid_from, r.id))
        for i, earlier in enumerate(group):
            for later in group[i + 1 :]:
                if later.valid_from <= earlier.valid_from:
                    continue
                anchor = shared_anchor(earlier, later, lineage)
                if anchor is None:
                    continue
                common = shared_words(earlier, later)
                if common:
                    out.append((earlier, later, f"{anchor}; words {', '.join(common[:4])}"))
                elif not need_words:
                    out.append((earlier, later, anchor))
    return out


def _text(r: DecisionRow) -> str:
    return f"{r.statement} {r.rationale}".strip()


def similar(found: list[tuple[DecisionRow, DecisionRow, str]]) -> list[Candidate]:
    """The pairs whose statements are at least MIN_SIMILARITY alike (the configured embedder)."""
    if not found:
        return []
    rows = {r.id: r for pair in found for r in pair[:2]}
    ids = sorted(rows)
    vectors = get_embedder().embed([_text(rows[i]) for i in ids])
    where = {i: n for n, i in enumerate(ids)}
    out = []
    for earlier, later, anchor in found:
        sim = float(np.dot(vectors[where[earlier.id]], vectors[where[later.id]]))
        if sim >= MIN_SIMILARITY:
            out.append(Candidate(earlier, later, anchor, sim))
    out.sort(key=lambda c: -c.similarity)
    return out


def _as_judged(r: DecisionRow) -> tuple[str, str, str, str]:
    return ((iso_utc(r.valid_from) or "")[:10], r.statement, r.rationale, r.quote)


def supersede(
    repo: str | Repo | None = None,
    *,
    max_calls: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SupersedeReport:
    """Judge the candidate pairs not judged before and record the replacements; needs a model."""
    target = repo if isinstance(repo, Repo) else resolve_repo(repo)
    db = open_decisions()
    # only decisions an agent may be told can end another's interval (`Decision.served`)
    rows = [r for r in db.decisions(target.id) if r.grounding == GROUNDED and r.authority in RULES]
    lineage = db.lineage(r.source_node for r in rows if r.source_node is not None)
    found = pairs(rows, lineage)
    anchored = len(pairs(rows, lineage, need_words=False))
    subject = f"repo:{target.name}"
    client = ModelClient(task=HISTORY_SUPERSEDE, subject=subject)
    try:
        judge = f"{client.spec().label} {JUDGE_VERSION}"
    except NeedsModel as exc:
        raise NeedsModel(
            f"`lore history supersede` needs a language model to judge {len(found)} pair(s) of decisions"
            f" of {target.name} that share a scope and an anchor; decisions stay open until one does. {exc}"
        ) from None
    seen = db.checked_pairs(target.id, judge)
    with model_run("history supersede", subject=subject) as run_id:
        candidates = similar(found)
        fresh = [c for c in candidates if (c.earlier.id, c.later.id) not in seen]
        todo = fresh if max_calls is None else fresh[:max_calls]
        judged = yes = failed = 0
        new: list[dict[str, Any]] = []
        tick = progress or (lambda finished, total: None)
        tick(0, len(todo))
        for start in range(0, len(todo), BATCH):
            batch = todo[start : start + BATCH]
            prompts = [judge_prompt(_as_judged(c.earlier), _as_judged(c.later)) for c in batch]
            results = client.structured_many_sync(
                prompts, Verdict, system=JUDGE_SYSTEM, return_exceptions=True, temperature=0
            )
            with db.transaction() as tx:
                for c, result in zip(batch, results, strict=True):
                    if isinstance(result, NeedsModel) or not isinstance(
                        result, StructuredResult | ModelCallError
                    ):
                        raise result
                    if isinstance(result, ModelCallError):
                        failed += 1
                        continue
                    verdict: Verdict = result.value
                    judged += 1
                    tx.record_check(c.earlier.id, c.later.id, judge, verdict.verdict, verdict.reasoning)
                    if verdict.verdict == "replaces":
                        yes += 1
                        sid = tx.add_supersession(c.earlier.id, c.later.id, judge, verdict.reasoning)
                        new.append(
                            {"id": sid, "earlier": c.earlier.id, "later": c.later.id, "anchor": c.anchor}
                        )
            tick(min(start + BATCH, len(todo)), len(todo))
    used = totals(run_id=run_id, subject=subject)
    return SupersedeReport(
        repo=target.name,
        judge=judge,
        pairs_sharing_anchor=len(found),
        pairs_without_shared_words=anchored - len(found),
        candidates=len(candidates),
        already_judged=len(candidates) - len(fresh),
        judged=judged,
        superseded=yes,
        failed_calls=failed,
        calls_left_for_budget=len(fresh) - len(todo),
        new=new,
        usage=used.as_dict(),
        usage_line=used.line(),
    )


@dataclass(frozen=True)
class Supersession:
    """A supersession row with the two decisions' statements, for listing."""

    id: int
    earlier: int
    earlier_statement: str
    later: int
    later_statement: str
    judged_at: float
    judge: str
    reason: str
    undone_at: float | None
    # the later decisions other supersessions in force still replace `earlier` with (after an
    # undo: while any is left, the earlier decision does not hold again)
    still_superseded_by: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["judged_at"] = iso_utc(self.judged_at)
        data["undone_at"] = iso_utc(self.undone_at)
        data["in_force"] = self.undone_at is None
        data["still_superseded_by"] = list(self.still_superseded_by)
        return data


def supersessions(repo: str | Repo | None = None) -> list[Supersession]:
    """Every supersession of a repository, undone ones included, in the order judged."""
    target = repo if isinstance(repo, Repo) else resolve_repo(repo)
    db = open_decisions()
    rows = {r.id: r for r in db.decisions(target.id)}
    return [_listed(s, rows) for s in db.supersessions(target.id)]


def _listed(s: SupersessionRow, rows: dict[int, DecisionRow]) -> Supersession:
    return Supersession(
        s.id,
        s.earlier,
        rows[s.earlier].statement if s.earlier in rows else "",
        s.later,
        rows[s.later].statement if s.later in rows else "",
        s.judged_at,
        s.judge,
        s.reason,
        s.undone_at,
    )


def unsupersede(supersession_id: int) -> Supersession:
    """Undo a supersession: the row stays, stamped undone, and the earlier interval reopens,
    unless another supersession in force still closes it (`still_superseded_by` names the
    later decisions of those, earliest first)."""
    db = open_decisions()
    row = db.supersession(supersession_id)
    if row.undone_at is not None:
        raise InvalidInput(f"supersession {supersession_id} was already undone at {iso_utc(row.undone_at)}")
    with db.transaction() as tx:
        tx.undo_supersession(supersession_id)
    after = db.supersession(supersession_id)
    earlier, later = db.decision(after.earlier), db.decision(after.later)
    closing = []
    for s in db.supersessions(earlier.repo_id):
        if s.earlier == earlier.id and s.undone_at is None:
            replacement = db.decision(s.later)
            if replacement.valid_from > earlier.valid_from:  # as `service.with_intervals` counts them
                closing.append((replacement.valid_from, replacement.id))
    listed = _listed(after, {earlier.id: earlier, later.id: later})
    return replace(listed, still_superseded_by=tuple(dict.fromkeys(d for _, d in sorted(closing))))
