"""The in-memory index of a project's active rules, kept in step with the store incrementally.

Choosing rules must take well under a millisecond, so each process keeps the active rules of a
project, grouped by scope, with two BM25 indexes (one for ranking a task, one for search, which
also knows scope words) and, for hybrid selection, the rules' vectors (`meaning.py`, which reads
them back from the store when an earlier process made them). On each use it asks the store only
for what changed since its version.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from lore.core.bm25 import BM25Index
from lore.core.text import Tokenizer
from lore.rules.gate.validation import hidden_character
from lore.rules.models import Rule
from lore.rules.scopes import Coverage, coverage, scope_words
from lore.rules.serve.meaning import RuleMeaning
from lore.rules.store.rules import RulesStore


def rank_terms(rule: Rule, tokenizer: Tokenizer) -> list[str]:
    """What a task is matched against: title, text, and the triggers counted twice."""
    triggers = tokenizer.tokens(" ".join(rule.triggers))
    return tokenizer.tokens(f"{rule.title}\n{rule.text}") + triggers + triggers


@dataclass(frozen=True)
class ScopeGroup:
    """Eligible rules that share one scope: one coverage, ids oldest first."""

    coverage: Coverage
    members: list[tuple[float, str]]  # the index's own list: read it under the index lock


class ProjectIndex:
    def __init__(self, project_id: int, tokenizer: Tokenizer, store: RulesStore | None = None):
        self.project_id = project_id
        self.tokenizer = tokenizer
        self.version = 0
        self.rules: dict[str, Rule] = {}
        self.rank = BM25Index()
        self.search = BM25Index()
        # rules grouped by scope, each group kept sorted oldest first as (created_at, id)
        self._scopes: dict[tuple[str, ...], list[tuple[float, str]]] = {}
        self.always: set[str] = set()
        self.meaning = RuleMeaning(store)  # vectors for hybrid selection, made on first use
        self.lock = threading.Lock()

    def apply(self, changed: Iterable[Rule], removed: Iterable[str]) -> None:
        for rule_id in removed:
            self._drop(rule_id)
        for rule in changed:
            self._drop(rule.id)
            if rule.status == "active" and hidden_character(rule.text) is None:
                self._put(rule)

    def _put(self, rule: Rule) -> None:
        self.rules[rule.id] = rule
        bisect.insort(self._scopes.setdefault(rule.scope, []), (rule.created_at, rule.id))
        if rule.always:
            self.always.add(rule.id)
        terms = rank_terms(rule, self.tokenizer)
        self.rank.add(rule.id, terms)
        self.search.add(rule.id, terms + self.tokenizer.tokens(scope_words(rule.scope)))
        self.meaning.put(rule)

    def _drop(self, rule_id: str) -> None:
        rule = self.rules.pop(rule_id, None)
        if rule is None:
            return
        self.always.discard(rule_id)
        group = self._scopes.get(rule.scope)
        if group is not None:
            at = bisect.bisect_left(group, (rule.created_at, rule.id))
            if at < len(group) and group[at][1] == rule_id:
                del group[at]
            if not group:
                del self._scopes[rule.scope]
        self.rank.remove(rule_id)
        self.search.remove(rule_id)
        self.meaning.drop(rule_id)

    def eligible(self, paths: list[str]) -> dict[tuple[str, ...], ScopeGroup]:
        """Groups of active rules whose scope covers at least one path, by scope.

        Without paths only global rules apply. Coverage is computed once per distinct scope,
        so the cost grows with the number of scopes, not of rules.
        """
        out: dict[tuple[str, ...], ScopeGroup] = {}
        for scope, members in self._scopes.items():
            found = coverage(scope, paths) if (paths or not scope) else None
            if found is not None:
                out[scope] = ScopeGroup(found, members)
        return out


_indexes: dict[tuple[str, int, str], ProjectIndex] = {}
_indexes_lock = threading.Lock()


def project_index(store: RulesStore, project_id: int, tokenizer: Tokenizer) -> ProjectIndex:
    """The process's index for a project, caught up with the store."""
    key = (store.key, project_id, tokenizer.fingerprint)
    with _indexes_lock:
        index = _indexes.get(key)
        if index is None:
            index = _indexes[key] = ProjectIndex(project_id, tokenizer, store)
    with index.lock:
        # the caller's store object, not the one the index was made with: a store reopened since
        # (read-only now, or found damaged) must decide whether the vectors may be written
        index.meaning.vault = store
        version, changed, removed = store.changes_since(project_id, index.version)
        if version != index.version:
            index.apply(changed, removed)
            index.version = version
    return index


def forget_indexes() -> None:
    """Drop every in-memory index, as a new process starts (tests and benchmarks use it)."""
    with _indexes_lock:
        _indexes.clear()
