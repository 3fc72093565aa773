"""Choosing the rules a change needs, and the reply an agent reads.

Pure functions over an index snapshot: eligibility by scope, short lists sent whole, always/include
overrides, the ordering, no repeats within a session, the list of what was left out and an
optional token cap. The caller records what was served. Two ways to rank a task:
- `spec` (seed 003 exactly): BM25 on the task with a 30%-of-best cut;
- `hybrid`: BM25 and the meaning of the task (its words and its files' words) against each rule's
  vector, fused, with a lift for rules whose scope names one of the files being changed (on the
  labelled set such a rule is needed 38% of the time, a rule of a folder 3-10%, a global one 1%);
  the best candidates are then compared word by word (`meaning.RuleMeaning.word_match`). The best
  rules are sent until they fill a share of what sending every eligible rule would cost.
Either way the reply lists the id and title of every other eligible rule (up to MAX_LISTED,
once per session), the agent's safety net when a rule it needed was held back; in `hybrid` in
the same order as the ranking, so the next most likely rules are the first an agent reads.

The reply is `reply.RulesReply`; the `hybrid` ranking is in `hybrid`.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import TYPE_CHECKING

from lore.core.errors import InvalidInput
from lore.core.text import Tokenizer
from lore.core.tokens import estimate_tokens
from lore.rules.models import Rule
from lore.rules.serve.hybrid import _fill_share, _hybrid_scores
from lore.rules.serve.index import ProjectIndex
from lore.rules.serve.reply import HYBRID, MODES, SPEC, RulesReply, Served

if TYPE_CHECKING:  # the embedder package pulls in the model layer: loaded on first use
    from lore.core.embed.base import Embedder

__all__ = ["HYBRID", "MODES", "SPEC", "RulesReply", "check_task", "choose"]

SHORT_LIST = 10
RELATIVE_CUT = 0.30
MAX_TASK_CHARS = 500
MAX_LISTED = 25
MIN_MAX_TOKENS = 100


def check_task(task: str | None) -> str:
    task = (task or "").strip()
    if len(task) > MAX_TASK_CHARS:
        raise InvalidInput(
            f"the task is {len(task)} characters; describe the change in one sentence "
            f"(at most {MAX_TASK_CHARS})"
        )
    return task


def choose(
    index: ProjectIndex,
    tokenizer: Tokenizer,
    *,
    project: str,
    paths: list[str],
    sections: list[str],
    task: str | None = None,
    include: Iterable[str] = (),
    already_sent: set[str] | frozenset[str] = frozenset(),
    listed_before: set[str] | frozenset[str] = frozenset(),
    refresh: bool = False,
    max_tokens: int | None = None,
    embedder: Embedder | None = None,
) -> RulesReply:
    """The reply for a change. Call with the index lock held (the index must not move).

    With `embedder` the task is ranked `hybrid` (by meaning as well as words); without, `spec`.
    """
    task = check_task(task)
    if max_tokens is not None and max_tokens < MIN_MAX_TOKENS:
        raise InvalidInput(f"max_tokens must be at least {MIN_MAX_TOKENS} (got {max_tokens})")
    include_ids = {i.strip().lower() for i in include if i and i.strip()}
    groups = index.eligible(paths)
    rules = index.rules
    total = sum(len(g.members) for g in groups.values())
    reply = RulesReply(
        project=project, sections=sections, eligible_count=total, task_given=bool(task), max_tokens=max_tokens
    )

    def is_eligible(rule_id: str) -> bool:
        rule = rules.get(rule_id)
        return rule is not None and rule.scope in groups

    scores: dict = {}
    hybrid = embedder is not None and bool(task) and total > SHORT_LIST
    if task:
        among = None if total == len(rules) else {rid for g in groups.values() for _, rid in g.members}
        terms = tokenizer.tokens(task)
        if hybrid and embedder is not None:
            reply.mode = HYBRID
            scores = _hybrid_scores(
                index, embedder, task, terms, paths, groups, among, already_sent, listed_before
            )
        else:
            scores = index.rank.scores(terms, among=among)

    def order(rule_id: str) -> tuple:
        rule = rules[rule_id]
        spec = groups[rule.scope].coverage.specificity
        return (not rule.always, -scores.get(rule_id, 0.0), -spec[0], -spec[1], rule.created_at, rule_id)

    if not task or total <= SHORT_LIST:
        chosen = [rid for g in groups.values() for _, rid in g.members]
    elif hybrid:
        forced = {rid for rid in index.always | include_ids if is_eligible(rid)}
        chosen = _fill_share(scores, forced, rules, groups, total, order)
    else:
        floor = max(scores.values(), default=0.0) * RELATIVE_CUT
        picked = {rid for rid, score in scores.items() if score > 0 and score >= floor}
        picked |= {rid for rid in index.always | include_ids if is_eligible(rid)}
        chosen = list(picked)
    chosen.sort(key=order)
    chosen_set = set(chosen)

    fresh = [rid for rid in chosen if refresh or rid not in already_sent or rid in include_ids]
    reply.repeated = len(chosen) - len(fresh)
    _serve(reply, fresh, rules, groups, scores, max_tokens)

    # left out = eligible, not chosen now, and not already in the agent's hands this session
    have = set() if refresh else {rid for rid in already_sent if rid not in chosen_set and is_eligible(rid)}
    reply.left_out_total = total - len(chosen) - len(have)
    reply.left_out_listed_before = sum(
        1 for rid in listed_before if rid not in chosen_set and rid not in have and is_eligible(rid)
    )
    skip = chosen_set | have | set(listed_before)
    left_out = _left_out_in_order(groups, scores, skip, order, MAX_LISTED, every_score=hybrid)
    reply.left_out = [rules[rid] for rid in left_out]
    return reply


def _serve(
    reply: RulesReply,
    fresh: list[str],
    rules: dict[str, Rule],
    groups: dict,
    scores: dict,
    max_tokens: int | None,
) -> None:
    """Add rules in order until one does not fit the token cap (no cap: all of them)."""
    budget = None if max_tokens is None else max_tokens - estimate_tokens(reply.header()) - 1
    for position, rule_id in enumerate(fresh):
        rule = rules[rule_id]
        item = Served(rule, groups[rule.scope].coverage, scores.get(rule_id, 0.0))
        if budget is not None:
            cost = estimate_tokens(item.line) + 1
            if cost > budget:
                reply.capped = len(fresh) - position
                return
            budget -= cost
        reply.served.append(item)


def _left_out_in_order(
    groups: dict, scores: dict, skip: set[str], order, listed: int, *, every_score: bool = False
) -> list[str]:
    """The first `listed` left-out rules in reply order, without sorting all of them.

    Left-out rules with a score come first (in `spec` there are few); the rest share score 0, so
    their order is specificity, then age: merge the scope groups, already sorted oldest first.
    `every_score` (hybrid): every ranked rule counts as scored, below zero too (fused scores are
    z-scores), so the titles follow the ranking before any unranked rule.
    """

    def ranked(rid: str) -> bool:
        return rid in scores if every_score else scores.get(rid, 0.0) > 0

    picked = heapq.nsmallest(listed, (rid for rid in scores if ranked(rid) and rid not in skip), key=order)
    if len(picked) < listed:
        by_spec: dict[tuple[int, int], list] = {}
        for group in groups.values():
            by_spec.setdefault(group.coverage.specificity, []).append(group.members)
        taken = set(picked)
        for spec in sorted(by_spec, reverse=True):
            for _, rule_id in heapq.merge(*by_spec[spec]):
                if rule_id in skip or rule_id in taken or ranked(rule_id):
                    continue
                picked.append(rule_id)
                if len(picked) == listed:
                    return picked
    return picked
