"""`lore books ask` against model servers that lie, on A Study in Scarlet: no lie is shown.

Every liar of `support.liars` answers the claims stage from the passages it received, and the
checker it plays says "supported" to everything, so only the checks in code stand between the
lie and the reader. The tests look at what was shown (the answer, `--json`, the web reader's
stream) and at what the server received (never a passage past the reader's position).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from lore.books import library
from lore.books.ask import ask
from lore.books.ask.records import Answer
from lore.cli.app import app
from lore.web.guard import TOKEN_HEADER
from support import liars
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401  (the fake_llm fixture)
from support.ui_server import running_ui

SCARLET = "a-study-in-scarlet.epub"
EARLY = "What was written in blood on the wall of the empty house?"  # chapter 3 answers it
READ = 4  # the reader's chapter: the murderer is named in chapter 7
KILLER = "Jefferson Hope is the murderer of Enoch Drebber and of Joseph Stangerson."
UNMET = ("Jefferson", "Lucy", "Ferrier")  # names first met past chapter 4
# the distinctive words of each lie: none may be in an answer shown
LIES = {
    liars.INVENTED: ("landlady", "secretly"),
    liars.HOPE: UNMET,
}


def _chapters_received(fake: FakeLLM) -> list[int]:
    """Every chapter number any prompt the server received names."""
    return [int(n) for r in fake.requests if r.kind == "chat" for n in re.findall(r"chapter (\d+)", r.prompt)]


def _shown(answer: Answer) -> str:
    """What a reader is shown: the prose with its citations, and each sentence."""
    return answer.text() + "\n" + "\n".join(s.text for s in answer.sentences)


def _web_events(port: int, token: str, book: int, question: str) -> list[dict[str, Any]]:
    with (
        httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={TOKEN_HEADER: token}, trust_env=False
        ) as client,
        client.stream(
            "POST", "/api/books/ask", json={"book": book, "question": question}, timeout=120
        ) as reply,
    ):
        assert reply.status_code == 200, reply.read()
        return [json.loads(line) for line in reply.iter_lines() if line]


@pytest.mark.parametrize(
    "liar", [liars.book_past_the_cap, liars.book_prose_past_the_cap], ids=["claims", "prose"]
)
def test_a_liar_naming_the_murderer_never_reaches_a_reader_at_chapter_4(
    shared_data: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, liar
) -> None:
    monkeypatch.setenv("LORE_NO_CACHE", "1")  # each face asks the server, and is lied to
    book = library.add_book(shared_data / "books" / SCARLET)  # the reader's own library
    library.set_progress(book.id, READ)
    liar(fake_llm)

    answer = ask(book.id, None, EARLY)
    assert answer.verdict == "found" and answer.mode == "model"
    as_json = CliRunner().invoke(app, ["books", "ask", str(book.id), EARLY, "--json"])
    assert as_json.exit_code == 0, as_json.output
    with running_ui() as (port, token):
        events = _web_events(port, token, book.id, EARLY)
    for shown in (_shown(answer), json.dumps(answer.as_dict()), as_json.output, json.dumps(events)):
        assert not [name for name in UNMET if name in shown], shown
    claims = [r for r in fake_llm.requests if liars.stage(r) == "claims"]
    assert len(claims) == 3  # the service, the CLI and the web reader each asked, and were lied to
    assert max(_chapters_received(fake_llm)) <= READ


def test_the_same_liar_may_name_him_once_the_reader_has_met_him(shared_data: Path, fake_llm: FakeLLM) -> None:
    book = library.add_book(shared_data / "books" / SCARLET)
    library.set_progress(book.id, 7)
    liars.book_past_the_cap(fake_llm, KILLER)
    answer = ask(book.id, None, "Who is the killer?")
    assert "Jefferson Hope" in _shown(answer)
    assert all(c.chapter <= 7 for s in answer.sentences for c in s.citations)
    assert max(_chapters_received(fake_llm)) <= 7


@pytest.mark.parametrize("name", sorted(liars.BOOK_LIARS))
def test_no_liar_gets_a_lie_into_the_answer(shared, fake_llm: FakeLLM, name: str) -> None:
    folder, lib = shared
    book = lib.book(folder, SCARLET)
    liars.BOOK_LIARS[name](fake_llm)
    answer = ask(book.id, None, EARLY, position=(READ, None), store=lib.store)
    told = [r for r in fake_llm.requests if liars.stage(r) == "claims"]
    assert told, "the liar was never asked"
    lied = [c for c in answer.claims if c.text.split() != c.quote.split()]  # honest: restates its quote
    assert answer.claims and all(c.status == "cut" for c in lied)
    shown = _shown(answer)
    for lie, words in LIES.items():
        assert not [w for w in words if w in shown], (lie, shown)
    assert not [n for n in UNMET if n in json.dumps(answer.as_dict())]
    assert max(_chapters_received(fake_llm)) <= READ
    assert all(c.chapter <= READ for s in answer.sentences for c in s.citations)


def test_flipped_roles_are_not_shown(shared, fake_llm: FakeLLM) -> None:
    """A speaker's line given to another person the passage names, every word the passage's own,
    and a checker saying "supported" to all: the who-did-what check reads the speaker."""
    folder, lib = shared
    book = lib.book(folder, SCARLET)
    flipped = liars.book_flipped_roles(fake_llm)
    answer = ask(book.id, None, EARLY, position=(READ, None), store=lib.store)
    assert flipped, "no passage named two people"
    shown = _shown(answer)
    assert not [f for f in flipped if f in shown], flipped


@pytest.mark.parametrize("failure", sorted(liars.FAILURES))
def test_a_failing_server_leaves_no_unchecked_claim(
    shared, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "1")
    folder, lib = shared
    book = lib.book(folder, SCARLET)
    liars.book_past_the_cap(fake_llm)
    liars.FAILURES[failure](fake_llm)
    answer = ask(book.id, None, EARLY, position=(READ, None), store=lib.store)
    assert answer.sentences == [] and answer.claims == []
    assert answer.message == "No checked claims: the model did not answer."
    assert fake_llm.count("chat") >= 1
