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

pytestmark = pytest.mark.skipif(
    not onnx_installed() and not os.environ.get("LORE_CI"),
    reason="the onnx extra is not installed here; CI fails instead",
)

FILES = {"src/api/charges.py": "x", "migrations/0003_vat.py": "x", "src/db/models.py": "x"}
RULES = [
    ("Idempotency keys on money movement",
     "Endpoints that create a payment accept an Idempotency-Key header and answer a repeated key "
     "with the stored response instead of acting again."),
    ("Expand, then contract",
     "Schema changes ship in two steps: add the new table field as nullable, backfill it, and only "
     "then make it required in a later release."),
    ("Commit messages", "Write commit subjects in the imperative mood, under seventy characters."),
    ("Docstrings", "Public functions carry a docstring that says why, not what."),
    ("No print", "Use the structured logger; print statements are not allowed."),
    ("Small functions", "Keep functions under forty lines; extract helpers with clear names."),
    ("Readable names", "Name booleans as questions such as is_ready or has_items."),
    ("Early returns", "Return early instead of nesting conditionals deeply."),
    ("Composition", "Prefer composition over inheritance for sharing behaviour."),
    ("Pure core", "Keep business logic in pure functions with no input or output."),
    ("Feature flags", "Remove a feature flag within two releases of turning it on everywhere."),
    ("Markdown style", "Wrap documentation lines at one hundred characters."),
]  # fmt: skip
TASK = "the client sends the same purchase twice"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project, _ = service.register_project(make_repo(tmp_path / "ledger", FILES))
    for title, text in RULES:
        service.add_rule(project, text, title=title)
    return project


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
