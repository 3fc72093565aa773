"""Candidate rules from files, code and reviews, and saving them without duplicates.

Memorize, discover, learn and train all produce candidates: text with a title, trigger words, a
scope and evidence. Saving compares normalised text with every rule the project already has, so
re-running an import adds nothing, and the same text found in two places becomes one rule that
carries both places as evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lore.core.errors import InvalidInput
from lore.rules import service
from lore.rules.gate.validation import check_rule_fields
from lore.rules.models import SOURCES, STATUSES, Project, Rule
from lore.rules.risk import screen
from lore.rules.scopes import normalize_scope
from lore.rules.store.rules import rules_store

BATCH = 2000
_MARKS = re.compile(r"[*_`~>#]+")
_EDGES = re.compile(r"^[\s\-+*.:;,!?]+|[\s\-+*.:;,!?]+$")


def normalize_text(text: str) -> str:
    """Text as compared for duplicates: case, markdown marks, spacing and end punctuation ignored."""
    text = _MARKS.sub("", text.lower())
    text = " ".join(text.split())
    return _EDGES.sub("", text)


@dataclass
class Candidate:
    """A rule not yet saved: what the agent or the user judges before keeping it."""

    text: str
    title: str = ""
    triggers: list[str] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    always: bool = False
    kind: str = ""  # what produced it (a convention's name, a file's format)

    @property
    def key(self) -> str:
        return normalize_text(self.text)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "title": self.title,
            "triggers": list(self.triggers),
            "scope": list(self.scope),
            "always": self.always,
            "kind": self.kind,
            "evidence": [dict(e) for e in self.evidence],
        }


@dataclass
class Refused:
    candidate: Candidate
    reason: str
    index: int = -1  # the candidate's position in what was saved

    def line(self) -> str:
        where = self.candidate.evidence[0] if self.candidate.evidence else {}
        place = f"{where.get('file', '?')}:{where.get('line', '?')}" if where else "?"
        return f"{place}: {self.reason}"


OUTCOMES = ("new", "merged", "known", "refused")


@dataclass
class Saved:
    """What saving did, as rules and as one outcome per candidate given, so that every candidate
    is counted exactly once: "new" (it made a rule), "merged" (its place was added to a rule made
    by another candidate or stored before), "known" (text and place already stored) or
    "refused"."""

    added: list[Rule] = field(default_factory=list)
    merged: list[Rule] = field(default_factory=list)  # stored rules that gained evidence
    refused: list[Refused] = field(default_factory=list)  # one per refused candidate
    outcomes: list[str] = field(default_factory=list)  # in the order the candidates were given

    def count(self, outcome: str) -> int:
        return self.outcomes.count(outcome)

    @property
    def repeats(self) -> int:
        return self.count("known")


def _merge(group: list[Candidate]) -> Candidate:
    """One candidate for candidates saying the same text."""
    head = group[0]
    first = Candidate(
        head.text,
        head.title,
        list(head.triggers),
        list(head.scope),
        list(head.evidence),
        head.always,
        head.kind,
    )
    for cand in group[1:]:
        for ev in cand.evidence:
            if ev not in first.evidence:
                first.evidence.append(ev)
        if not first.scope or not cand.scope:
            first.scope = []
        else:
            first.scope += [s for s in cand.scope if s not in first.scope]
        first.title = first.title or cand.title
        first.triggers += [t for t in cand.triggers if t not in first.triggers]
    return first


def save_candidates(project: Project, candidates: Sequence[Candidate], *, status: str, source: str) -> Saved:
    """Store candidates not already in the project; refusals are reported, never raised.

    New rules go in with one transaction per batch: an import of thousands of rules costs one
    version bump, not thousands."""
    if source not in SOURCES:
        raise InvalidInput(f"unknown rule source {source!r}; one of {', '.join(SOURCES)}")
    if status not in STATUSES:
        raise InvalidInput(f"unknown status {status!r}; active or pending")
    result = Saved(outcomes=[""] * len(candidates))
    store = rules_store()
    existing: dict[str, Rule] = {}
    for rule in store.rules(project.id):
        existing.setdefault(normalize_text(rule.text), rule)
    given: dict[str, list[int]] = {}  # normalised text -> positions of the candidates saying it
    for i, cand in enumerate(candidates):
        if key := cand.key:
            given.setdefault(key, []).append(i)
        else:
            result.outcomes[i] = "refused"
            result.refused.append(Refused(cand, "no words once markdown marks are left out", i))
    fresh: list[dict[str, Any]] = []
    for key, places in given.items():
        cand = _merge([candidates[i] for i in places])
        found = existing.get(key)
        if found is not None:
            known = list(found.evidence)
            for i in places:
                added = [ev for ev in candidates[i].evidence if ev not in known]
                result.outcomes[i] = "merged" if added else "known"
                known += added
            if len(known) == len(found.evidence):
                continue
            updated = store.update_rule(found.id, {"evidence": known})
            if updated is not None:
                existing[key] = updated
                result.merged.append(updated)
            continue
        try:
            fields = _fields(project, cand, status, source)
        except InvalidInput as exc:
            reason = str(exc).removeprefix("rule refused: ")
            for i in given[key]:
                result.outcomes[i] = "refused"
                result.refused.append(Refused(candidates[i], reason, i))
            continue
        first, *others = given[key]
        result.outcomes[first] = "new"
        for i in others:
            result.outcomes[i] = "merged"
        fresh.append(fields)
    if status == "pending" and fresh:  # warn whoever approves: what the gate would hold, and why
        items = [(f["text"], f["title"], f["triggers"], f["scope"]) for f in fresh]
        for fields, risk in zip(fresh, screen(project.id, items), strict=True):
            fields["risk"] = risk
    for start in range(0, len(fresh), BATCH):
        result.added += store.insert_rules(project.id, fresh[start : start + BATCH])
    return result


def _fields(project: Project, cand: Candidate, status: str, source: str) -> dict[str, Any]:
    """The stored columns of a candidate, after the same refusals as `service.add_rule`."""
    text, title = cand.text.strip(), cand.title.strip()
    triggers = service.parse_triggers(cand.triggers)
    check_rule_fields(text, title, triggers)
    return {
        "text": text,
        "title": title,
        "triggers": triggers,
        "always": cand.always,
        "scope": normalize_scope(cand.scope, project.sections, project.path),
        "status": status,
        "source": source,
        "auto": False,
        "tagged": bool(triggers) or cand.always,
        "evidence": list(cand.evidence),
    }
