"""The gate's decision: whether a rule an agent saves is activated now or waits for a person.

The checks run in the spec's order and the first that holds decides, so the reason an agent
reads is always the most basic one (manual approval before anything the text says):

1. approval is manual;
2. wrong project: not one this session works on;
3. not your repository (`trust_state`);
4. risky wording, in the text or in its title and trigger words (agents read those too): first
   the pattern families and what the rule asks for by act and object (`wording`, on the text and
   on each reading the agent would make of it: `lore.rules.gate.decode`), then, for what they
   let through, the second look by meaning
   (`lore.rules.gate.semantic`: a paraphrased attack is held under the family it reads like; when
   the model cannot load, the look is skipped and the decision's reason says so);
5. contradiction with an active rule whose scope overlaps the new one's (`scopes_overlap`, the
   test `lore review lint` uses, so the gate never activates a pair lint would report);
6. the session already activated `auto_limit` rules.

Everything the checks need comes in as arguments, and the slow facts (trust, the active rules,
the session's count) as callables asked only when their check is reached, so the decision is
one function that the MCP session, tests and benchmarks call the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from lore.rules.gate.contradiction import contradicts
from lore.rules.gate.decode import readings
from lore.rules.gate.samples import without_samples
from lore.rules.gate.semantic import second_look_many
from lore.rules.gate.trust import TrustState, trust_state
from lore.rules.gate.wording import risky_wording
from lore.rules.models import Project, Rule
from lore.rules.scopes import scopes_overlap


@dataclass(frozen=True)
class Decision:
    """Activate or wait, the one line the agent is told why, and notes on checks that could not
    run (the second look without its model), which a passing reason also carries."""

    activate: bool
    reason: str
    notes: tuple[str, ...] = ()


def wording_verdicts(rules: Sequence[Sequence[str]]) -> list[str]:
    """The risky-wording check alone (patterns, then the second look by meaning) for many rules,
    each given as its text, title and trigger words: the reason the gate would hold each, or ""
    when its wording passes. Imports (`memorize`, `discover`, `learn`) wait for a person anyway;
    this tells that person which of them the gate would not have let through, and why."""
    reasons = [""] * len(rules)
    unsure: list[int] = []
    for i, parts in enumerate(rules):
        risky = next((m for part in parts if part and (m := risky_wording(part))), None)
        if risky is not None:
            reasons[i] = risky.reason()
        else:
            unsure.append(i)
    texts = [read_as_agent(rules[i]) for i in unsure]
    flat = [part for parts in texts for part in parts]
    looks = iter(second_look_many(flat)) if flat else iter(())
    for i, parts in zip(unsure, texts, strict=True):
        found = [look for _ in parts if (look := next(looks)).match is not None]
        if found:
            reasons[i] = found[0].match.reason()  # type: ignore[union-attr]
    return reasons


def read_as_agent(parts: Sequence[str]) -> list[str]:
    """The parts of a rule (text, title, triggers) and every reading the agent would make of
    them (a shell's, spelled-out punctuation put back, decoded payloads), for the second look; a
    quoted sample of an attack in a sentence about test data is read as a stand-in
    (`samples.without_samples`), as the act-and-object reading reads it."""
    return list(dict.fromkeys(r for part in parts if part for r in (without_samples(part), *readings(part))))


def conflicting_rule(text: str, scope: Sequence[str], active: Iterable[Rule]) -> tuple[Rule, str] | None:
    """The first active rule in an overlapping scope that the new text contradicts, and why."""
    for other in active:
        if scopes_overlap(tuple(scope), other.scope) and (why := contradicts(text, other.text)):
            return other, why
    return None


def decide(
    project: Project,
    text: str,
    scope: Sequence[str],
    shown: Sequence[str] = (),
    *,
    approval: str,
    auto_limit: int,
    working_projects: Iterable[int],
    active_rules: Callable[[], Iterable[Rule]],
    activated_in_session: Callable[[], int],
    trust: Callable[[], TrustState] | None = None,
) -> Decision:
    """The gate, in the spec's order; the first check that holds decides."""
    if approval == "manual":
        return Decision(False, "approval is manual")
    if project.id not in set(working_projects):
        return Decision(False, f"wrong project: this session has not worked on `{project.name}`")
    state = trust() if trust is not None else trust_state(project.path)
    if not state.yours:
        return Decision(False, f"not your repository ({state.reason})")
    for part in (text, *shown):  # a title or trigger is read by agents too
        risky = risky_wording(part) if part else None
        if risky:
            return Decision(False, risky.reason())
    looks = second_look_many(read_as_agent((text, *shown)))
    for look in looks:
        if look.match is not None:
            return Decision(False, look.match.reason())
    notes = tuple(dict.fromkeys(look.skipped for look in looks if look.skipped))
    found = conflicting_rule(text, scope, active_rules())
    if found:
        other, why = found
        named = why.replace("a similar rule", f"rule {other.id}", 1)
        return Decision(False, named if named != why else f"contradicts rule {other.id}: {why}", notes)
    if activated_in_session() >= auto_limit:
        return Decision(
            False, f"session limit: {auto_limit} rules already activated in this session (auto_limit)", notes
        )
    return Decision(True, "; ".join(("passed screening", *notes)), notes)
