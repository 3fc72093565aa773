"""Each provider's request and response shape, against a real local server."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel

from lore.core.config import update_settings
from lore.core.llm import ModelClient, complete_structured_sync, complete_sync
from support.fake_llm import API_KEY, FakeLLM, fake_llm_fixture  # noqa: F401


class Person(BaseModel):
    name: str
    age: int


ALICE = {"name": "Alice", "age": 31}


def test_openai_chat_shape(fake_llm: FakeLLM) -> None:
    fake_llm.reply("Who is Alice", ALICE)
    person = complete_structured_sync("Who is Alice?", Person, system="Be brief.", temperature=0)
    assert person == Person(**ALICE)
    (request,) = fake_llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.body["model"] == "fake-model"
    assert request.body["temperature"] == 0
    assert request.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Who is Alice?"},
    ]
    fmt = request.body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Person"
    assert fmt["json_schema"]["schema"] == Person.model_json_schema()


def test_openai_free_text_reports_model_and_usage(fake_llm: FakeLLM) -> None:
    fake_llm.reply_model = "fake-model-2024-01-01"
    fake_llm.reply("ping", "pong")
    reply = complete_sync("ping")
    assert (reply.text, reply.reply_model, reply.cached) == ("pong", "fake-model-2024-01-01", False)
    assert (reply.prompt_tokens, reply.completion_tokens) == (1, 1)
    assert "response_format" not in fake_llm.requests[0].body


def test_gemini_goes_through_its_openai_compatible_endpoint(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.use("gemini", monkeypatch, model="gemini-2.0-flash")
    fake_llm.reply("Alice", ALICE)
    assert complete_structured_sync("Who is Alice?", Person).age == 31
    request = fake_llm.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "gemini-2.0-flash"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"


def test_ollama_needs_no_key(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.require_key = None
    fake_llm.use("ollama", monkeypatch, model="llama3.1")
    fake_llm.reply("Alice", ALICE)
    assert complete_structured_sync("Who is Alice?", Person).name == "Alice"
    request = fake_llm.requests[0]
    assert request.body["model"] == "llama3.1"
    assert "authorization" not in request.headers


def test_anthropic_messages_shape_with_forced_tool(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.use("anthropic", monkeypatch, model="claude-test")
    fake_llm.reply("Alice", ALICE)
    result = ModelClient().structured_result_sync("Who is Alice?", Person, system="Be brief.")
    assert result.value == Person(**ALICE)
    request = fake_llm.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == API_KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    body = request.body
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "Who is Alice?"}]
    assert body["max_tokens"] == 4096
    assert body["tools"][0]["name"] == "Person"
    assert body["tools"][0]["input_schema"] == Person.model_json_schema()
    assert body["tool_choice"] == {"type": "tool", "name": "Person"}
    assert result.completion.prompt_tokens > 0  # from input_tokens


def test_anthropic_free_text(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.use("anthropic", monkeypatch, model="claude-test")
    fake_llm.reply("hello", "Hi there.")
    reply = complete_sync("hello", max_tokens=50)
    assert reply.text == "Hi there."
    body = fake_llm.requests[0].body
    assert body["max_tokens"] == 50 and "tools" not in body and "system" not in body


def test_instructions_mode_puts_the_schema_in_words(fake_llm: FakeLLM) -> None:
    update_settings({"model": {"structured": "instructions"}})
    fake_llm.reply("Alice", "Sure! ```json\n" + json.dumps(ALICE) + "\n```")
    assert complete_structured_sync("Who is Alice?", Person).age == 31
    body = fake_llm.requests[0].body
    assert "response_format" not in body
    system = body["messages"][0]
    assert system["role"] == "system"
    assert "JSON schema" in system["content"] and '"age"' in system["content"]


def test_a_server_refusing_json_schema_is_asked_in_words(fake_llm: FakeLLM) -> None:
    fake_llm.fail("400", match=lambda r: "response_format" in r.body)
    fake_llm.reply("Alice", ALICE)
    assert complete_structured_sync("Who is Alice?", Person).name == "Alice"
    first, second = fake_llm.requests
    assert first.status == 400 and "response_format" in first.body
    assert "response_format" not in second.body
    assert "JSON schema" in second.body["messages"][0]["content"]


def test_sync_wrapper_works_inside_a_running_event_loop(fake_llm: FakeLLM) -> None:
    fake_llm.reply("Alice", ALICE)

    async def handler() -> Person:  # e.g. an async web route calling sync domain code
        return complete_structured_sync("Who is Alice?", Person)

    assert asyncio.run(handler()).age == 31


def test_async_calls_run_side_by_side(fake_llm: FakeLLM) -> None:
    fake_llm.reply(lambda r: True, lambda r: {"name": r.last_user, "age": len(r.last_user)})

    async def many() -> list[Person]:
        client = ModelClient()
        try:
            return await asyncio.gather(*(client.structured(f"p{i}", Person) for i in range(6)))
        finally:
            await client.aclose()

    people = asyncio.run(many())
    assert [p.name for p in people] == [f"p{i}" for i in range(6)]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_structured_many_keeps_order_and_limits_concurrency(
    fake_llm: FakeLLM, monkeypatch, provider: str
) -> None:
    fake_llm.use(provider, monkeypatch)
    monkeypatch.setenv("LORE_LLM_MAX_CONCURRENCY", "2")
    fake_llm.gather = 2  # no answer until two requests are in flight together
    fake_llm.reply(lambda r: True, lambda r: {"name": r.last_user, "age": 1})
    results = ModelClient().structured_many_sync([f"q{i}" for i in range(8)], Person)
    assert [r.value.name for r in results] == [f"q{i}" for i in range(8)]
    assert fake_llm.count() == 8
    assert fake_llm.max_in_flight == 2  # the limit is reached and never passed
