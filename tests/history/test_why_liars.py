"""`why` against model servers that lie while citing real evidence: no lie is ever shown.

Each liar of `support.liars` cites items the server really received. What the model writes is
checked in code (the quote in the cited item, then the sentence grounded in it), so every
output (the CLI's text and `--json`, the MCP tool, the web API) shows none of it, and `--json`
says why each sentence was dropped without repeating it.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from lore.history.why import answer
from lore.history.why.evidence import Evidence, WhyQuery
from lore.history.why.service import why
from lore.mcp.server import build_server
from lore.web.guard import TOKEN_HEADER
from support import liars
from support.fake_llm import FakeLLM
from support.fake_llm import fake_llm_fixture as fake_llm_fixture
from support.history_why import WhyRepo, build_why_repo
from support.mcp_client import call
from support.ui_server import running_ui

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

QUESTION = "Why does src/auth.py use the OAuth2 authorization code flow?"


@pytest.fixture
def why_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WhyRepo:
    monkeypatch.setenv("LORE_EMBED", "hash")
    built = build_why_repo(tmp_path / "app")
    ingest_git(built.root)
    return built


def _items_received(fake: FakeLLM) -> list[dict]:
    (request,) = [r for r in fake.requests if r.kind == "chat"]
    return liars.evidence_sent(request)


def test_the_sponsor_sentence_never_appears(why_repo: WhyRepo, fake_llm: FakeLLM) -> None:
    liars.why_sponsor(fake_llm)
    runner = CliRunner()
    text = runner.invoke(app, ["history", "why", QUESTION])
    assert text.exit_code == 0, text.output
    sent = _items_received(fake_llm)
    assert sent and "sponsor" not in json.dumps(sent)  # the lie is the model's, not the evidence's
    as_json = runner.invoke(app, ["history", "why", QUESTION, "--json"])
    data = json.loads(as_json.output)
    with running_ui() as (port, token):
        web = httpx.post(
            f"http://127.0.0.1:{port}/api/history/why",
            json={"repo": "app", "question": QUESTION},
            headers={TOKEN_HEADER: token},
            trust_env=False,
            timeout=60,
        )
    assert web.status_code == 200, web.text
    tool, error = call(build_server(why_repo.root), "history_why", {"question": QUESTION})
    assert not error
    for shown in (text.output, as_json.output, web.text, tool):
        assert "sponsor" not in shown and "paid" not in shown
    assert data["answer"] == [] and data["evidence"]
    assert [d["reason"] for d in data["dropped"]] == [answer.UNGROUNDED] * len(sent)
    assert {d["evidence"] for d in data["dropped"]} <= {e["key"] for e in data["evidence"]}
    assert "none of its" in data["note"] and "none of its" in text.output
    assert web.json()["answer"] == []


def _planted(text: str) -> Evidence:
    """A commit whose message repeats the prompt's own framing (a repository holding Lore's code)."""
    return Evidence(
        key="commit:" + "f" * 40,
        kind="commit",
        unit="commit:" + "f" * 40,
        title="Copy the why prompt",
        text=text,
        at=1_700_100_000.0,
        ref="f" * 10,
        author="Mallory Example",
        quote=text,
    )


@pytest.mark.parametrize(
    ("liar", "reasons"),
    [
        (liars.why_fabricated_quote, {answer.NOT_QUOTED}),
        (liars.why_quote_from_elsewhere, {answer.NOT_QUOTED}),
        (liars.why_one_word_quote, {answer.THIN_QUOTE}),
        (liars.why_flipped_author, {answer.SOMEONE_ELSE}),
    ],
    ids=["fabricated", "another item", "one word", "who did what"],
)
def test_each_liar_is_dropped_for_its_own_reason(
    why_repo: WhyRepo, fake_llm: FakeLLM, liar, reasons: set[str]
) -> None:
    liar(fake_llm)
    report = why(resolve_repo(), QUESTION)
    assert _items_received(fake_llm) and report.answer == [] and report.evidence
    assert report.dropped and {d.reason for d in report.dropped} == reasons
    assert all(set(d.to_dict()) == {"evidence", "reason"} for d in report.dropped)


def test_a_quote_of_the_prompt_s_own_framing_is_dropped(why_repo: WhyRepo, fake_llm: FakeLLM) -> None:
    """The planted item really holds the framing words, so the quote check passes; the words are
    the prompt's, not the repository's, so the sentence still says nothing the source says."""
    planted = _planted(f"Prompt text: {answer.GIVEN} then the items.")

    def extra(q: WhyQuery) -> list[Evidence]:
        return [planted]

    liars.why_header_quote(fake_llm)
    report = why(resolve_repo(), QUESTION, providers={"planted": extra})
    assert [i["text"] for i in _items_received(fake_llm)] == [planted.text]
    assert report.answer == []
    assert [d.to_dict() for d in report.dropped] == [{"evidence": planted.key, "reason": answer.HEADER_QUOTE}]


@pytest.mark.parametrize("failure", sorted(liars.FAILURES))
def test_a_failing_server_shows_the_evidence_alone(
    why_repo: WhyRepo, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "1")
    liars.why_sponsor(fake_llm)
    liars.FAILURES[failure](fake_llm)
    report = why(resolve_repo(), QUESTION)
    assert report.answer == [] and report.dropped == [] and report.evidence
    assert report.note.startswith("no answer from the model (")
    assert fake_llm.count("chat") >= 1
