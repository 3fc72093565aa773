"""get_rules also says the project decisions behind the files of a change: in force only, with
their verbatim source, once per session, inside max_tokens, and switchable in config.json.

A real repository, ingested, decisions extracted from its commits through the local model server,
then a real agent session asking for the rules of the files."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lore.history.decisions.extract import extract
from lore.history.ingest.git import ingest_git
from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.serve.selection import DECISIONS_HEADER
from support.fake_llm import FakeLLM, Request, fake_llm_fixture  # noqa: F401
from support.history_repo import HistoryRepo

ME = ("Test User", "test@example.com")
PYTEST = "Move the test suite from nose to pytest\n\nnose is unmaintained; pytest fixtures replace our setup helpers."
DEPS = (
    "Drop the ujson dependency\n\nThe standard json module is fast enough for us and one less wheel to build."
)


def _decide(request: Request) -> dict:
    """One decision per commit shown, quoting its subject, about the files it names."""
    shown = re.findall(r"\[(C\d+)\] commit [^\n]*:\n([^\n]*)", request.last_user)
    files = {"Move the test suite": ["tests/"], "Drop the ujson": ["requirements.txt"]}
    return {
        "decisions": [
            {"source": label, "quote": subject, "statement": subject, "scope": "dependency",
             "files": next((f for k, f in files.items() if subject.startswith(k)), [])}
            for label, subject in shown
        ]
    }  # fmt: skip


def _project(tmp_path: Path, fake_llm: FakeLLM):
    repo = HistoryRepo(tmp_path / "project")
    repo.commit("Add the app", {"app.py": "print(1)\n", "tests/test_app.py": "def test(): pass\n"}, ME)
    repo.commit(PYTEST, {"tests/conftest.py": "import pytest\n"}, ME)
    repo.commit(DEPS, {"requirements.txt": "\n"}, ME)
    ingest_git(repo.root)
    fake_llm.reply(lambda r: "<commits>" in r.prompt, _decide)
    extract()
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
    repo.commit("Add the app", {"app.py": "print(1)\n"}, ME)
    project, _ = service.register_project(repo.root)
    service.add_rule(project, "Keep functions small.")
    text = AgentSession(project.path).get_rules(["app.py"])
    assert "Keep functions small." in text and DECISIONS_HEADER not in text
