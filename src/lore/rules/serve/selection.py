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
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat
from typing import TYPE_CHECKING

from lore.core.errors import InvalidInput
from lore.core.globs import is_glob
from lore.core.text import Tokenizer, estimate_tokens
from lore.rules.models import Rule
from lore.rules.scopes import Coverage
from lore.rules.serve.index import ProjectIndex
from lore.rules.serve.meaning import RuleMeaning, Similarities, task_text

if TYPE_CHECKING:  # the embedder package pulls in the model layer: loaded on first use
    import numpy as np

    from lore.core.embed.base import Embedder

SPEC, HYBRID = "spec", "hybrid"
MODES = (SPEC, HYBRID)
SHORT_LIST = 10
RELATIVE_CUT = 0.30
# hybrid: the fused score is the task's cosine to a rule (as a z-score among the eligible rules)
# plus BM25_WEIGHT times its BM25 share of the best, plus NAMED_FILE_LIFT for a rule whose scope
# names a changed file (about the log-odds of such a rule being needed on the labelled set's dev
# half: 38% against 7% for any eligible rule), plus WORD_WEIGHT times the word-by-word match;
# rules are sent best first until they fill SEND_SHARE of the send-all tokens (at least MIN_SENT);
# the titles of the other eligible rules follow, likeliest first, as in `spec` (up to MAX_LISTED)
BM25_WEIGHT = 0.25
FEEDBACK = 3  # the task's vector is moved towards its 3 nearest eligible rules
NAMED_FILE_LIFT = 2.0
WORD_WEIGHT = 1.0
SEND_SHARE = 0.22
MIN_SENT = 2
MAX_SENT = 25
FUSED_KEPT = 60  # the best fused rules ranked further (plus those this session already has)
MAX_TASK_CHARS = 500
MAX_LISTED = 25
MIN_MAX_TOKENS = 100
DECISIONS_HEADER = (
    "Decisions in force for these files (from the project's history, each quoted from its source):"
)


@dataclass
class Served:
    rule: Rule
    coverage: Coverage
    score: float

    @property
    def line(self) -> str:
        text = " ".join(self.rule.text.split())
        return f"- [{self.coverage.level}] {text}"


