"""Accounting: calls, tokens, cache hits and cost, per run and per subject."""

from __future__ import annotations

import pytest

from lore.core.config import update_settings
from lore.core.llm import (
    ModelClient,
    complete_sync,
    model_run,
    model_subject,
    totals,
    totals_by_model,
    totals_by_subject,
)
from lore.core.llm.usage import usage_report
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


def test_tokens_come_from_the_provider(fake_llm: FakeLLM) -> None:
    fake_llm.reply("ping", "pong pong pong pong")
    with model_run("test run") as run:
        complete_sync("ping")
    t = totals(run_id=run)
    assert (t.calls, t.cache_hits) == (1, 0)
    assert (t.prompt_tokens, t.completion_tokens) == (fake_llm.prompt_tokens, fake_llm.completion_tokens)
    assert not t.estimated_tokens


def test_tokens_are_estimated_when_the_provider_sends_none(fake_llm: FakeLLM) -> None:
    fake_llm.report_usage = False
    fake_llm.reply("x" * 40, "y" * 20)
    reply = complete_sync("x" * 40)
    assert (reply.prompt_tokens, reply.completion_tokens, reply.estimated) == (10, 5, True)
    t = totals()
    assert (t.prompt_tokens, t.completion_tokens, t.estimated_tokens) == (10, 5, True)
    assert "some estimated" in t.line()


def test_cache_hits_are_counted_but_cost_nothing(fake_llm: FakeLLM) -> None:
    update_settings({"model": {"prices": {"fake-model": {"input": 1.0, "output": 2.0}}}})
    fake_llm.reply("ping", "pong")
    with model_run("first") as first:
        complete_sync("ping")
    with model_run("second") as second:
        complete_sync("ping")
        complete_sync("ping")
    a, b = totals(run_id=first), totals(run_id=second)
    assert (a.calls, a.cache_hits, b.calls, b.cache_hits) == (1, 0, 0, 2)
    expected = (a.prompt_tokens * 1.0 + a.completion_tokens * 2.0) / 1_000_000
    assert a.cost == pytest.approx(expected)
    assert b.cost is None and b.prompt_tokens == 0  # nothing was spent in the second run
    assert totals().cost == pytest.approx(expected)


def test_prices_by_provider_and_model_and_unpriced_models(fake_llm: FakeLLM, monkeypatch) -> None:
    update_settings({"model": {"prices": {"openai:fake-model": {"input": 10, "output": 10}}}})
    fake_llm.reply(lambda r: True, "ok")
    complete_sync("one")
    monkeypatch.setenv("LORE_MODEL", "openai:other")
    complete_sync("two")
    by_model = totals_by_model()
    assert set(by_model) == {"openai:fake-model", "openai:other"}
    assert by_model["openai:fake-model"].cost is not None
    assert by_model["openai:other"].cost is None
    assert by_model["openai:other"].unpriced == ["other"]
    assert "cost unknown" in by_model["openai:other"].line()


def test_totals_per_subject(fake_llm: FakeLLM) -> None:
    fake_llm.reply(lambda r: True, "ok")
    with model_subject("book:3"):
        complete_sync("a")
        complete_sync("b")
    complete_sync("c", subject="repo:owner/name")
    ModelClient(subject="book:30").complete_sync("d")
    with model_run("ingest", subject="book:3") as run:
        complete_sync("e")
    complete_sync("f")
    by_subject = totals_by_subject()
    assert {k: v.calls for k, v in by_subject.items()} == {
        "": 1,
        "book:3": 3,
        "book:30": 1,
        "repo:owner/name": 1,
    }
    books = totals_by_subject("book:")
    assert set(books) == {"book:3", "book:30"}
    assert totals(subject="book:3").calls == 3
    assert totals(subject_prefix="repo:").calls == 1
    assert totals(run_id=run, subject="book:3").calls == 1
    runs = usage_report("run")
    assert run in runs and runs[run].calls == 1


def test_usage_report_refuses_unknown_grouping() -> None:
    from lore.core.errors import InvalidInput

    with pytest.raises(InvalidInput):
        usage_report("colour")


def test_embedding_batches_are_calls_counted_under_the_subject(fake_llm: FakeLLM) -> None:
    from lore.core.embed import get_embedder

    update_settings({"model": {"prices": {"text-embedding-3-small": {"input": 0.02, "output": 0}}}})
    embedder = get_embedder("openai:text-embedding-3-small")
    with model_run("books add") as run, model_subject("book:3"):
        embedder.embed([f"passage {i}" for i in range(100)])  # two batches of 64 and 36
        embedder.embed(["passage 1"])  # from the cache
    book = totals(subject="book:3")
    assert (book.calls, book.embed_calls, book.embedded_texts, book.embed_cache_hits) == (2, 2, 100, 1)
    assert book.cost is not None and book.cost > 0
    assert "2 model calls" in book.line() and "100 texts embedded in 2 calls" in book.line()
    assert totals_by_subject() == {"book:3": book}
    assert usage_report("run")[run].calls == 2


def test_nested_runs_join_the_outer_one(fake_llm: FakeLLM) -> None:
    fake_llm.reply(lambda r: True, "ok")
    with model_run("books extract") as outer:
        complete_sync("a")
        with model_run("inner step", subject="book:9") as inner:
            complete_sync("b")
        complete_sync("c")
    assert inner == outer
    assert totals(run_id=outer).calls == 3
    assert totals(subject="book:9").calls == 1


def test_local_use_is_not_called_unpriced() -> None:
    from lore.core.llm.usage import Totals

    free = Totals(calls=2, embed_calls=2, embedded_texts=50)
    assert "cost unknown" not in free.line()
    assert "cost unknown" in Totals(calls=1, unpriced=["gpt-x"]).line()
