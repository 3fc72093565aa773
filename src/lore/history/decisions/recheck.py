"""Decisions stored before the authority rules and the grounding check, checked again in code.

A decision written by an earlier extract carries no record of which rule let its speaker bind
the project, nor of whether its statement is carried by its quote (the store leaves both NULL).
Such a row is never served to an agent until it has been checked again; `lore history extract`
does it as its first step, without a model: the speaker is judged by the rules of
`authority` (GitHub's association, or the default branch's first-parent committers), and the
statement and rationale by `lore.core.grounding` against the quote and the source text layer 1
still holds. The verdicts are written beside the row; the decision itself is never rewritten,
and `lore history decisions --json` shows both.
"""

from __future__ import annotations

from collections import Counter

from lore.core.grounding import GROUNDED, GroundingCheck
from lore.history.decisions.authority import NO_RULE, for_comment, for_commit
from lore.history.decisions.guards import rationale_grounding, statement_grounding
from lore.history.decisions.store import DecisionRow, DecisionStore

CHECKED = "grounded and authoritative"
NOT_AUTHORITATIVE = "speaker cannot bind the project"


def _source(db: DecisionStore, row: DecisionRow, messages: dict[str, str]) -> tuple[str, str]:
    """The source text a stored decision was cut from (its quote alone when layer 1 lost it), and
    the opening post of the thread it answers (empty for a commit or an opening post)."""
    if row.source_kind == "commit":
        return messages.get(row.commit_sha or "", row.quote), ""
    if row.source_node is None:
        return row.quote, ""
    if row.comment_kind == "body":
        return db.post_text(row.source_node, None) or row.quote, ""
    text = db.post_text(row.source_node, row.comment_id)
    return row.quote if text is None else text, db.post_text(row.source_node, None) or ""


def recheck(db: DecisionStore, repo_id: int, maintainers: set[str], check: GroundingCheck) -> Counter[str]:
    """Check every decision of a repository that was stored unchecked; the verdicts counted."""
    rows = db.unchecked(repo_id)
    out: Counter[str] = Counter()
    if not rows:
        return out
    commits = {c.sha: c for c in db.commits(repo_id)} if any(r.source_kind == "commit" for r in rows) else {}
    messages = {sha: c.message for sha, c in commits.items()}
    with db.transaction() as tx:
        for row in rows:
            if row.source_kind == "commit":
                commit = commits.get(row.commit_sha or "")  # None: rewritten away, no longer the project's
                rule = for_commit(commit.author_email, commit.pr_by_member, maintainers) if commit else None
            else:
                rule = for_comment(row.speaker_role)
            unit, opening = _source(db, row, messages)
            said = statement_grounding(check, row.statement, row.quote, unit)
            why = rationale_grounding(check, row.rationale, row.quote, f"{unit}\n{opening}")
            grounding = said.reason if not said.grounded else (why.reason if not why.grounded else GROUNDED)
            tx.set_checks(row.id, rule or NO_RULE, grounding)
            if rule is None:
                out[NOT_AUTHORITATIVE] += 1
            elif grounding != GROUNDED:
                out[f"not grounded: {grounding}"] += 1
            else:
                out[CHECKED] += 1
    return out
