"""Decisions from the git layer alone (no GitHub), and the commands over both layers' rows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history.decisions.extract import extract
from lore.history.decisions.service import all_decisions
from lore.history.ingest.git import ingest_git
from support.fake_llm import FakeLLM, Request, fake_llm_fixture  # noqa: F401
from support.history_repo import HistoryRepo

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

runner = CliRunner()
MAINTAINER = ("Test User", "test@example.com")  # the committer of every commit here
OUTSIDER = ("Visitor", "visitor@example.com")  # authored a commit someone else committed
PYTEST = "Move the test suite from nose to pytest\n\nnose is unmaintained; pytest fixtures replace our setup helpers."
DROP = (
    "Drop the ujson dependency\n\nThe standard json module is fast enough for us and one less wheel to build."
)
THEIRS = "Use orjson in my fork\n\nI switched to orjson in my own deployment and it works well."


def _repo(tmp_path: Path) -> HistoryRepo:
    r = HistoryRepo(tmp_path / "project")
    r.commit("Add the app", {"app.py": "print(1)\n", "tests/test_app.py": "def test(): pass\n"}, MAINTAINER)
    r.commit(PYTEST, {"tests/conftest.py": "import pytest\n"}, MAINTAINER)
    r.commit(THEIRS, {"app.py": "print(2)\n"}, OUTSIDER)
    r.commit(DROP, {"requirements.txt": "\n"}, MAINTAINER)
    r.commit("Fix a typo", {"app.py": "print(3)\n"}, MAINTAINER)
    return r


def _commits_reply(request: Request) -> dict:
    """Propose one decision per commit the prompt shows, quoting its subject."""
    shown = re.findall(r"\[(C\d+)\] commit [^\n]*:\n([^\n]*)", request.last_user)
    return {
        "decisions": [
            {"source": label, "quote": subject, "statement": subject, "scope": "dependency"}
            for label, subject in shown
        ]
    }


def test_commit_messages_by_committers_become_decisions(tmp_path: Path, fake_llm: FakeLLM) -> None:
    repo = _repo(tmp_path)
    ingest_git(repo.root)
    fake_llm.reply(lambda r: "<commits>" in r.prompt, _commits_reply)
    report = extract()
    # the outsider's commit and the two subject-only commits are never sent
    (sent,) = [r for r in fake_llm.requests if "<commits>" in r.prompt]
    assert "Move the test suite" in sent.prompt and "Drop the ujson" in sent.prompt
    assert "orjson" not in sent.prompt and "Fix a typo" not in sent.prompt
    assert report.skipped_commits == 3 and report.commits == 2
    found = {d.statement: d for d in all_decisions(None)}
    assert set(found) == {"Move the test suite from nose to pytest", "Drop the ujson dependency"}
    drop = found["Drop the ujson dependency"]
    assert drop.source_kind == "commit" and drop.speaker_role == "committer"
    assert drop.commit_sha and len(drop.commit_sha) == 40 and drop.source_url is None  # no GitHub
    assert drop.quote == "Drop the ujson dependency" and drop.source_span == (0, len(drop.quote))


def test_a_rewritten_commits_message_is_not_read(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """An amended commit is kept in the store but no ref reaches it: its message is not the
    project's any more, so extract never sends it."""
    repo = _repo(tmp_path)
    ingest_git(repo.root)
    repo.git("reset", "-q", "--hard", "HEAD~2")  # drop "Fix a typo" and the ujson decision
    assert ingest_git(repo.root).unreachable_commits == 2
    fake_llm.reply(lambda r: "<commits>" in r.prompt, _commits_reply)
    report = extract()
    (sent,) = [r for r in fake_llm.requests if "<commits>" in r.prompt]
    assert "Move the test suite" in sent.prompt and "Drop the ujson" not in sent.prompt
    assert report.commits == 1
    assert {d.statement for d in all_decisions(None)} == {"Move the test suite from nose to pytest"}


def test_commands_show_decisions_and_undo(tmp_path: Path, fake_llm: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("LORE_EMBED", "hash")
    repo = _repo(tmp_path)
    ingest_git(repo.root)
    fake_llm.reply(lambda r: "<commits>" in r.prompt, _commits_reply)
    result = runner.invoke(app, ["history", "extract", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["kept"] == 2
    shown = runner.invoke(app, ["history", "decisions", "--json"])
    rows = json.loads(shown.stdout)
    assert [r["statement"] for r in rows] == [
        "Move the test suite from nose to pytest",
        "Drop the ujson dependency",
    ]
    assert rows[0]["valid_to"] is None and rows[0]["in_force"] is True
    text = runner.invoke(app, ["history", "decisions"])
    assert text.exit_code == 0 and '"Drop the ujson dependency"' in text.stdout
    listed = runner.invoke(app, ["history", "supersessions", "--json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout) == []
    missing = runner.invoke(app, ["history", "unsupersede", "7"])
    assert missing.exit_code == 3 and "no supersession with id 7" in missing.output


def test_without_a_model_extract_exits_5_and_says_what_a_model_would_add(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    ingest_git(repo.root)
    result = runner.invoke(app, ["history", "extract"])
    assert result.exit_code == 5
    assert "needs a language model" in result.output and "2 commit message(s)" in result.output
    judged = runner.invoke(app, ["history", "supersede"])
    assert judged.exit_code == 5 and "needs a language model" in judged.output
    # what needs no model keeps working
    shown = runner.invoke(app, ["history", "decisions"])
    assert shown.exit_code == 0 and "no decisions match" in shown.stdout
