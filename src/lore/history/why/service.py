"""`why`: what a question, a path or a line of code names, its ranked evidence, and an answer.

Without a model the evidence itself is the answer: ranked, each item with a verbatim sentence
of its source, its link or sha and its date. With a model (and `use_model` not False) a short
answer is added in which every sentence passed the quote and grounding checks in `answer.py`
(the sentences that did not are listed by reason in `dropped`, without their text); when the model
fails (a timeout, a 429, broken JSON) or nothing it wrote checks out, the evidence is shown with
one line saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lore.core.dates import iso_utc
from lore.core.errors import LoreError
from lore.core.llm.errors import ModelCallError
from lore.core.llm.settings import model_configured
from lore.history.repos import Repo
from lore.history.why.evidence import Evidence, Provider
from lore.history.why.index import before_read
from lore.history.why.retrieval import evidence_for, layer1_providers
from lore.history.why.store import open_why
from lore.history.why.target import build_query

if TYPE_CHECKING:  # the answering stack loads only when a model is asked (`why`)
    from lore.history.why import answer as model

WITHOUT_MODEL = (
    "With a model configured (`lore model setup`), `why` also writes a short answer from this "
    "evidence, every sentence citing an item and a quote checked against it."
)

# Evidence sources beyond layer 1 (decisions), added by whoever owns them: name -> provider.
EXTRA_PROVIDERS: dict[str, Provider] = {}


@dataclass
class WhyReport:
    repo: str
    target: str
    mode: str  # question | path | line
    as_of: float | None
    evidence: list[Evidence]
    answer: list[model.Cited] = field(default_factory=list)
    dropped: list[model.Dropped] = field(default_factory=list)
    note: str = ""
    blamed: str | None = None  # the sha a PATH:LINE was blamed on
    calls: int = 0
    tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "target": self.target,
            "mode": self.mode,
            "as_of": iso_utc(self.as_of),
            "blamed": self.blamed,
            "answer": [c.to_dict() for c in self.answer],
            "dropped": [d.to_dict() for d in self.dropped],
            "note": self.note,
            "evidence": [e.to_dict() for e in self.evidence],
            "model_calls": self.calls,
            "model_tokens": self.tokens,
        }


def gather(
    repo: Repo,
    target: str,
    *,
    as_of: float | None = None,
    limit: int = 10,
    providers: dict[str, Provider] | None = None,
) -> WhyReport:
    """The ranked evidence for a question, a path or a line, without any model call."""
    db = open_why()
    behind = before_read(repo, db)  # a step of its own: after an ingest, nothing to do
    q, mode, sha = build_query(repo, target, as_of)
    chosen = providers if providers is not None else {**layer1_providers(db), **EXTRA_PROVIDERS}
    if providers is None and db.has_decisions(repo.id):  # layer 2's stack loads only when it has any
        from lore.history.why.decisions_source import decision_evidence

        chosen = {**layer1_providers(db), "decisions": decision_evidence, **EXTRA_PROVIDERS}
    evidence = evidence_for(q, chosen, db, limit=limit)
    return WhyReport(repo.name, target, mode, as_of, evidence, note=behind, blamed=sha)


def why(
    repo: Repo,
    target: str,
    *,
    as_of: float | None = None,
    limit: int = 10,
    use_model: bool | None = None,
    providers: dict[str, Provider] | None = None,
) -> WhyReport:
    """`gather`, then an answer from the model when one is configured (unless `use_model=False`)."""
    report = gather(repo, target, as_of=as_of, limit=limit, providers=providers)
    if use_model is False or (use_model is None and not model_configured()):
        _say(report, WITHOUT_MODEL)
        return report
    if not report.evidence:
        _say(report, "no evidence found, so no model was asked")
        return report
    from lore.history.why import answer as model

    try:
        got = model.answer(report.target, report.evidence)
    except ModelCallError as exc:
        _say(report, f"no answer from the model ({_one_line(exc)}); the evidence alone follows")
        return report
    except LoreError as exc:  # NeedsModel and friends: as without a model, saying why
        _say(report, f"no answer from the model ({_one_line(exc)})")
        return report
    report.calls, report.tokens = got.calls, got.tokens
    report.answer, report.dropped = got.sentences, got.dropped
    if not got.sentences:
        _say(
            report,
            f"the model's answer was not shown: none of its {len(got.dropped)} sentence(s) quoted "
            "its cited evidence word for word and said only what that evidence says",
        )
    elif got.dropped:
        _say(
            report,
            f"{len(got.dropped)} sentence(s) of the model's answer dropped: their quote or what they "
            "say is not in the evidence they cite",
        )
    return report


def _say(report: WhyReport, line: str) -> None:
    """Add one line to the report's note: a note from the read (an index behind) stays first."""
    report.note = f"{report.note}; {line}" if report.note else line


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:200]


def units(evidence: Sequence[Evidence]) -> list[str]:
    """What the evidence is evidence of, in order, each once (a comment counts as its thread)."""
    return list(dict.fromkeys(e.unit for e in evidence))