@dataclass
class RulesReply:
    """Everything a get_rules reply says; `render()` gives the text an agent reads."""

    project: str
    sections: list[str]
    served: list[Served] = field(default_factory=list)
    eligible_count: int = 0
    task_given: bool = True
    repeated: int = 0
    capped: int = 0
    left_out: list[Rule] = field(default_factory=list)  # listed now: at most MAX_LISTED
    left_out_total: int = 0
    left_out_listed_before: int = 0
    show_repeated: bool = True  # the count of repeats is said once per session
    notes: list[str] = field(default_factory=list)
    max_tokens: int | None = None
    mode: str = SPEC  # how the task was ranked: `spec` or `hybrid`
    decisions: list[str] = field(default_factory=list)  # lines: decisions in force for the files

    @property
    def served_ids(self) -> list[str]:
        return [s.rule.id for s in self.served]

    def header(self) -> str:
        where = f"; sections: {', '.join(self.sections)}" if self.sections else ""
        return f"Rules for project `{self.project}` (follow before writing code{where})"

    def render(self) -> str:
        lines: list[str] = []
        if self.served:
            lines.append(self.header())
            lines += [s.line for s in self.served]
        elif self.eligible_count == 0:
            lines.append(f"No rules of project `{self.project}` cover these files.")
        else:
            lines.append(f"No new rules for project `{self.project}` for this change.")
        if self.decisions:
            lines.append(DECISIONS_HEADER)
            lines += self.decisions
        if self.capped:
            lines.append(
                f"{self.capped} more chosen rule(s) did not fit in max_tokens={self.max_tokens}; "
                "call get_rules again with a larger max_tokens to receive them."
            )
        if self.repeated and self.show_repeated:
            lines.append(
                f"{self.repeated} rule(s) for this change were already sent in this session and are "
                "not repeated; pass refresh=true if your context was reset."
            )
        if not self.task_given and self.served:
            lines.append(
                "No task was given, so every eligible rule is sent. Pass `task` (one sentence "
                "about the change) next time to receive only the rules it needs."
            )
        if self.left_out:
            earlier = (
                f" ({self.left_out_listed_before} of them listed earlier in this session)"
                if self.left_out_listed_before
                else ""
            )
            likeliest = " (likeliest first)" if self.mode == HYBRID else ""
            lines.append(
                f"{self.left_out_total} other rule(s) cover these files{earlier} "
                "but were not chosen for your task. If one of these titles matters for your change, "
                f"call get_rules again with its id in `include`; or use search_rules{likeliest}:"
            )
            lines += [f"- {r.id} {r.label}" for r in self.left_out]
            unlisted = self.left_out_total - self.left_out_listed_before - len(self.left_out)
            if unlisted > 0:
                lines.append(f"  ... and {unlisted} more (use search_rules)")
        elif self.left_out_listed_before:
            lines.append(
                f"{self.left_out_listed_before} other rule(s) cover these files but were not chosen; "
                "their titles were listed earlier in this session."
            )
        lines += self.notes
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "project": self.project,
            "sections": self.sections,
            "served": [
                {
                    "id": s.rule.id,
                    "level": s.coverage.level,
                    "text": s.rule.text,
                    "title": s.rule.title,
                    "always": s.rule.always,
                    "score": round(s.score, 4),
                }
                for s in self.served
            ],
            "eligible": self.eligible_count,
            "task_given": self.task_given,
            "mode": self.mode,
            "repeated": self.repeated,
            "capped": self.capped,
            "left_out": [{"id": r.id, "title": r.label} for r in self.left_out],
            "left_out_total": self.left_out_total,
            "notes": self.notes,
            "decisions": self.decisions,
            "text": self.render(),
        }


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


def _hybrid_scores(
    index: ProjectIndex,
    embedder: Embedder,
    task: str,
    terms: list[str],
    paths: list[str],
    groups: dict,
    among: set[str] | None,
    already_sent: set[str] | frozenset[str],
    listed_before: set[str] | frozenset[str],
) -> dict[str, float]:
    """The fused scores of the best candidates: meaning (with feedback), words, the named-file
    lift, then the word-by-word match among them.

    BM25 comes as one array in the matrix's row order (`BM25Index.scores_by_slot`): the same
    scores as the dict `spec` ranks with, without a dict of every rule sharing a word."""
    eligible = None if among is None else list(among)
    query = task_text(task, paths)
    sims = index.meaning.similarities(embedder, query, among=eligible, feedback=FEEDBACK)
    mask = sims.mask(eligible)
    if not mask.any():  # no vectors for these rules (not once caught up): words alone, as `fuse`
        lexical: dict = index.rank.scores(terms, among=among)
        return by_words(index.meaning, embedder, query, lexical)
    lift = {
        rid: NAMED_FILE_LIFT
        for scope in groups
        if names_a_file(scope, paths)
        for _, rid in groups[scope].members
    }
    keep = FUSED_KEPT + len(already_sent) + len(listed_before)
    bm25 = index.rank.scores_by_slot(terms, sims.row, len(sims.values))
    best = float(bm25[mask].max()) or 1.0
    fused = _fused_top(sims, mask, BM25_WEIGHT * bm25 / best, lift, keep)
    return by_words(index.meaning, embedder, query, fused)


def names_a_file(scope: tuple[str, ...], paths: list[str]) -> bool:
    """Whether the scope names one of the paths itself (not through a folder or a wildcard)."""
    return any(not e.endswith("/") and not is_glob(e) and e in paths for e in scope)


