"""Supersession and the two time axes, through real extract and supersede runs.

The judge is the fake model server; which pairs it is ever asked about is read from its request
log, so "never proposed" means the server never received the pair.
"""

from __future__ import annotations

import json
import time

import pytest

from lore.core.dates import to_epoch
from lore.history.decisions.extract import extract
from lore.history.decisions.service import all_decisions, decisions, file_decisions
from lore.history.decisions.supersede import supersede, supersessions, unsupersede
from lore.history.ingest.github import ingest_github
from support import decisions as data
from support.fake_github import FakeGitHub
from support.fake_llm import FakeLLM, Request, fake_llm_fixture  # noqa: F401

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

JWT = "Use JWT tokens, not server sessions, for the public API"
SESSIONS = "Use server sessions, not JWT tokens, for the public API"
REFUSAL = "Do not support JSON-encoded complex types in query params"


@pytest.fixture
def extracted(monkeypatch, fake_llm: FakeLLM):
    monkeypatch.setenv("LORE_EMBED", "hash")
    server = FakeGitHub("acme", "widget")
    data.load(server)
    with server:
        monkeypatch.setenv("LORE_GITHUB_API", server.url)
        ingest_github("acme/widget")
        data.teach(fake_llm)
        extract("acme/widget")
        yield fake_llm


def _judge_says(llm: FakeLLM, verdict: str) -> None:
    llm.reply(
        lambda r: "Does the LATER decision replace" in r.prompt,
        {"reasoning": "The later decision takes the earlier one's place.", "verdict": verdict},
    )


def _pair(request: Request) -> tuple[str, str]:
    text = request.last_user
    earlier = text.split("EARLIER (", 1)[1].split("\n", 1)[0].split(": ", 1)[1]
    later = text.split("LATER (", 1)[1].split("\n", 1)[0].split(": ", 1)[1]
    return earlier, later


def _by_statement() -> dict[str, int]:
    return {d.statement: d.id for d in all_decisions("acme/widget")}


def test_a_replacement_closes_the_earlier_interval(extracted: FakeLLM) -> None:
    _judge_says(extracted, "replaces")
    report = supersede("acme/widget")
    ids = _by_statement()
    # JWT and sessions share a scope, a file and a lineage (PR #2 closes issue #1); the refusal
    # is in another scope with no shared anchor: it is never put to the judge
    assert [_pair(r) for r in data.judge_requests(extracted)] == [(JWT, SESSIONS)]
    assert report.superseded == 1
    now = {d.statement for d in decisions("acme/widget")}
    assert now == {SESSIONS, REFUSAL}
    old = next(d for d in all_decisions("acme/widget") if d.statement == JWT)
    assert old.superseded_by == ids[SESSIONS] and old.valid_to == to_epoch(data.day(10))
    assert old.supersede_reason == "The later decision takes the earlier one's place."
    # in early January the JWT decision held, and the sessions one did not yet
    assert {d.statement for d in decisions("acme/widget", as_of=data.day(5))} == {JWT}
    assert {d.statement for d in decisions("acme/widget", as_of=data.day(11))} == {SESSIONS, REFUSAL}


def test_the_judge_saying_they_coexist_closes_nothing(extracted: FakeLLM) -> None:
    _judge_says(extracted, "coexists")
    report = supersede("acme/widget")
    assert (report.judged, report.superseded) == (1, 0)
    assert {d.statement for d in decisions("acme/widget")} == {JWT, SESSIONS, REFUSAL}
    assert supersessions("acme/widget") == []
    # the verdict is kept: a second run asks nothing
    sent = extracted.count("chat")
    assert supersede("acme/widget").already_judged == 1 and extracted.count("chat") == sent


def test_never_earlier_than_earlier(extracted: FakeLLM) -> None:
    _judge_says(extracted, "replaces")
    supersede("acme/widget")
    for request in data.judge_requests(extracted):
        earlier, later = request.last_user.split("EARLIER (", 1)[1], request.last_user.split("LATER (", 1)[1]
        assert earlier[:10] < later[:10]  # the date the older one was made comes first
    ids = _by_statement()
    assert [(s.earlier, s.later) for s in supersessions("acme/widget")] == [(ids[JWT], ids[SESSIONS])]


def test_without_a_shared_anchor_no_pair_is_proposed(monkeypatch, fake_llm: FakeLLM) -> None:
    monkeypatch.setenv("LORE_EMBED", "hash")
    server = FakeGitHub("acme", "widget")
    data.load(server)
    with server:
        monkeypatch.setenv("LORE_GITHUB_API", server.url)
        ingest_github("acme/widget")
    # two decisions of one scope, but the model names no file and issue #3 has no link to #1
    both = {
        1: [data.proposal("S1", "We will use JWT tokens for the public API", JWT)],
        3: [data.proposal("S1", "We will not support JSON-encoded complex types", REFUSAL)],
    }
    data.teach(fake_llm, both)
    extract("acme/widget")
    _judge_says(fake_llm, "replaces")
    report = supersede("acme/widget")
    assert report.pairs_sharing_anchor == 0 and data.judge_requests(fake_llm) == []
    assert len(decisions("acme/widget")) == 2


