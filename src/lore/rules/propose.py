"""Saving what an agent proposes: each rule screened by the gate, then stored.

The use case under `propose_rules` and `record_feedback`. The agent session hands in the project
and what only it knows (its id, the projects it works on); this module refuses what no store
should take, asks the gate (`rules.gate.decision.decide`) with facts read from the stores, and
stores the rule with the gate's decision in one write transaction. Nothing here calls back into
the session: the walk goes session → here → gate → stores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from lore.core.config import load_settings
from lore.core.errors import InvalidInput, LoreError
from lore.rules.gate.trust import trust_state
from lore.rules.gate.validation import refusal_reason
from lore.rules.models import Project, Rule
from lore.rules.risk import ensure_risks, from_decision
from lore.rules.scopes import normalize_scope
from lore.rules.service import add_rule, parse_triggers
from lore.rules.store.rules import rules_store
from lore.rules.store.sessions import session_store


@dataclass(frozen=True)
class CheckedSave:
    """The outcome of a save whose checks ran inside its transaction."""

    rule: Rule
    known: bool  # an existing rule with the same text and scope; nothing was written
    decision: Any = None  # what the check decided (None when known)


class Verdict(Protocol):
    """What a check decides; read-only, so a frozen dataclass (the gate's Decision) fits."""

    @property
    def activate(self) -> bool: ...

    @property
    def reason(self) -> str: ...


def add_rule_checked(
    project: Project,
    text: str,
    *,
    decide: Callable[[], Verdict],
    session_id: str | None = None,
    **fields: Any,
) -> CheckedSave:
    """Save a rule with its duplicate check and the gate's decision inside one write transaction.

    BEGIN IMMEDIATE serialises writers across threads and processes, so what `decide` reads
    (active rules to contradict, the session's activation count) cannot change between the
    check and the insert: two sessions saving contradicting rules at once, four servers saving
    one rule, or parallel calls racing for `auto_limit` all see each other's writes. `decide` is
    the gate; it reads the store through the same connection and so inside the transaction.
    """
    store = rules_store()
    scope = tuple(normalize_scope(fields.pop("scope", None), project.sections, project.path))
    with store.transaction():
        for same in store.rules_with_text(project.id, text.strip()):
            if same.scope == scope:
                return CheckedSave(same, known=True)
        decision = decide()
        rule = add_rule(
            project,
            text,
            scope=scope,
            status="active" if decision.activate else "pending",
            auto=decision.activate,
            risk=from_decision(decision.activate, decision.reason),
            **fields,
        )
        if session_id is not None:
            outcome = "activated" if decision.activate else "waiting"
            session_store().record_outcome(session_id, rule.id, project.id, outcome, decision.reason)
    if rule.status == "pending" and rule.risk is None:  # it waits for another reason: screen its text
        rule = ensure_risks([rule])[0]  # after the transaction, so no writer waits on the second look
    return CheckedSave(rule, known=False, decision=decision)


@dataclass(frozen=True)
class Proposed:
    """What became of one proposed rule: refused (with the reason), already known, or saved."""

    refused: str = ""
    saved: CheckedSave | None = None


def save_proposed(
    project: Project,
    items: Sequence[dict[str, Any]],
    *,
    source: str,
    session_id: str,
    working_projects: Iterable[int],
) -> list[Proposed]:
    """Screen and store each proposed rule (`{text, title, triggers, always, scope}`), in order.

    A refusal (hidden characters, a bad scope, a field too long) is that item's outcome and the
    others still go on. The gate runs inside each save's transaction (see `add_rule_checked`)
    with the approval settings, the session's projects and, asked only when its check is
    reached, the repository's trust, the project's active rules and the session's activations.
    """
    from lore.rules.gate.decision import decide  # the gate's modules load on the first save

    settings = load_settings()
    working = frozenset(working_projects)
    out: list[Proposed] = []
    for item in items:
        text = str(item.get("text") or item.get("rule") or "").strip()
        reason = refusal_reason(text)
        if reason:
            out.append(Proposed(refused=reason))
            continue
        try:
            scope = tuple(normalize_scope(item.get("scope"), project.sections, project.path))
            shown = [str(item.get("title") or ""), *parse_triggers(item.get("triggers"))]
            gate = partial(
                decide,
                project,
                text,
                scope,
                shown,
                approval=settings.approval,
                auto_limit=settings.auto_limit,
                working_projects=working,
                active_rules=partial(rules_store().rules, project.id, "active"),
                activated_in_session=partial(session_store().activated_count, session_id),
                trust=partial(trust_state, project.path),
            )
            saved = add_rule_checked(
                project,
                text,
                decide=gate,
                session_id=session_id,
                title=str(item.get("title") or ""),
                triggers=item.get("triggers"),
                always=flag(item.get("always")),
                scope=scope,
                source=source,
                evidence=[{"session": session_id, "source": source}],
            )
        except LoreError as exc:
            out.append(Proposed(refused=str(exc)))
            continue
        out.append(Proposed(saved=saved))
    return out


def flag(value: Any) -> bool:
    """A yes/no from an agent: true/false, "true"/"false", "yes"/"no", 1/0."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "yes", "y", "1", "on"):
            return True
        if word in ("false", "no", "n", "0", "off", ""):
            return False
        raise InvalidInput(f"always must be true or false (got {value!r})")
    return bool(value)