def by_words(
    meaning: RuleMeaning, embedder: Embedder, query: str, scores: dict[str, float]
) -> dict[str, float]:
    """The candidates' scores plus their word-by-word match as a z-score among them (unchanged
    when the model has no cheap word vectors)."""
    ids = list(scores)
    match = meaning.word_match(embedder, query, ids)
    if match is None or len(ids) < 2:
        return scores
    z = (match - float(match.mean())) / (float(match.std()) or 1.0)
    return {rid: scores[rid] + WORD_WEIGHT * float(z[n]) for n, rid in enumerate(ids)}


def fuse(
    lexical: dict,
    sims: Similarities,
    among: list[str] | None,
    keep: int,
    weight: float = BM25_WEIGHT,
    lift: dict[str, float] | None = None,
) -> dict[str, float]:
    """The `keep` best eligible rules by one score: cosine as a z-score among them, plus BM25 share
    (and any `lift` a rule is given).

    Cosines of one model sit in a narrow band that moves with the task, so the spread among the
    eligible rules, not the raw value, says which stand out; BM25 is scaled by its best. Only the
    best are kept: the rest are never sent or listed, and ordering thousands would cost more than
    choosing. `among` None means every rule is eligible.

    The BM25 share and the lifts are added as arrays, not rule by rule: a task's words reach
    thousands of rules of a large project, and adding them one numpy scalar at a time was a
    quarter of a selection at 10,000 rules. Each sum is the float32 one it was (the share is
    computed in double precision, rounded to float32, then added), so the scores are the same."""
    import numpy as np  # only a hybrid selection or a search by meaning gets here: spec never does

    mask = sims.mask(among)
    if not mask.any():
        return lexical
    best = max(lexical.values(), default=0.0) or 1.0
    share = np.zeros(len(sims.values), dtype=np.float64)
    rows, values = _rows_and_values(sims.row, lexical)
    share[rows] = weight * values / best
    return _fused_top(sims, mask, share, lift or {}, keep)


def _fused_top(
    sims: Similarities, mask: np.ndarray, share: np.ndarray, lift: dict[str, float], keep: int
) -> dict[str, float]:
    """`fuse` once the BM25 share of every row is known (0.0 where a rule shares no word: adding
    it changes nothing)."""
    import numpy as np

    eligible = sims.values[mask]
    fused = (sims.values - float(eligible.mean())) / (float(eligible.std()) or 1.0)
    fused += share.astype(fused.dtype)
    rows, values = _rows_and_values(sims.row, lift)
    fused[rows] += values.astype(fused.dtype)
    fused[~mask] = -np.inf
    top = np.argpartition(-fused, keep)[:keep] if keep < len(fused) else np.arange(len(fused))
    return {sims.ids[n]: float(fused[n]) for n in top if mask[n]}


def _rows_and_values(row: dict[str, int], by_rule: dict) -> tuple[np.ndarray, np.ndarray]:
    """The matrix rows of the rules in `by_rule` that have one, and their values (float64)."""
    import numpy as np

    found = np.fromiter(map(row.get, by_rule, repeat(-1)), dtype=np.int64, count=len(by_rule))
    values = np.fromiter(by_rule.values(), dtype=np.float64, count=len(by_rule))
    kept = found >= 0
    return found[kept], values[kept]


def _fill_share(
    scores: dict, forced: set[str], rules: dict[str, Rule], groups: dict, eligible: int, order
) -> list[str]:
    """The best scored rules until SEND_SHARE of send-all's tokens are spent (send-all estimated
    from the mean size of the candidates), at least MIN_SENT and at most MAX_SENT of them; the
    forced rules (always, include) come on top, as in `spec`."""
    cost = {rid: estimate_tokens(rules[rid].text) + 4 for rid in scores}
    budget = SEND_SHARE * (sum(cost.values()) / len(cost) if cost else 0.0) * eligible
    picked: list[str] = []
    for rid in sorted((rid for rid in scores if rid not in forced), key=order):
        if len(picked) >= MIN_SENT and (cost[rid] > budget or len(picked) >= MAX_SENT):
            break
        picked.append(rid)
        budget -= cost[rid]
    return [*forced, *picked]


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
