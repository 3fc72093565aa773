"""A model that lies about decisions: real but unrelated quotes, a one-word quote, a quote lifted
from the prompt's own header, an invented reason. None of it is stored or reaches an agent.

A real repository that merges with merge commits: a contributor's branch (the contributor is the
committer of their own commits) merged by the maintainer, who also commits to main. Extract runs
through the local model server; get_rules and history_decisions through the real MCP client."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history.decisions import guards
from lore.history.decisions.extract import extract
from lore.history.decisions.service import all_decisions
from lore.history.decisions.supersede import supersede
from lore.history.ingest.git import ingest_git
from support.fake_llm import FakeLLM, Request, fake_llm_fixture  # noqa: F401
from support.history_repo import HistoryRepo, merge

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

MAINTAINER = ("Test User", "test@example.com")
CONTRIBUTOR = ("Carl", "carl@example.com")
DROP = (
    "Drop the ujson dependency\n\nThe standard json module is fast enough for us and one less wheel to build."
)
PARSER = "Parse options with a state machine\n\nThe old recursive parser could not report the failing token."
HTTPX = "Switch the HTTP client to httpx\n\nhttpx gives us async support in the client."
MERGED = "Merge the option parser rework\n\nKeep the parser in one module so plugins can import it."
PONY = "Switch the project from SQLAlchemy Core to PonyORM"
SPONSOR = "The maintainers did this because a sponsor paid for it."


def _repo(tmp_path: Path) -> HistoryRepo:
    repo = HistoryRepo(tmp_path / "project")
    repo.commit("Add the app", {"src/app/core.py": "x = 1\n", "requirements.txt": "ujson\n"}, MAINTAINER)
    repo.git("checkout", "-q", "-b", "carl")
    (repo.root / "src/app/http.py").write_text("import httpx\n", encoding="utf-8")
    repo.git("add", "-A")
    name, email = CONTRIBUTOR
    repo.git(
        "-c", f"user.name={name}", "-c", f"user.email={email}", "commit", "-q", "-m", HTTPX, who=CONTRIBUTOR
    )
    repo.git("checkout", "-q", "main")
    merge(repo, "carl", MERGED)
    repo.commit(DROP, {"requirements.txt": "\n"}, MAINTAINER)
    repo.commit(PARSER, {"src/app/core.py": "x = 2\n"}, MAINTAINER)
    return repo


def _shown(request: Request) -> list[tuple[str, str]]:
    return re.findall(r"\[(C\d+)\] commit [^\n]*:\n([^\n]*)", request.last_user)


def _liar(request: Request) -> dict[str, Any]:
    """For each commit: its honest decision, and for the first one shown the lies besides."""
    shown = _shown(request)
    out: list[dict[str, Any]] = []
    for label, subject in shown:
        files = ["requirements.txt", "src/app/core.py"] if "ujson" in subject else ["src/app/core.py"]
        out.append({"source": label, "quote": subject, "statement": subject, "scope": "architecture",
                    "files": files})  # fmt: skip
    first, subject = shown[0]
    out += [
        # a real quote under an invented decision about the file an agent is changing
        {"source": first, "quote": subject, "statement": PONY, "scope": "data", "files": ["src/app/core.py"]},
        # a one-word quote
        {"source": first, "quote": "the", "statement": "Use pytest for every test", "scope": "testing"},
        # a quote lifted from the prompt's own header of that commit
        {"source": first, "quote": "a committer of the repository", "statement": "Only committers decide",
         "scope": "process"},
        # the honest statement with an invented reason
        {"source": first, "quote": subject, "statement": subject + " now", "rationale": SPONSOR,
         "scope": "architecture", "files": ["src/app/core.py"]},
    ]  # fmt: skip
    return {"decisions": out}


def test_lies_are_neither_stored_nor_served(tmp_path: Path, fake_llm: FakeLLM, monkeypatch) -> None:
    from lore.mcp.server import build_server
    from support.mcp_client import call

    repo = _repo(tmp_path)
    ingest_git(repo.root)
    fake_llm.reply(lambda r: "<commits>" in r.prompt, _liar)
    report = extract()

    stored = {d.statement for d in all_decisions(None)}
    assert stored == {"Drop the ujson dependency", "Parse options with a state machine",
                      "Merge the option parser rework"}  # fmt: skip
    assert report.dropped[guards.UNGROUNDED] == 1  # PonyORM
    assert report.dropped[guards.THIN] == 1  # "the"
    assert report.dropped[guards.HEADER] == 1  # the header's words
    assert report.dropped[guards.UNGROUNDED_WHY] == 1  # the sponsor
    (sent,) = [r for r in fake_llm.requests if "<commits>" in r.prompt]
    assert "a committer of the repository" in sent.prompt  # the lifted words were the prompt's own
    assert "httpx" not in sent.prompt  # the contributor's commit is never read: no authority

    monkeypatch.chdir(repo.root)
    rules, error = call(build_server(repo.root), "get_rules", {"paths": ["src/app/core.py"], "task": "edit"})
    assert not error, rules
    assert "Parse options with a state machine" in rules
    assert "PonyORM" not in rules and "sponsor" not in rules and "pytest" not in rules
    listed, error = call(build_server(repo.root), "history_decisions", {})
    assert not error and "PonyORM" not in listed and "Drop the ujson dependency" in listed


def test_a_contributors_merged_commit_cannot_bind_the_project(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch
) -> None:
    repo = _repo(tmp_path)
    ingest_git(repo.root)
    fake_llm.reply(lambda r: "<commits>" in r.prompt, _liar)
    report = extract()
    # skipped: the contributor's commit (committer of their own commit, off the first-parent
    # line) and the subject-only "Add the app"
    assert report.skipped_commits == 2
    monkeypatch.chdir(repo.root)
    shown = CliRunner().invoke(app, ["history", "decisions", "--json"])
    assert shown.exit_code == 0, shown.output
    rows = {d["statement"]: d for d in json.loads(shown.output)}
    assert "Switch the HTTP client to httpx" not in rows
    merged = rows["Merge the option parser rework"]  # the maintainer merged: a merge's author
    assert merged["authority"] == "first-parent committer" and merged["speaker"].startswith("Test User")
    assert rows["Drop the ujson dependency"]["authority"] == "first-parent committer"
    assert all(d["grounding"] == "grounded" and d["served"] for d in rows.values())


def test_a_judge_that_always_says_replaces_cannot_close_a_pair_with_no_shared_word(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    repo = _repo(tmp_path)
    ingest_git(repo.root)
    fake_llm.reply(lambda r: "<commits>" in r.prompt, _liar)
    extract()
    fake_llm.reply(
        lambda r: "Does the LATER decision replace" in r.prompt,
        {"reasoning": "It replaces it.", "verdict": "replaces"},
    )
    report = supersede()
    # all three touch src/app/core.py; the merge and the state machine also share "parser" and
    # "options": one pair; the ujson decision shares no word with either, so is never judged
    assert report.pairs_sharing_anchor == 1 and report.pairs_without_shared_words == 2
    judged = [r for r in fake_llm.requests if "Does the LATER decision replace" in r.prompt]
    assert report.superseded == len(judged) == report.candidates
    assert not [r for r in judged if "ujson" in r.prompt]
    closed = {d.statement for d in all_decisions(None) if d.valid_to is not None}
    assert "Drop the ujson dependency" not in closed and "Parse options with a state machine" not in closed


def test_decisions_stored_before_the_checks_are_held_back_until_extract_checks_them(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    from lore.history.decisions.service import decisions
    from lore.history.decisions.store import NewDecision, open_decisions
    from lore.history.repos import resolve_repo

    repo = _repo(tmp_path)
    ingest_git(repo.root)
    target = resolve_repo(str(repo.root))
    old = {"Drop the ujson dependency": repo.git("rev-parse", "HEAD~1").strip(),
           "Switch the HTTP client to httpx": repo.git("rev-parse", "carl").strip()}  # fmt: skip
    rows = [
        NewDecision(target.id, statement, "", "dependency", ("requirements.txt",), "commit", None, None, None,
                    None, sha, None, "someone", "committer", statement, 0, len(statement), 1.7e9, "old", 1.0)
        for statement, sha in old.items()
    ]  # fmt: skip
    db = open_decisions()
    with db.transaction() as tx:
        tx.add_decisions(rows)  # as an earlier version wrote them: no authority, no grounding
    assert decisions(target) and not decisions(target, served_only=True)
    fake_llm.reply(lambda r: "<commits>" in r.prompt, {"decisions": []})
    report = extract(target)
    assert report.rechecked == {"grounded and authoritative": 1, "speaker cannot bind the project": 1}
    served = decisions(target, served_only=True)
    assert [d.statement for d in served] == ["Drop the ujson dependency"]
    assert served[0].authority == "first-parent committer"
