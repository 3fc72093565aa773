"""What a pending rule risks: the screening gate's verdict on its text, kept with the rule.

A rule waits for a person for many reasons (it was imported, approval is manual, the repository
is not the user's), and the person approving it needs to know whether its text is one the gate
would have stopped. So every pending rule carries a `Risk`: the gate's checks on the rule itself,
in the gate's order (`lore.rules.gate.decision`): its wording (patterns, then the second look by
meaning, over the text, the title and the trigger words agents also read), then a contradiction
with an active rule of an overlapping scope. The checks about who saves it (manual approval, the
session's project, trust, the session's limit) are not the rule's risk and are left out.

When it is computed:

- imports (`memorize`, `discover`, `learn`, `train`) screen their new pending rules in one batch
  before they are written (`screen`);
- an agent's proposal held for its wording keeps the gate's own verdict (`from_decision`); one
  that waits for another reason is screened just after it is saved (`ensure_risks`);
- a rule with no verdict (written before verdicts were stored, put back to pending, or whose
  text a person edited) is screened on the first read that lists it (`ensure_risks`), and the
  verdict stored. A migration cannot do this: migrations are frozen and may not run the gate,
  whose wording changes from release to release.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from lore.rules.models import Risk, Rule
from lore.rules.store.rules import rules_store

CONTRADICTION = "contradiction"
_FAMILY = re.compile(r"\(([^()]+)\)")  # the gate's reasons name the family in the first brackets


def family_of(reason: str) -> str:
    """The family a wording reason names (`risky wording (a web address): ...`), or `wording`."""
    found = _FAMILY.search(reason)
    return found.group(1).strip() if found else "wording"


def is_wording_reason(reason: str) -> bool:
    """Whether a gate's reason is about the rule's wording (a pattern, or the look by meaning)."""
    return reason.startswith(("risky wording", "held: reads like"))


def from_decision(activate: bool, reason: str) -> Risk | None:
    """The risk a gate's decision already states: held for its wording, or None when the
    decision stopped before the wording checks or held the rule for something else."""
    if not activate and is_wording_reason(reason):
        return Risk("held", family_of(reason), reason)
    return None


def screen(project_id: int, items: Sequence[tuple[str, str, Sequence[str], Sequence[str]]]) -> list[Risk]:
    """The gate's verdict on each rule's own text, given as (text, title, triggers, scope):
    wording for all of them in one batch, then contradictions with the project's active rules."""
    from lore.rules.gate.decision import conflicting_rule, wording_verdicts

    if not items:
        return []
    held = wording_verdicts([(text, title, *triggers) for text, title, triggers, _ in items])
    active: list[Rule] | None = None
    out: list[Risk] = []
    for (text, _, _, scope), reason in zip(items, held, strict=True):
        if reason:
            out.append(Risk("held", family_of(reason), reason))
            continue
        if active is None:
            active = rules_store().rules(project_id, "active")
        found = conflicting_rule(text, scope, active)
        if found is not None:
            other, why = found
            named = why.replace("a similar rule", f"rule {other.id}", 1)
            line = named if named != why else f"contradicts rule {other.id}: {why}"
            out.append(Risk("held", CONTRADICTION, line))
        else:
            out.append(Risk("clear", "", "passed screening: wording, meaning and active rules"))
    return out


def ensure_risks(rules: Iterable[Rule]) -> list[Rule]:
    """The rules given, each pending one that has no verdict yet screened and its verdict stored."""
    rules = list(rules)
    waiting = [n for n, r in enumerate(rules) if r.status == "pending" and r.risk is None]
    if not waiting:
        return rules
    by_project: dict[int, list[int]] = {}
    for n in waiting:
        by_project.setdefault(rules[n].project_id, []).append(n)
    found: list[tuple[str, Risk]] = []
    for project_id, places in by_project.items():
        items = [(rules[n].text, rules[n].title, rules[n].triggers, rules[n].scope) for n in places]
        for n, risk in zip(places, screen(project_id, items), strict=True):
            rules[n] = replace(rules[n], risk=risk)
            found.append((rules[n].id, risk))
    rules_store().set_risks(found)
    return rules
