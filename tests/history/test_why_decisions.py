"""`why` finds the project's decisions (layer 2) beside commits and threads, with their quote,
and as they stood at `--as-of`: decisions made later are left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.history.decisions.extract import extract
from lore.history.decisions.service import all_decisions
from lore.history.repos import resolve_repo
from lore.history.why.service import gather
from support.decisions import decide_commits, decided_repo
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def test_why_cites_the_decision_behind_a_file_and_respects_as_of(tmp_path: Path, fake_llm: FakeLLM) -> None:
    decided_repo(tmp_path / "project", fake_llm)
    r = resolve_repo(None)
    (pytest_decision,) = [d for d in all_decisions(r) if d.statement.startswith("Move the test suite")]

    report = gather(r, "why do the tests use pytest instead of nose?")
    found = {e.key: e for e in report.evidence}
    decision = found[f"decision:{pytest_decision.id}"]
    assert decision.layer == "decision" and decision.quote == "Move the test suite from nose to pytest"
    assert decision.valid_to is None and decision.superseded_by is None

    by_path = gather(r, "tests/conftest.py")
    assert f"decision:{pytest_decision.id}" in {e.key for e in by_path.evidence}

    before = gather(r, "why do the tests use pytest instead of nose?", as_of=pytest_decision.valid_from - 1)
    assert not [e for e in before.evidence if e.kind == "decision"]


def test_history_decisions_over_mcp(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from lore.mcp.server import build_server
    from support.mcp_client import call

    repo = decided_repo(tmp_path / "project", None)
    server = build_server(repo.root)
    empty, error = call(server, "history_decisions", {})
    assert not error and "No decisions" in empty
    fake_llm.reply(lambda r: "<commits>" in r.prompt, decide_commits)
    extract()
    text, error = call(build_server(repo.root), "history_decisions", {"file": "tests/conftest.py"})
    assert not error, text
    assert '"Move the test suite from nose to pytest"' in text and "ujson" not in text
    before, error = call(build_server(repo.root), "history_decisions", {"as_of": "2001-01-01"})
    assert not error and "No decisions" in before
