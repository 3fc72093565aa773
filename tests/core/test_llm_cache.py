"""The content-hash cache: a re-run makes no network call; `no_cache` asks again and refreshes."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from lore.core.config import update_settings
from lore.core.errors import InvalidInput
from lore.core.llm import BOOKS_EXTRACT, ModelClient, complete_structured_sync, complete_sync
from lore.core.llm.cache import cache_stats, clear_cache, request_key
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


class Verdict(BaseModel):
    supported: bool
    reason: str


def _run(n: int = 3) -> list[Verdict]:
    return [complete_structured_sync(f"Is claim {i} supported?", Verdict) for i in range(n)]


def test_second_run_makes_zero_calls(fake_llm: FakeLLM) -> None:
    fake_llm.reply("supported", {"supported": True, "reason": "the quote says so"})
    first = _run()
    assert fake_llm.count() == 3
    fake_llm.reset()
    assert _run() == first
    assert fake_llm.count() == 0
    stats = cache_stats()
    assert (stats.chat_entries, stats.chat_hits) == (3, 3)
    assert stats.by_model == [{"kind": "chat", "model": "openai:fake-model", "entries": 3, "hits": 3}]


def test_cached_reply_survives_the_server_going_away(fake_llm: FakeLLM) -> None:
    fake_llm.reply("ping", "pong")
    complete_sync("ping")
    fake_llm.close()  # the frozen snapshot is enough to reproduce the run
    reply = complete_sync("ping")
    assert (reply.text, reply.cached, reply.reply_model) == ("pong", True, "fake-model")


def test_no_cache_asks_again_and_refreshes(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.reply("ping", "pong", times=1)
    fake_llm.reply("ping", "pong 2")
    assert complete_sync("ping").text == "pong"
    assert ModelClient(no_cache=True).complete_sync("ping").text == "pong 2"
    assert complete_sync("ping").text == "pong 2"  # the refreshed reply is what is cached now
    assert fake_llm.count() == 2
    monkeypatch.setenv("LORE_NO_CACHE", "1")
    complete_sync("ping")
    assert fake_llm.count() == 3


def test_key_covers_provider_model_messages_parameters_and_schema(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.reply(lambda r: True, {"supported": False, "reason": "no"})
    complete_sync("same words")
    complete_sync("same words", temperature=0)
    complete_sync("same words", system="Be terse.")
    complete_structured_sync("same words", Verdict)
    monkeypatch.setenv("LORE_MODEL", "openai:another-model")
    complete_sync("same words")
    assert fake_llm.count() == 5
    fake_llm.reset()
    monkeypatch.setenv("LORE_MODEL", "openai:fake-model")
    complete_sync("same words", temperature=0)
    assert fake_llm.count() == 0
    a = {"model": "m", "params": {"a": 1, "b": 2}}
    assert request_key(a) == request_key({"params": {"b": 2, "a": 1}, "model": "m"})


def test_clear_by_kind(fake_llm: FakeLLM) -> None:
    fake_llm.reply("ping", "pong")
    complete_sync("ping")
    assert clear_cache("embed") == 0
    assert clear_cache("chat") == 1
    complete_sync("ping")
    assert fake_llm.count() == 2
    with pytest.raises(InvalidInput, match="unknown cache kind"):
        clear_cache("everything")


def test_task_override_goes_to_its_own_model(fake_llm: FakeLLM, monkeypatch) -> None:
    update_settings({"model": {"tasks": {BOOKS_EXTRACT: "openai:cheap-model"}}})
    fake_llm.reply("ping", "pong")
    complete_sync("ping")
    ModelClient(task=BOOKS_EXTRACT).complete_sync("ping")
    monkeypatch.setenv("LORE_MODEL_BOOKS_EXTRACT", "openai:env-model")  # exportable by a shell
    ModelClient(task=BOOKS_EXTRACT).complete_sync("ping")
    assert [r.model for r in fake_llm.requests] == ["fake-model", "cheap-model", "env-model"]


def test_two_servers_with_one_model_name_do_not_share_replies(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.reply("ping", "from the first server")
    assert complete_sync("ping").text == "from the first server"
    with FakeLLM().start() as other:  # another OpenAI-compatible server, same model name
        other.reply("ping", "from the second server")
        monkeypatch.setenv("OPENAI_BASE_URL", other.url)
        assert complete_sync("ping").text == "from the second server"
        assert other.count() == 1
    # another spelling of the first server's URL is the same server: answered from the cache
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.url.replace("http://", "HTTP://") + "/")
    again = complete_sync("ping")
    assert (again.text, again.cached, fake_llm.count()) == ("from the first server", True, 1)


def test_base_url_spellings_normalise() -> None:
    from lore.core.llm.providers import normalize_base_url

    assert normalize_base_url("HTTPS://API.OpenAI.com:443/v1/") == "https://api.openai.com/v1"
    assert normalize_base_url("http://user:secret@127.0.0.1:80/v1") == "http://127.0.0.1/v1"
    assert normalize_base_url("http://127.0.0.1:8000/v1") != normalize_base_url("http://127.0.0.1:8001/v1")
