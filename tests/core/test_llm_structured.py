"""Structured output: validate, repair once with the error, then fail clearly with the raw text."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from lore.core.llm import ModelClient, StructuredOutputError, complete_structured_sync
from lore.core.llm.cache import cache_stats
from lore.core.llm.structured import ReplyInvalid, parse_reply
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401


class Claim(BaseModel):
    text: str
    passage: int
    quote: str = Field(min_length=1)


GOOD = {"text": "Stamford introduces Watson to Holmes.", "passage": 2, "quote": "this is Dr. Watson"}


def test_parse_reply_reads_past_fences_and_prose() -> None:
    assert parse_reply(json.dumps(GOOD), Claim).passage == 2
    assert parse_reply("```json\n" + json.dumps(GOOD) + "\n```", Claim).passage == 2
    assert parse_reply("Here you go: " + json.dumps(GOOD) + " Hope it helps.", Claim).passage == 2
    with pytest.raises(ReplyInvalid, match="not valid JSON"):
        parse_reply('{"text": ', Claim)
    with pytest.raises(ReplyInvalid, match=r"passage: .*integer"):
        parse_reply(json.dumps({**GOOD, "passage": "two"}), Claim)


def test_malformed_json_is_repaired_once(fake_llm: FakeLLM) -> None:
    fake_llm.fail("malformed")
    fake_llm.reply("Who introduces", GOOD)
    result = ModelClient().structured_result_sync("Who introduces Watson?", Claim)
    assert result.value == Claim(**GOOD)
    assert result.repaired
    first, second = fake_llm.requests
    assert first.last_user == "Who introduces Watson?"
    repair = second.body["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"oops": '}
    assert repair[-1]["role"] == "user" and "not valid JSON" in repair[-1]["content"]


def test_repair_carries_the_validation_error(fake_llm: FakeLLM) -> None:
    fake_llm.reply(lambda r: "could not be used" in r.last_user, GOOD)
    fake_llm.reply("Who introduces", {**GOOD, "quote": ""})
    assert complete_structured_sync("Who introduces Watson?", Claim).quote == GOOD["quote"]
    repair_text = fake_llm.requests[1].last_user
    assert "quote" in repair_text and "at least 1 character" in repair_text


def test_second_failure_raises_with_the_raw_text_and_forgets_it(fake_llm: FakeLLM) -> None:
    fake_llm.reply("Who introduces", "I think it was Stamford, but I am not sure.")
    with pytest.raises(StructuredOutputError) as info:
        complete_structured_sync("Who introduces Watson?", Claim)
    error = info.value
    assert error.raw == "I think it was Stamford, but I am not sure."
    assert "Claim" in str(error) and "repair" in str(error) and "\n" not in str(error)
    assert error.exit_code == 1
    assert fake_llm.count() == 2
    assert cache_stats().chat_entries == 0  # a later run asks afresh instead of replaying failure

    with pytest.raises(StructuredOutputError):
        complete_structured_sync("Who introduces Watson?", Claim)
    assert fake_llm.count() == 4  # the model was really asked again, not replayed


def test_anthropic_tool_reply_that_fails_validation_is_repaired(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.use("anthropic", monkeypatch)
    fake_llm.reply(lambda r: "could not be used" in r.last_user, GOOD)
    fake_llm.reply("Who", {"text": "x"})  # missing fields, sent as a tool_use block
    assert complete_structured_sync("Who introduces Watson?", Claim).passage == 2
    repair = fake_llm.requests[1].body["messages"]
    assert repair[1] == {"role": "assistant", "content": json.dumps({"text": "x"})}
    assert "passage" in repair[2]["content"]
