"""get_rules also says the project decisions behind the files of a change: in force only, with
their verbatim source, once per session, inside max_tokens, and switchable in config.json.

A real repository, ingested, decisions extracted from its commits through the local model server,
then a real agent session asking for the rules of the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.serve.reply import DECISIONS_HEADER
from support.decisions import COMMITTER, decided_repo
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401
from support.history_repo import HistoryRepo

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


def _project(tmp_path: Path, fake_llm: FakeLLM):
    repo = decided_repo(tmp_path / "project", fake_llm)
    project, _ = service.register_project(repo.root)
    service.add_rule(project, "Tests use pytest fixtures, never setUp methods.", scope="tests")
    return project


def test_decisions_for_the_files_come_with_their_quote_once_per_session(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    project = _project(tmp_path, fake_llm)
    session = AgentSession(project.path)
    first = session.get_rules(["tests/test_app.py"], task="add a test for the app")
    assert DECISIONS_HEADER in first
    assert '- Move the test suite from nose to pytest ("Move the test suite from nose to pytest"' in first
    assert "ujson" not in first  # a decision about another file is not this change's business
    again = session.get_rules(["tests/conftest.py"], task="add a fixture")
    assert DECISIONS_HEADER not in again  # said once per session
    assert DECISIONS_HEADER in AgentSession(project.path).get_rules(["tests/test_app.py"])


def test_decisions_fit_inside_max_tokens_or_wait(tmp_path: Path, fake_llm: FakeLLM) -> None:
    project = _project(tmp_path, fake_llm)
    session = AgentSession(project.path)
    tight = session.get_rules(["tests/test_app.py"], max_tokens=100)
    assert DECISIONS_HEADER not in tight and len(tight) <= 100 * 4 + 200  # the rules came first
    assert DECISIONS_HEADER in session.get_rules(["tests/test_app.py"], refresh=True)  # not lost


def test_config_turns_decisions_off(tmp_path: Path, fake_llm: FakeLLM, lore_home: Path) -> None:
    project = _project(tmp_path, fake_llm)
    (lore_home / "config.json").write_text(json.dumps({"rules": {"decisions": False}}), encoding="utf-8")
    assert DECISIONS_HEADER not in AgentSession(project.path).get_rules(["tests/test_app.py"])


def test_a_project_without_history_gets_rules_only(tmp_path: Path) -> None:
    repo = HistoryRepo(tmp_path / "plain")
    repo.commit("Add the app", {"app.py": "print(1)\n"}, COMMITTER)
    project, _ = service.register_project(repo.root)
    service.add_rule(project, "Keep functions small.")
    text = AgentSession(project.path).get_rules(["app.py"])
    assert "Keep functions small." in text and DECISIONS_HEADER not in text
