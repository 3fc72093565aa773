"""Failure modes: 429 with Retry-After, 5xx, a hang, a bad body, a bad key, no server at all."""

from __future__ import annotations

import socket
from dataclasses import replace

import pytest

from lore.core.errors import NeedsModel
from lore.core.llm import ModelCallError, complete_sync
from lore.core.llm.client import ModelClient
from lore.core.llm.runtime import runtime_options
from lore.core.llm.transport import retry_after_seconds
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401


def test_429_is_retried_after_the_time_the_server_asked(fake_llm: FakeLLM) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # the wait is recorded, not spent
        waits.append(seconds)

    fake_llm.fail("429", retry_after=7)
    fake_llm.reply("ping", "pong")
    client = ModelClient(options=replace(runtime_options(), sleep=sleep))
    assert client.complete_sync("ping").text == "pong"
    limited, answered = fake_llm.requests
    assert (limited.status, answered.status) == (429, 200)
    assert waits == [7.0]  # the client waited as told, not its own backoff


def test_500s_are_retried_with_backoff_then_succeed(fake_llm: FakeLLM) -> None:
    fake_llm.fail("500", times=2)
    fake_llm.reply("ping", "pong")
    assert complete_sync("ping").text == "pong"
    assert [r.status for r in fake_llm.requests] == [500, 500, 200]


def test_persistent_500_gives_up_with_a_clear_message(fake_llm: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "2")
    fake_llm.fail("500", times=10)
    with pytest.raises(ModelCallError) as info:
        complete_sync("ping")
    message = str(info.value)
    assert "500" in message and "the server had an error" in message and "3 attempts" in message
    assert info.value.status == 500
    assert fake_llm.count() == 3


def test_a_hanging_server_times_out(fake_llm: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "1")
    fake_llm.fail("hang", times=5)
    with pytest.raises(ModelCallError, match=r"did not answer within 0\.3s"):
        complete_sync("ping")
    assert fake_llm.count() == 2


def test_a_hang_then_an_answer_recovers(fake_llm: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "0.3")
    fake_llm.fail("hang")
    fake_llm.reply("ping", "pong")
    assert complete_sync("ping").text == "pong"


def test_a_body_that_is_not_json_is_reported(fake_llm: FakeLLM) -> None:
    fake_llm.fail("bad-body")
    with pytest.raises(ModelCallError, match="not JSON"):
        complete_sync("ping")


def test_a_rejected_key_needs_model_setup_and_is_not_retried(fake_llm: FakeLLM) -> None:
    fake_llm.require_key = "sk-some-other-key"
    with pytest.raises(NeedsModel, match=r"401.*invalid API key.*check the API key"):
        complete_sync("ping")
    assert fake_llm.count() == 1


def test_an_unknown_route_is_final(fake_llm: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url + "/wrong")
    with pytest.raises(ModelCallError, match="404") as info:
        complete_sync("ping")
    assert info.value.status == 404
    assert fake_llm.count() == 1


def test_no_server_listening(monkeypatch) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("LORE_MODEL", "ollama:llama3.1")
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{port}")
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "1")
    monkeypatch.setenv("LORE_LLM_RETRY_BASE", "0.01")
    with pytest.raises(ModelCallError, match=f"cannot reach ollama:llama3.1 at http://127.0.0.1:{port}"):
        complete_sync("ping")


def test_retry_after_header_forms() -> None:
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds("0.5") == 0.5
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    when = "Wed, 21 Oct 2015 07:28:10 GMT"
    assert retry_after_seconds(when, now=1445412480.0) == 10.0