def test_undo_reopens_the_interval_and_keeps_the_row(extracted: FakeLLM) -> None:
    _judge_says(extracted, "replaces")
    supersede("acme/widget")
    (row,) = supersessions("acme/widget")
    undone = unsupersede(row.id)
    assert undone.undone_at is not None
    assert {d.statement for d in decisions("acme/widget")} == {JWT, SESSIONS, REFUSAL}
    assert next(d for d in all_decisions("acme/widget") if d.statement == JWT).valid_to is None
    (kept,) = supersessions("acme/widget")  # nothing deleted
    assert kept.id == row.id and kept.undone_at == undone.undone_at


def test_undo_says_when_another_supersession_still_closes_the_decision(extracted: FakeLLM) -> None:
    """Two supersessions end the same decision: undoing one says that it is still superseded by
    the other (through the CLI too), and only undoing the last puts it in force again."""
    from typer.testing import CliRunner

    from lore.cli.app import app
    from lore.history.decisions.store import open_decisions

    _judge_says(extracted, "replaces")
    supersede("acme/widget")
    (first,) = supersessions("acme/widget")
    rows = {d.statement: d for d in all_decisions("acme/widget")}
    jwt, refusal = rows[JWT], rows[REFUSAL]
    assert refusal.valid_from > jwt.valid_from  # a later decision: it can end the JWT one
    db = open_decisions()
    with db.transaction() as tx:
        second = tx.add_supersession(jwt.id, refusal.id, "a second judge", "the API changed again")
    runner = CliRunner()
    said = runner.invoke(app, ["history", "unsupersede", str(first.id)])
    assert said.exit_code == 0, said.output
    assert said.stdout.strip() == (
        f"supersession {first.id} undone; decision {jwt.id} is still superseded by decision"
        f" {refusal.id} (see `lore history supersessions`)"
    )
    assert JWT not in {d.statement for d in decisions("acme/widget")}  # what was said holds
    last = runner.invoke(app, ["history", "unsupersede", str(second), "--json"])
    assert last.exit_code == 0, last.output
    assert json.loads(last.stdout)["still_superseded_by"] == []
    assert JWT in {d.statement for d in decisions("acme/widget")}


def test_as_of_and_believed_at_differ_on_a_backfilled_history(extracted: FakeLLM) -> None:
    # the whole history (January 2024) was learned just now: ingested_at is today for all rows
    learned = max(d.ingested_at for d in all_decisions("acme/widget"))
    while time.time() <= learned:  # the judge's stamp must come strictly after
        time.sleep(0.001)
    between = time.time()
    while time.time() <= between:
        time.sleep(0.001)
    _judge_says(extracted, "replaces")
    supersede("acme/widget")
    march_2024 = "2024-03-01"
    # valid time: in March 2024 the sessions decision held
    assert {d.statement for d in decisions("acme/widget", as_of=march_2024)} == {SESSIONS, REFUSAL}
    # belief time: before the backfill the store knew nothing, whatever held in 2024
    assert decisions("acme/widget", as_of=march_2024, believed_at=learned - 1) == []
    # after extract and before supersede, the store still believed the JWT decision held in March
    believed = {d.statement for d in decisions("acme/widget", as_of=march_2024, believed_at=between)}
    assert believed == {JWT, SESSIONS, REFUSAL}
    # and an undo later does not change what was believed before it
    (row,) = supersessions("acme/widget")
    unsupersede(row.id)
    assert {d.statement for d in decisions("acme/widget", as_of=march_2024)} == {JWT, SESSIONS, REFUSAL}
    after_judging = row.judged_at
    assert {d.statement for d in decisions("acme/widget", as_of=march_2024, believed_at=after_judging)} == {
        SESSIONS,
        REFUSAL,
    }


def test_filters_by_file_and_topic(extracted: FakeLLM) -> None:
    assert {d.statement for d in decisions("acme/widget", file="src/auth.py")} == {JWT, SESSIONS}
    assert {d.statement for d in decisions("acme/widget", file="src/")} == {JWT, SESSIONS}
    assert {d.statement for d in decisions("acme/widget", topic="api")} == {REFUSAL}
    assert {d.statement for d in decisions("acme/widget", topic="server sessions")} == {JWT, SESSIONS}


def test_a_files_decisions_as_they_stood(extracted: FakeLLM) -> None:
    _judge_says(extracted, "replaces")
    supersede("acme/widget")
    (row,) = supersessions("acme/widget")
    old, new = file_decisions("acme/widget", "src/auth.py")  # superseded ones too, oldest first
    assert (old.statement, new.statement) == (JWT, SESSIONS)
    assert (old.supersession_id, old.superseded_by_statement, old.in_force) == (row.id, SESSIONS, False)
    assert new.supersession_id is None and new.superseded_by_statement is None
    assert file_decisions("acme/widget", "README.md") == []
    # on 5 January only the JWT decision had been made, and it held: no end is shown
    (then,) = file_decisions("acme/widget", "src/auth.py", as_of=data.day(5))
    assert then.statement == JWT and then.in_force
    assert (then.valid_to, then.superseded_by, then.supersession_id, then.supersede_reason) == (None,) * 4
    # once undone, nothing ends it now either
    unsupersede(row.id)
    assert all(d.in_force for d in file_decisions("acme/widget", "src/auth.py"))
