"""Decisions (layer 2) as evidence for `why`: the project's own statements, with their quotes.

Only decisions an agent may be told (grounded in their quote, spoken by someone who can bind the
project: `Decision.served`) are evidence. A decision enters when it touches a file the question names or shares content words with the
question; those touching a named file come first. With `--as-of`, only decisions made by then
count, and one superseded after that moment is shown as it stood then: in force. A decision
superseded by then keeps its end and its successor, so an answer can never present it as
current.
"""

from __future__ import annotations

from lore.history import store as layer1
from lore.history.decisions.guards import words
from lore.history.decisions.service import Decision, all_decisions, as_it_stood, touches
from lore.history.why.evidence import Evidence, WhyQuery

# words a question carries that say nothing about its subject
_FILLER = frozenset(
    "a an and are as at be by did do does for from has have how in is it its of on or that the "
    "this to was we were what when where which who why with code file files line".split()
)


def decision_evidence(q: WhyQuery) -> list[Evidence]:
    """The repository's decisions relevant to the question, best first."""
    found = [d for d in as_it_stood(all_decisions(q.repo), q.as_of) if d.served]
    if not found:
        return []
    paths = _paths(q.files)
    asked = words(q.question) - _FILLER
    ranked: list[tuple[tuple[int, int, float], Evidence]] = []
    for d in found:
        on_file = any(touches(d, p) for p in paths)
        shared = len(asked & words(f"{d.statement} {d.rationale} {d.quote}"))
        if not on_file and shared == 0:
            continue
        ranked.append(((-int(on_file), -shared, -d.valid_from), _evidence(d)))
    ranked.sort(key=lambda item: item[0])
    return [e for _, e in ranked]


def _paths(file_ids: tuple[int, ...]) -> list[str]:
    if not file_ids:
        return []
    nodes = layer1.open_history().nodes(list(file_ids))
    return [n.key for n in nodes.values() if n.kind == "file"]


def _evidence(d: Decision) -> Evidence:
    source = f"#{d.item_number}" if d.item_number else (d.commit_sha or "")[:10]
    return Evidence(
        key=f"decision:{d.id}",
        kind="decision",
        unit=f"decision:{d.id}",
        title=d.statement,
        text=f"{d.statement}\n{d.rationale}\n{d.quote}",
        at=d.valid_from,
        ref=source,
        url=d.source_url,
        author=d.speaker,
        quote=d.quote,
        layer="decision",
        valid_to=d.valid_to,
        superseded_by=f"decision:{d.superseded_by}" if d.superseded_by else None,
    )
