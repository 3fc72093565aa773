"""`extract` through a real local model server and a real GitHub-shaped server: every guard.

What the model proposes is scripted (support/decisions.py); what is kept is decided by Lore's
checks, and what the model was sent is read from the server's own request log.
"""

from __future__ import annotations

import pytest

from lore.core.dates import to_epoch
from lore.core.errors import NeedsModel
from lore.history.decisions import guards
from lore.history.decisions.extract import extract
from lore.history.decisions.service import all_decisions
from lore.history.decisions.store import open_decisions
from lore.history.ingest.github import ingest_github
from support import decisions as data
from support.fake_github import FakeGitHub
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


@pytest.fixture
def gh(monkeypatch):
    server = FakeGitHub("acme", "widget")
    data.load(server)
    with server:
        monkeypatch.setenv("LORE_GITHUB_API", server.url)
        ingest_github("acme/widget")
        yield server


def test_only_proven_decisions_by_people_who_can_bind_the_project_are_kept(gh, fake_llm: FakeLLM) -> None:
    data.teach(fake_llm)
    report = extract("acme/widget")
    kept = {d.statement: d for d in all_decisions("acme/widget")}
    assert set(kept) == {
        "Use JWT tokens, not server sessions, for the public API",
        "Use server sessions, not JWT tokens, for the public API",
        "Do not support JSON-encoded complex types in query params",
    }
    assert report.dropped == {guards.NO_QUOTE: 1, guards.NO_AUTHORITY: 1, guards.DUPLICATE: 1}
    assert (report.proposed, report.kept) == (6, 3)
    jwt = kept["Use JWT tokens, not server sessions, for the public API"]
    # the quote is the source's own text at the recorded span, not the model's re-typing
    assert jwt.quote == "We will use JWT tokens for the public API instead of server sessions"
    assert data.JWT[jwt.source_span[0] : jwt.source_span[1]] == jwt.quote
    assert (jwt.speaker, jwt.speaker_role, jwt.comment_kind, jwt.item_number) == (
        "bob",
        "MEMBER",
        "issue_comment",
        1,
    )
    # valid from the deciding comment (day 3), not from the thread (day 1)
    assert jwt.valid_from == to_epoch(data.day(3))
    assert jwt.files == ("src/auth.py",)  # a file the repository does not have is left out
    assert jwt.extracted_by.startswith("openai:fake-model decisions-v")
    assert jwt.ingested_at > jwt.valid_from


def test_a_users_report_of_their_own_choice_is_not_a_decision(gh, fake_llm: FakeLLM) -> None:
    data.teach(fake_llm)
    extract("acme/widget")
    # a thread where only users talk is never sent: nothing said there could bind the project
    assert sorted(data.thread_of(r) for r in data.thread_requests(fake_llm)) == [1, 2, 3]
    sent = next(r for r in data.thread_requests(fake_llm) if data.thread_of(r) == 1)
    # the model is told who spoke with what standing, and what an experience report is
    assert "dave (NONE), comment" in sent.prompt and "bob (MEMBER), comment" in sent.prompt
    assert "experience report, never a project decision" in sent.prompt
    # and when it calls the user's report a decision anyway, the code drops it
    assert not [d for d in all_decisions("acme/widget") if "PonyORM" in d.statement]


def test_a_second_extract_makes_no_model_call(gh, fake_llm: FakeLLM) -> None:
    data.teach(fake_llm)
    first = extract("acme/widget")
    sent = fake_llm.count("chat")
    again = extract("acme/widget")
    assert sent == 3 and fake_llm.count("chat") == sent
    assert (again.calls_planned, again.kept, again.already_read) == (0, 0, 3)
    assert again.usage["calls"] == 0 and again.usage["cache_hits"] == 0
    assert len(all_decisions("acme/widget")) == first.kept


