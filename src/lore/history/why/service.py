"""`why`: what a question, a path or a line of code names, its ranked evidence, and an answer.

Without a model the evidence itself is the answer: ranked, each item with a verbatim sentence
of its source, its link or sha and its date. With a model (and `use_model` not False) a short
answer is added in which every sentence passed the quote check in `answer.py`; when the model
fails (a timeout, a 429, broken JSON) or nothing it wrote checks out, the evidence is shown with
one line saying why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lore.core.dates import iso_utc
from lore.core.errors import InvalidInput, LoreError, NotFound
from lore.core.llm import ModelCallError, model_configured
from lore.history import queries
from lore.history import store as layer1
from lore.history.repos import Repo
from lore.history.why import answer as model
from lore.history.why.blame import blame_line
from lore.history.why.decisions_source import decision_evidence
from lore.history.why.evidence import Evidence, Provider, WhyQuery
from lore.history.why.retrieval import ensure_index, evidence_of, layer1_providers, retrieve
from lore.history.why.store import open_why

WITHOUT_MODEL = (
    "With a model configured (`lore model setup`), `why` also writes a short answer from this "
    "evidence, every sentence citing an item and a quote checked against it."
)
_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+)$")
_PATHISH = re.compile(r"[\w.\-]*[/\\][\w.\-/\\]+|[\w\-]+\.[A-Za-z]{1,5}\b")
_NUMBER = re.compile(r"(?:^|\s)#(\d+)\b")
_SHA = re.compile(r"\b[0-9a-f]{7,40}\b")

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
            "note": self.note,
            "evidence": [e.to_dict() for e in self.evidence],
            "model_calls": self.calls,
            "model_tokens": self.tokens,
        }


def _try_file(repo: Repo, text: str) -> layer1.Node | None:
    try:
        return queries.resolve_file(repo, text)
    except (NotFound, InvalidInput):
        return None


def _named(repo: Repo, question: str) -> tuple[list[int], list[int]]:
    """The files, PRs, issues and commits a question names (what the walk starts from)."""
    db = layer1.open_history()
    files: list[int] = []
    nodes: list[int] = []
    for match in _PATHISH.finditer(question):
        node = _try_file(repo, match.group(0).strip(".,;:!?'\"`()"))
        if node is not None and node.id not in files:
            files.append(node.id)
    numbers = _NUMBER.findall(question)
    named = db.find_nodes(repo.id, ("pr", "issue"), numbers)  # every #N in one read
    for number in numbers:
        for kind in ("pr", "issue"):
            node = named.get((kind, number))
            if node is not None:
                nodes.append(node.id)
    for sha in _SHA.findall(question):
        rows = db.find_commit_by_prefix(repo.id, sha)
        if len(rows) == 1:
            nodes.append(rows[0].id)
    return files, nodes


def build_query(repo: Repo, target: str, as_of: float | None) -> tuple[WhyQuery, str, str | None]:
    """The query for a question, a PATH or a PATH:LINE, its mode, and the blamed sha if any."""
    text = target.strip()
    if not text:
        raise InvalidInput("ask a question, or name a PATH or PATH:LINE")
    line = _LINE.match(text)
    if line and " " not in text:
        node = _try_file(repo, line.group("path"))
        if node is not None:
            if not repo.path:
                raise InvalidInput(f"{repo.name} has no local clone to blame {line.group('path')} in")
            sha = blame_line(repo.path, node.key, int(line.group("line")))
            commit = layer1.open_history().find_node(repo.id, "commit", sha)
            message = commit.label if commit else ""
            blamed = (commit.id,) if commit else ()
            q = WhyQuery(repo, f"{node.key} {message}", (node.id,), blamed, as_of, mode="line")
            return q, "line", sha
    if " " not in text:
        node = _try_file(repo, text)
        if node is not None:
            return WhyQuery(repo, node.key, (node.id,), (), as_of, mode="path"), "path", None
    files, nodes = _named(repo, text)
    return WhyQuery(repo, text, tuple(files), tuple(nodes), as_of), "question", None


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
    ensure_index(repo, db)
    q, mode, sha = build_query(repo, target, as_of)
    chosen = (
        providers
        if providers is not None
        else {**layer1_providers(db), "decisions": decision_evidence, **EXTRA_PROVIDERS}
    )
    pinned: list[Evidence] = []
    if sha is not None and q.nodes:
        found = db.sourced_by_source(repo.id, ("commit",), list(q.nodes[:1]))
        pinned = [replace(e, via=("blame",)) for e in evidence_of(repo, found)]
    evidence = retrieve(q, chosen, limit=limit, pinned=pinned)
    return WhyReport(repo.name, target, mode, as_of, evidence, blamed=sha)


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
        report.note = WITHOUT_MODEL
        return report
    if not report.evidence:
        report.note = "no evidence found, so no model was asked"
        return report
    try:
        got = model.answer(report.target, report.evidence)
    except ModelCallError as exc:
        report.note = f"no answer from the model ({_one_line(exc)}); the evidence alone follows"
        return report
    except LoreError as exc:  # NeedsModel and friends: as without a model, saying why
        report.note = f"no answer from the model ({_one_line(exc)})"
        return report
    report.calls, report.tokens = got.calls, got.tokens
    report.answer = got.sentences
    if not got.sentences:
        report.note = (
            f"the model's answer was not shown: none of its {got.dropped} sentence(s) quoted its "
            "cited evidence word for word"
        )
    elif got.dropped:
        report.note = f"{got.dropped} sentence(s) of the model's answer dropped: their quotes are not in the cited evidence"
    return report


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:200]


def units(evidence: Sequence[Evidence]) -> list[str]:
    """What the evidence is evidence of, in order, each once (a comment counts as its thread)."""
    return list(dict.fromkeys(e.unit for e in evidence))
