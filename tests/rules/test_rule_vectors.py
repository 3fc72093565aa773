"""The rules' vectors outlive the process: kept in the rules store by rule, model and the text they
were made from, read back by the next process, made again when the rule or the model changes.

Real store, real repository, the real WordLlama model (the ONNX MiniLM for the model switch), and
for the cross-process case the real CLI in a child process.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import make_repo
from lore.core.config import update_settings
from lore.core.embed.onnx_minilm import onnx_installed
from lore.rules import service
from lore.rules.models import Project
from lore.rules.serve.index import forget_indexes, project_index
from lore.rules.serve.meaning import RuleMeaning, rule_text, semantic_embedder, vector_key
from lore.rules.store.rules import rules_store
from support.ledger_rules import EVERYDAY_RULES, register_ledger

FILES = {"src/api/charges.py": "x", "src/db/models.py": "x"}
RULES = [
    ("Idempotency keys", "Endpoints that create a payment accept an Idempotency-Key header."),
    ("Expand, then contract", "Add a new table field as nullable, backfill it, then make it required."),
    *EVERYDAY_RULES,
]
TASK = "the client sends the same purchase twice"
WORDLLAMA = "wordllama-l2_supercat-256"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = register_ledger(make_repo(tmp_path / "ledger", FILES), RULES)
    yield project
    forget_indexes()


def meaning(project: Project) -> RuleMeaning:
    return project_index(rules_store(), project.id, service.tokenizer()).meaning


def resolve(project: Project):
    return service.rules_for_change(project, ["src/api/charges.py"], task=TASK, mode="hybrid")


def stored(project: Project, model: str = WORDLLAMA) -> dict[str, tuple[int, bytes]]:
    index = project_index(rules_store(), project.id, service.tokenizer())
    keys = {rid: vector_key(rule_text(rule)) for rid, rule in index.rules.items()}
    return rules_store().rule_vectors(model, keys)


def test_a_new_process_reads_the_vectors_back_instead_of_embedding(project: Project) -> None:
    first = resolve(project)
    assert meaning(project).embedded == len(RULES)
    assert len(stored(project)) == len(RULES)
    forget_indexes()  # what a new process starts with
    second = resolve(project)
    assert meaning(project).embedded == 0  # every vector came from the store
    assert second.served_ids == first.served_ids


def test_an_edited_rule_is_embedded_again_and_only_it(project: Project) -> None:
    resolve(project)
    rule = next(r for r in service.list_rules(project) if r.title == "Docstrings")
    service.edit(rule, text="Public functions carry a docstring that says why they exist.")
    forget_indexes()
    resolve(project)
    assert meaning(project).embedded == 1
    assert len(stored(project)) == len(RULES)  # the edited rule's vector replaced its old one


def test_a_removed_rule_leaves_no_vector(project: Project) -> None:
    resolve(project)
    rule = next(r for r in service.list_rules(project) if r.title == "Docstrings")
    service.reject(rule)
    assert rule.id not in rules_store().rule_vectors(WORDLLAMA, {rule.id: vector_key(rule_text(rule))})


@pytest.mark.skipif(not onnx_installed() and not os.environ.get("LORE_CI"), reason="needs the onnx extra")
def test_another_model_never_reads_the_first_models_vectors(project: Project) -> None:
    resolve(project)
    update_settings({"rules": {"embed": "minilm-onnx"}})
    forget_indexes()
    reply = resolve(project)
    assert meaning(project).embedded == len(RULES)  # nothing of WordLlama's was reused
    onnx = semantic_embedder("minilm-onnx").name
    assert {dim for dim, _ in stored(project, onnx).values()} == {384}
    assert {dim for dim, _ in stored(project).values()} == {256}  # both kept, apart
    assert "Idempotency keys" in [s.rule.title for s in reply.served]


def test_a_busy_store_still_answers_and_just_keeps_nothing(project: Project, lore_home: Path) -> None:
    """Another process holding the write lock (a long book import) must not hold up get_rules:
    the vectors are not kept this time, and the reply comes anyway."""
    other = sqlite3.connect(lore_home / "lore.db", timeout=0)
    other.execute("BEGIN IMMEDIATE")
    try:
        reply = resolve(project)
    finally:
        other.rollback()
        other.close()
    assert "Idempotency keys" in [s.rule.title for s in reply.served]
    assert stored(project) == {}
    forget_indexes()
    resolve(project)
    assert len(stored(project)) == len(RULES)  # kept by the next call that could write


def test_the_cli_in_a_new_process_ranks_with_the_stored_vectors(project: Project) -> None:
    """A stored vector is what the next `lore review resolve` ranks with: plant another text's
    vector for the best rule and a new process scores it differently; edit the rule and put the
    text back, and the process embeds it afresh (the planted vector's text is gone), scoring it
    exactly as before."""

    def scores() -> dict[str, float]:
        result = subprocess.run(
            [sys.executable, "-m", "lore.cli.entry", "review", "--name", project.name, "resolve",
             "src/api/charges.py", "--task", TASK, "--mode", "hybrid", "--json"],
            capture_output=True, text=True, timeout=120, cwd=project.path,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        return {item["title"]: item["score"] for item in json.loads(result.stdout)["served"]}

    before = scores()
    rule = next(r for r in service.list_rules(project) if r.title == "Idempotency keys")
    assert "Idempotency keys" in before
    elsewhere = semantic_embedder().embed(["Wrap documentation lines at one hundred characters."])[0]
    rules_store().save_rule_vectors(
        WORDLLAMA, [(rule.id, vector_key(rule_text(rule)), 256, elsewhere.astype(np.float32).tobytes())]
    )
    planted = scores()
    assert planted.get("Idempotency keys") != before["Idempotency keys"]
    edited = service.edit(rule, text=rule.text + " Keys expire after a day.")
    scores()  # embeds the edited text, which replaces the planted row
    service.edit(edited, text=rule.text)
    assert scores() == before


def test_a_store_from_before_the_vectors_table_gets_it_and_keeps_its_rules() -> None:
    from lore.core.store.open import open_store
    from lore.rules.store.rules import MIGRATIONS

    store = open_store()
    store.migrate(MIGRATIONS[:4])  # a store from before rules/0005_rule_vectors
    with store.transaction() as tx:
        tx.execute("INSERT INTO projects (name, path, created_at) VALUES ('old', '/srv/old', 0)")
        tx.execute(
            "INSERT INTO rules (id, project_id, text, status, source, created_at, updated_at)"
            " VALUES ('00000001', 1, 'Prefer pathlib', 'active', 'user', 0, 0)"
        )
    assert "rules/0005_rule_vectors" not in store.applied_migrations()
    rules = rules_store()  # applies 0005
    assert "rules/0005_rule_vectors" in store.applied_migrations()
    assert [r.text for r in rules.rules(1)] == ["Prefer pathlib"]
    rules.save_rule_vectors(WORDLLAMA, [("00000001", "k", 2, np.ones(2, dtype=np.float32).tobytes())])
    assert rules.rule_vectors(WORDLLAMA, {"00000001": "k"}) == {
        "00000001": (2, np.ones(2, np.float32).tobytes())
    }
    assert rules.rule_vectors(WORDLLAMA, {"00000001": "other text"}) == {}
