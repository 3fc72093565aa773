"""`hybrid` selection with `rules.embed = minilm-onnx`: the same service, ranked by the ONNX MiniLM
model (real store, real repository, the real packaged model), and a model change never mixes
the vectors of two models in one project's matrix."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import make_repo
from lore.core.config import update_settings
from lore.core.embed.onnx_minilm import onnx_installed
from lore.rules import service
from lore.rules.models import Project
from lore.rules.serve.meaning import rules_embed_name, semantic_embedder
from support.ledger_rules import EVERYDAY_RULES, PAYMENT_RULES, register_ledger

pytestmark = pytest.mark.skipif(
    not onnx_installed() and not os.environ.get("LORE_CI"),
    reason="the onnx extra is not installed here; CI fails instead",
)

FILES = {"src/api/charges.py": "x", "migrations/0003_vat.py": "x", "src/db/models.py": "x"}
RULES = [*PAYMENT_RULES, *EVERYDAY_RULES]
TASK = "the client sends the same purchase twice"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return register_ledger(make_repo(tmp_path / "ledger", FILES), RULES)


def _titles(reply) -> list[str]:
    return [s.rule.title for s in reply.served]


def test_config_chooses_the_onnx_model_and_it_finds_the_rule(project: Project) -> None:
    assert rules_embed_name() == "wordllama"  # the default
    update_settings({"rules": {"embed": "minilm-onnx"}})
    assert rules_embed_name() == "minilm-onnx"
    assert semantic_embedder().name == "minilm-l6-v2-int8-onnx"
    reply = service.rules_for_change(project, ["src/api/charges.py"], task=TASK, mode="hybrid")
    assert reply.mode == "hybrid"
    assert "Idempotency keys on money movement" in _titles(reply)
    assert len(reply.served) < len(RULES) / 2  # a selection, not everything


def test_switching_models_reembeds_the_project_rules(project: Project) -> None:
    """The same process serves with WordLlama, then with MiniLM: the second reply must come from
    MiniLM's own vectors (384-d), never a WordLlama matrix (256-d) compared with a MiniLM query."""
    first = service.rules_for_change(project, ["migrations/0003_vat.py"], task="add a column", mode="hybrid")
    update_settings({"rules": {"embed": "minilm-onnx"}})
    second = service.rules_for_change(project, ["migrations/0003_vat.py"], task="add a column", mode="hybrid")
    assert "Expand, then contract" in _titles(first)
    assert "Expand, then contract" in _titles(second)
    from lore.rules.serve.index import project_index
    from lore.rules.store.rules import rules_store

    meaning = project_index(rules_store(), project.id, service.tokenizer()).meaning
    assert meaning._model == "minilm-l6-v2-int8-onnx" and meaning._matrix.shape == (len(RULES), 384)


def test_an_unknown_choice_warns_and_keeps_wordllama(capsys: pytest.CaptureFixture[str]) -> None:
    update_settings({"rules": {"embed": "ollama:nomic-embed-text"}})
    assert rules_embed_name() == "wordllama"
    assert "rules.embed" in capsys.readouterr().err
