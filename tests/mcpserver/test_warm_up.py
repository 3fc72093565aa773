"""What `lore mcp` loads beside the handshake (`AgentSession.warm_up`, run in a background thread
by `run_stdio`): the semantic model and the started project's rules and their vectors, so the
first get_rules does not pay for them; and nothing an agent did not ask for (no registration, no
session, nothing counted as sent).

Real store, real repositories, the real WordLlama model."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import make_repo
from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.models import Project
from lore.rules.serve.index import forget_indexes, project_index
from lore.rules.serve.meaning import RuleMeaning
from lore.rules.store.rules import rules_store
from support.ledger_rules import EVERYDAY_RULES, PAYMENT_RULES, register_ledger

FILES = {"src/api/charges.py": "x", "src/db/models.py": "x"}
RULES = [*PAYMENT_RULES, *EVERYDAY_RULES]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    forget_indexes()  # a fresh process: no index, no vectors in memory
    project = register_ledger(make_repo(tmp_path / "ledger", FILES), RULES)
    yield project
    forget_indexes()


def meaning(project: Project) -> RuleMeaning:
    return project_index(rules_store(), project.id, service.tokenizer()).meaning


def test_warm_up_makes_the_started_projects_vectors_so_the_first_call_embeds_nothing(
    project: Project,
) -> None:
    session = AgentSession(project.path)
    session.warm_up()
    assert meaning(project).embedded == len(RULES)  # made by the warm-up, before any call
    assert session._id is None  # no session was started: nothing recorded
    assert all(service.get_rule(r.id).served_count == 0 for r in service.list_rules(project))
    text = session.get_rules(["src/api/charges.py"], task="the client sends the same purchase twice")
    assert "Idempotency-Key header" in text
    assert meaning(project).embedded == len(RULES)  # the call found every vector in place


def test_warm_up_in_an_unregistered_repository_registers_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "fresh", {"a.py": "x"})
    AgentSession(repo).warm_up()
    assert rules_store().project_by_path(repo.resolve()) is None
    AgentSession(tmp_path).warm_up()  # started outside any repository: the model only
