"""`lore review lint`: what is wrong with a project's rules as a set.

- Dead scopes: a scope entry no file of the repository (`git ls-files`) falls under; a rule whose
  entries are all dead is never served.
- Duplicates: the same normalised text twice; near-duplicates: 80% of their words shared.
- Contradictions: rules with overlapping scopes that say opposite things ("tabs" against
  "spaces", "do" against "never", "max 80" against "max 120"). The screening gate's
  `contradicts` decides, so lint reports exactly what the gate would hold back; a prefix filter
  that keeps every pair it could flag spares comparing all n²/2 pairs.
- Untagged rules, which selection can only match on their text.
- The token cost of always-rules, sent on every request: a warning above about 1,000 tokens.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any

from lore.core import git
from lore.core.config import load_settings
from lore.core.text import Tokenizer, build_tokenizer
from lore.core.tokens import estimate_tokens
from lore.rules import service
from lore.rules.gate.contradiction import contradicts
from lore.rules.intake.candidates import normalize_text
from lore.rules.models import Project, Rule
from lore.rules.scopes import entry_coverage, scopes_overlap

ALWAYS_BUDGET = 1000
NEAR_DUPLICATE = 0.8
PREFIX_SIMILARITY = 0.5  # pairs below this share of terms are not compared (the gate asks 0.65)
SHORT = 2  # rules of at most this many terms are all compared with each other
BLOCK = 1300  # rules compared a block at a time: two blocks fit the gate's cache of 4,096 analyses


@dataclass
class Finding:
    kind: str  # dead_scope, duplicate, near_duplicate, contradiction, untagged, always_cost
    severity: str  # warning or info
    message: str
    rule_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "message": self.message, "rules": self.rule_ids}


@dataclass
class LintReport:
    project: Project
    rules: int
    always_tokens: int
    findings: list[Finding]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project.name,
            "rules": self.rules,
            "always_tokens": self.always_tokens,
            "always_budget": ALWAYS_BUDGET,
            "findings": [f.to_dict() for f in self.findings],
        }


def lint_rules(project: Project, include_pending: bool = False) -> LintReport:
    rules = service.list_rules(project, status=None if include_pending else "active")
    findings: list[Finding] = []
    findings += dead_scopes(rules, git.ls_files(project.path))
    findings += duplicates(rules)
    findings += contradictions(rules)
    untagged = [r for r in rules if not r.tagged]
    if untagged:
        findings.append(
            Finding(
                "untagged",
                "info",
                f"{len(untagged)} rule(s) were never tagged (trigger words, always), so selection matches "
                "them on their words alone; ask the agent to run organize_rules and tag_rules, or tag them "
                "in the web UI",
                [r.id for r in untagged],
            )
        )
    always = [r for r in rules if r.always and r.status == "active"]
    cost = sum(estimate_tokens(f"{r.title}\n{r.text}") for r in always)
    if cost > ALWAYS_BUDGET:
        findings.append(
            Finding(
                "always_cost",
                "warning",
                f"{len(always)} always-rule(s) cost about {cost} tokens on every request (over {ALWAYS_BUDGET}); "
                "unpin the ones that only matter for some changes (`lore review unpin ID`)",
                [r.id for r in sorted(always, key=lambda r: -len(r.text))],
            )
        )
    return LintReport(project, len(rules), cost, findings)


def dead_scopes(rules: list[Rule], files: list[str]) -> list[Finding]:
    """Scope entries no file of the project matches (files from `core.git.ls_files`)."""
    out: list[Finding] = []
    live: dict[str, bool] = {}
    for rule in rules:
        dead = []
        for entry in rule.scope:
            if entry not in live:
                live[entry] = any(entry_coverage(entry, path) for path in files)
            if not live[entry]:
                dead.append(entry)
        if not dead:
            continue
        never = len(dead) == len(rule.scope)
        out.append(
            Finding(
                "dead_scope",
                "warning",
                f"{rule.id} {rule.label!r}: scope {', '.join(dead)} matches no file in the repository"
                + ("; this rule is never served" if never else ""),
                [rule.id],
            )
        )
    return out


def _tokens() -> Callable[[str], frozenset[str]]:
    tok = build_tokenizer(load_settings().tokenizer)
    return lambda text: frozenset(tok.tokens(text, topics=False))


def _pairs(
    rules: list[Rule], words: dict[str, frozenset[str]], minimum: float
) -> list[tuple[Rule, Rule, float]]:
    """Rule pairs sharing at least `minimum` of their words, found through shared rare words."""
    postings: dict[str, list[int]] = defaultdict(list)
    for i, rule in enumerate(rules):
        for word in words[rule.id]:
            postings[word].append(i)
    common = max(50, len(rules) // 10)
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for ids in postings.values():
        if len(ids) > common:
            continue
        for a, b in combinations(ids, 2):
            shared[(a, b)] += 1
    out = []
    for (a, b), count in shared.items():
        wa, wb = words[rules[a].id], words[rules[b].id]
        score = count / len(wa | wb) if wa | wb else 0.0
        if score >= minimum:
            out.append((rules[a], rules[b], score))
    return sorted(out, key=lambda t: (-t[2], t[0].id, t[1].id))


def duplicates(rules: list[Rule]) -> list[Finding]:
    out: list[Finding] = []
    by_text: dict[str, list[Rule]] = defaultdict(list)
    for rule in rules:
        by_text[normalize_text(rule.text)].append(rule)
    exact = {r.id for group in by_text.values() if len(group) > 1 for r in group}
    for group in by_text.values():
        if len(group) > 1:
            out.append(
                Finding(
                    "duplicate",
                    "warning",
                    f"same text in {', '.join(r.id for r in group)}: {group[0].label!r}; reject all but one",
                    [r.id for r in group],
                )
            )
    tokens = _tokens()
    words = {r.id: tokens(f"{r.title} {r.text}") for r in rules}
    for a, b, score in _pairs(rules, words, NEAR_DUPLICATE):
        if a.id in exact and b.id in exact:
            continue
        if not _scopes_overlap(a, b) or contradiction(a.text, b.text):
            continue
        out.append(
            Finding(
                "near_duplicate",
                "warning",
                f"{a.id} and {b.id} share {score:.0%} of their words: {a.label!r} / {b.label!r}; keep one",
                [a.id, b.id],
            )
        )
    return out


def contradictions(rules: list[Rule]) -> list[Finding]:
    """Pairs of rules in overlapping scopes that the screening gate's `contradicts` says clash."""
    found: list[tuple[int, int, str]] = []
    for i, j in _related_pairs(rules):
        reason = contradicts(rules[i].text, rules[j].text)
        if reason:
            found.append((min(i, j), max(i, j), reason))
    out: list[Finding] = []
    for i, j, reason in sorted(found):
        a, b = rules[i], rules[j]
        out.append(
            Finding(
                "contradiction",
                "warning",
                f"{a.id} and {b.id} contradict each other ({reason}): {a.label!r} / "
                f"{b.label!r}; reject or edit one",
                [a.id, b.id],
            )
        )
    return out


