"""The faster paths of `hybrid` selection give the numbers of the paths they replaced.

Speed work on selection (issue 11) changed how scores are computed, never what they are: BM25
as one array in matrix-row order, the BM25 share added as arrays in `fuse`, the words a
selection meets embedded in one batch. Each test here computes the same thing both ways on real
rules (the ledger rules and the shared rule files' text, a real store, the real WordLlama model)
and asks for equality to the last bit, not closeness.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import make_repo
from lore.core.bm25 import BM25Index
from lore.rules import service
from lore.rules.models import Project
from lore.rules.serve.hybrid import BM25_WEIGHT, fuse
from lore.rules.serve.index import project_index
from lore.rules.serve.meaning import RuleMeaning, semantic_embedder, task_text
from lore.rules.store.rules import rules_store
from support.ledger_rules import EVERYDAY_RULES, PAYMENT_RULES, register_ledger

TASKS = [
    "the client sends the same purchase twice",
    "add a column to the invoices table",
    "write a docstring for the public parser functions and remove the print statements",
    "rename the feature flag",
    "zzz nothing shares this",
]
FILES = {"src/api/charges.py": "x", "migrations/0003_vat.py": "x"}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return register_ledger(make_repo(tmp_path / "ledger", FILES), [*PAYMENT_RULES, *EVERYDAY_RULES])


def test_bm25_by_slot_is_the_dict_of_scores_laid_out_in_rows(project: Project) -> None:
    index = project_index(rules_store(), project.id, service.tokenizer())
    ids = sorted(index.rules)
    slot = {rid: n for n, rid in enumerate(ids[1:])}  # the first rule has no slot: it is skipped
    for task in TASKS:
        terms = index.tokenizer.tokens(task)
        by_dict = index.rank.scores(terms)
        dense = np.zeros(len(slot))
        for rid, value in by_dict.items():
            if rid in slot:
                dense[slot[rid]] = value
        assert np.array_equal(index.rank.scores_by_slot(terms, slot, len(slot)), dense), task
    assert not BM25Index().scores_by_slot(["x"], {}, 3).any()


def test_fuse_adds_the_bm25_share_as_the_rule_by_rule_sums_did(project: Project) -> None:
    """The float32 sum of each rule, written out one scalar at a time, is what `fuse` returns."""
    index = project_index(rules_store(), project.id, service.tokenizer())
    embedder = semantic_embedder()
    for task in TASKS:
        lexical = index.rank.scores(index.tokenizer.tokens(task))
        sims = index.meaning.similarities(embedder, task_text(task, ["src/api/charges.py"]), feedback=3)
        lift = {rid: 2.0 for rid in sorted(index.rules)[:3]}
        fused = fuse(lexical, sims, None, len(index.rules), lift=lift)
        by_hand = (sims.values - float(sims.values.mean())) / (float(sims.values.std()) or 1.0)
        best = max(lexical.values(), default=0.0) or 1.0
        for rid, value in lexical.items():
            by_hand[sims.row[rid]] += BM25_WEIGHT * value / best
        for rid, value in lift.items():
            by_hand[sims.row[rid]] += value
        assert fused == {rid: float(by_hand[sims.row[rid]]) for rid in index.rules}, task


def test_words_learnt_in_one_batch_match_words_learnt_rule_by_rule(project: Project) -> None:
    """One selection embeds every new word at once; the word match is what it was when each
    candidate's words were embedded on their own."""
    store = rules_store()
    rules = list(project_index(store, project.id, service.tokenizer()).rules.values())
    embedder = semantic_embedder()
    together, one_by_one = RuleMeaning(), RuleMeaning()
    for meaning in (together, one_by_one):
        for rule in rules:
            meaning.put(rule)
        meaning.similarities(embedder, "warm up")
    ids = [rule.id for rule in rules]
    for task in TASKS[:4]:
        for rid in ids:  # each candidate's words learnt by a call of its own
            one_by_one.word_match(embedder, task, [rid])
        at_once = together.word_match(embedder, task, ids)
        assert at_once is not None and np.array_equal(at_once, one_by_one.word_match(embedder, task, ids))