def test_another_model_reads_the_sources_again_and_each_keeps_its_mark(
    gh, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source is read by a model: switching models reads it again (its decisions are not stored
    twice), and switching back costs no call, since each model's mark is kept."""
    data.teach(fake_llm)
    first = extract("acme/widget")
    assert fake_llm.count("chat") == 3
    fake_llm.use("openai", monkeypatch, model="other-model")
    other = extract("acme/widget")
    assert fake_llm.count("chat") == 6 and other.already_read == 0
    assert other.model.startswith("openai:other-model") and other.kept == 0  # the same decisions
    marks = (
        open_decisions().store.connect().execute("SELECT DISTINCT extracted_by FROM history_decision_marks")
    )
    assert sorted(m[0].split()[0] for m in marks) == ["openai:fake-model", "openai:other-model"]
    fake_llm.use("openai", monkeypatch)
    back = extract("acme/widget")
    assert fake_llm.count("chat") == 6 and back.already_read == 3
    assert len(all_decisions("acme/widget")) == first.kept


def test_a_new_comment_reads_that_thread_again_without_duplicating(gh, fake_llm: FakeLLM) -> None:
    data.teach(fake_llm)
    extract("acme/widget")
    gh.add_comment(3, "Agreed, closing.", user="bob", association="OWNER", at=data.day(20))
    gh.items[3].data["updated_at"] = "2099-01-01T00:00:00Z"  # after the first ingest ran
    ingest_github("acme/widget", refresh=True)
    fake_llm.reset()
    again = extract("acme/widget")
    assert [data.thread_of(r) for r in data.thread_requests(fake_llm)] == [3]
    assert again.kept == 0 and again.dropped == {guards.DUPLICATE: 1}


def test_the_call_budget_takes_the_most_salient_threads(gh, fake_llm: FakeLLM) -> None:
    data.teach(fake_llm)
    report = extract("acme/widget", max_calls=1)
    # issue #1: a maintainer, a CLOSES link and two comments outrank the others
    assert [data.thread_of(r) for r in data.thread_requests(fake_llm)] == [1]
    assert (report.calls_planned, report.calls_left_for_budget) == (1, 2)


def test_malformed_json_fails_that_call_and_leaves_the_source_for_next_time(gh, fake_llm: FakeLLM) -> None:
    data.teach(fake_llm)
    fake_llm.fail("malformed", times=2, match="Issue #3:")  # the reply, then its repair
    report = extract("acme/widget")
    assert report.failed_calls == 1 and report.kept == 2
    assert not [d for d in all_decisions("acme/widget") if d.item_number == 3]
    again = extract("acme/widget")
    assert again.kept == 1 and again.failed_calls == 0
    assert [d.item_number for d in all_decisions("acme/widget")].count(3) == 1


def test_a_timeout_fails_that_call_and_nothing_crashes(gh, fake_llm: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "0")
    data.teach(fake_llm)
    fake_llm.fail("hang", match="Issue #1:")
    report = extract("acme/widget")
    assert report.failed_calls == 1 and report.kept == 2
    assert "acme/widget" in report.repo
    assert open_decisions().marks(1).keys() == {"item:2", "item:3"}


def test_a_429_is_waited_out_and_the_call_succeeds(gh, fake_llm: FakeLLM) -> None:
    data.teach(fake_llm)
    fake_llm.fail("429", match="Issue #3:", retry_after=0)
    report = extract("acme/widget")
    statuses = [r.status for r in fake_llm.requests if data.thread_of(r) == 3]
    assert statuses == [429, 200]
    assert report.failed_calls == 0 and report.kept == 3


def test_without_a_model_extract_says_what_one_would_add(gh) -> None:
    with pytest.raises(NeedsModel) as info:
        extract("acme/widget")
    message = str(info.value)
    assert "needs a language model" in message and "3 thread(s)" in message
    assert "no language model is configured" in message  # and how to set one up
    assert all_decisions("acme/widget") == []


def test_marks_written_before_marks_were_per_model_are_kept() -> None:
    """The migration to one mark per model keeps the marks already written: a store read by one
    model before the upgrade still costs that model nothing."""
    from lore.core.store.open import open_store
    from lore.history import store as layer1
    from lore.history.decisions.store import MIGRATIONS
    from lore.history.store.schema import MIGRATIONS as LAYER1

    store = open_store()
    store.migrate(LAYER1)
    store.migrate(MIGRATIONS[:1])
    with store.transaction() as conn:
        repo_id = layer1.HistoryStore(store).create_repo("app", None, "acme/app")
        conn.execute(  # as the first version of the table held them: one mark per source
            "INSERT INTO history_decision_marks (repo_id, source, digest, extracted_by, kept, at)"
            " VALUES (?, 'item:5', 'abc', 'openai:fake-model decisions-v1', 2, 0)",
            (repo_id,),
        )
    db = open_decisions()
    assert db.marks(repo_id, "openai:fake-model decisions-v1") == {"item:5": "abc"}
    assert db.marks(repo_id, "openai:other decisions-v1") == {}
    with db.store.transaction():
        db.mark(repo_id, "item:5", "abc", "openai:other decisions-v1", 2)
    assert db.marks(repo_id, "openai:other decisions-v1") == {"item:5": "abc"}
    assert db.marks(repo_id, "openai:fake-model decisions-v1") == {"item:5": "abc"}