def _related_pairs(rules: list[Rule]) -> Iterator[tuple[int, int]]:
    """Each pair of rules (as indexes) in overlapping scopes that may be about the same thing,
    once, in an order that lets the gate's cache of text analyses work.

    `contradicts` only fires on two texts about the same thing: most of their terms shared (the
    gate asks 0.65 of them), a short rule contained in a longer one, or two bare choices ("Use
    tabs." against "Use spaces.") that share no term at all. Comparing every pair costs n²/2
    calls, so the pairs are found through a prefix filter instead: with each rule's terms ordered
    rarest first, two sets sharing at least PREFIX_SIMILARITY of their union share one of each
    set's first `n - ceil(t * n) + 1` terms, so probing only those finds every such pair (and a
    set contained in another finds it through its rarest term). Rules of at most three terms probe
    all of theirs, and rules of at most SHORT terms (bare choices) are paired with each other.

    Each pair comes once, block by block: BLOCK rules with one later block at a time."""
    terms = [_terms(r.text) for r in rules]
    postings: dict[str, list[int]] = defaultdict(list)
    for i, found in enumerate(terms):
        for term in found:
            postings[term].append(i)
    probes: list[frozenset[str]] = []
    for found in terms:
        ordered = sorted(found, key=lambda term: (len(postings[term]), term))
        size = len(ordered)
        probes.append(
            frozenset(ordered[: size if size <= 3 else size - math.ceil(PREFIX_SIMILARITY * size) + 1])
        )
    probed_by: dict[str, list[int]] = defaultdict(list)
    for i, probe in enumerate(probes):
        for term in probe:
            probed_by[term].append(i)
    short = [i for i, found in enumerate(terms) if len(found) <= SHORT]
    overlap: dict[tuple[tuple[str, ...], tuple[str, ...]], bool] = {}

    def overlapping(i: int, j: int) -> bool:
        scopes = (rules[i].scope, rules[j].scope)
        if scopes not in overlap:
            overlap[scopes] = _scopes_overlap(rules[i], rules[j])
        return overlap[scopes]

    for start in range(0, len(rules), BLOCK):
        by_block: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for i in range(start, min(start + BLOCK, len(rules))):
            partners = {j for term in probes[i] for j in postings[term]}  # the rules i finds
            partners.update(j for term in terms[i] for j in probed_by[term])  # and those finding i
            if len(terms[i]) <= SHORT:
                partners.update(short)
            for j in partners:
                if j > i and overlapping(i, j):
                    by_block[j // BLOCK].append((i, j))
        for block in sorted(by_block):
            yield from by_block[block]


def contradiction(a: str, b: str) -> str | None:
    """Why two rule texts say opposite things, or None (the screening gate's check)."""
    return contradicts(a, b)


@lru_cache(maxsize=1)
def _tokenizer() -> Tokenizer:
    return build_tokenizer()  # the gate's: its similarity is measured on these terms


def _terms(text: str) -> frozenset[str]:
    """Content terms, cut to six letters so that indent and indentation meet (as the gate does)."""
    return frozenset(
        t[:6] for t in _tokenizer().tokens(text, topics=False) if len(t) > 1 and not t[:1].isdigit()
    )


def _scopes_overlap(a: Rule, b: Rule) -> bool:
    """Whether some file could fall under both rules: the gate's test (`scopes_overlap`)."""
    return scopes_overlap(a.scope, b.scope)
