"""`lore books ask` through a real local model server: what is cut, what is held, what is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.books import library
from lore.books.ask import Switches, ask, ask_stream
from lore.books.ask.roles import RULES, swapped
from lore.cli.app import app
from support.ask_model import quoting, script, stage, statement, supported, unsupported, writer_echo
from support.books import BookSpec, make_epub, prose_chapter
from support.fake_llm import FakeLLM, Request, fake_llm_fixture  # noqa: F401  (the fake_llm fixture)

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

POISONED = "It was Clara Vane who had poisoned the old colonel with arsenic in his tea."
QUESTION = "Who poisoned the old colonel?"


def _checks(fake: FakeLLM, text: str | None = None) -> list[Request]:
    return [r for r in fake.requests if stage(r) == "check" and (text is None or statement(r) == text)]


@pytest.fixture
def finished(mystery: library.Book) -> library.Book:
    return library.set_progress(mystery.id, "end")


def test_a_fabricated_quote_is_cut_before_any_check(finished: library.Book, fake_llm: FakeLLM) -> None:
    invented = "Clara Vane confessed it all to the vicar"

    def claims(held):
        n = next(n for n, (_, text) in held.items() if POISONED in text)
        return [
            {"text": "Clara Vane poisoned the colonel.", "passage": n, "quote": POISONED},
            {"text": "Clara Vane confessed to the vicar.", "passage": n, "quote": invented},
        ]

    script(fake_llm, claims)
    answer = ask(finished.id, None, QUESTION)
    cut = {c.text: c for c in answer.claims if c.status == "cut"}
    assert cut["Clara Vane confessed to the vicar."].why == "its quote is not in the passage it cites"
    assert [s.text for s in answer.sentences] == ["Clara Vane poisoned the colonel."]
    assert (
        answer.sentences[0].citations[0].quote == POISONED and answer.sentences[0].citations[0].chapter == 5
    )
    assert _checks(fake_llm, "Clara Vane confessed to the vicar.") == []  # never even checked


ARREST = "Hale arrested her at the station before the evening train."


def _arrest_claims(lie: str):
    def claims(held):
        out = []
        for n, (_, text) in held.items():
            if POISONED in text:
                out.append({"text": "Clara Vane poisoned the colonel.", "passage": n, "quote": POISONED})
            if ARREST in text:
                out.append({"text": lie, "passage": n, "quote": ARREST})
        return out

    return claims


def test_a_real_quote_under_a_claim_it_does_not_carry_is_cut_in_code(
    finished: library.Book, fake_llm: FakeLLM
) -> None:
    """The checker says "supported" to everything; the claim's poisoning is not in its quote."""
    script(fake_llm, _arrest_claims("Hale poisoned the colonel."), verdict=lambda r: supported())
    answer = ask(finished.id, None, QUESTION)
    cut = {c.text: c for c in answer.claims if c.status == "cut"}
    assert cut["Hale poisoned the colonel."].why.startswith("not grounded: ")
    assert "Hale poisoned" not in answer.text()
    assert _checks(fake_llm, "Hale poisoned the colonel.") == []  # the model's verdict never mattered


def test_a_grounded_claim_the_checker_rejects_is_still_cut(finished: library.Book, fake_llm: FakeLLM) -> None:
    """Code first, the model's verdict after: a claim made of its quote's words can still be false."""
    lie = "Hale arrested her at the station after the evening train."
    script(
        fake_llm,
        _arrest_claims(lie),
        verdict=lambda r: unsupported() if "after the evening" in statement(r) else supported(),
    )
    answer = ask(finished.id, None, QUESTION)
    assert {c.text: c.status for c in answer.claims} == {
        "Clara Vane poisoned the colonel.": "passed",
        lie: "cut",
    }
    assert "after the evening" not in answer.text()
    assert len(_checks(fake_llm, lie)) == 1


def _accusation(tmp_path: Path) -> library.Book:
    accused = "Inspector Hale accused Penrose of stealing the silver teapot."
    spec = BookSpec(chapters=[prose_chapter(1), prose_chapter(2, [accused]), prose_chapter(3)])
    book = library.add_book(make_epub(tmp_path / "accused.epub", spec))
    return library.set_progress(book.id, "end")


@pytest.mark.parametrize("on", [True, False])
def test_a_flipped_who_did_what_is_caught_only_with_the_switch(
    tmp_path: Path, fake_llm: FakeLLM, on: bool
) -> None:
    book = _accusation(tmp_path)
    flipped = "Penrose accused Hale of stealing the silver teapot."
    script(
        fake_llm, quoting("Hale accused Penrose of stealing", flipped)
    )  # a checker that agrees to anything
    answer = ask(
        book.id, None, "Who accused whom of stealing the teapot?", switches=Switches(who_did_what=on)
    )
    assert answer.claims and answer.claims[0].text == flipped
    assert (answer.claims[0].status == "cut") is on
    assert (flipped in answer.text()) is not on
    sent = [r.prompt for r in fake_llm.requests]
    assert all((RULES in p) is on for p in sent if "STAGE judge" not in p)  # writer and both checks
    assert swapped(flipped, "Inspector Hale accused Penrose of stealing the silver teapot")


@pytest.mark.parametrize("on", [True, False])
def test_a_flip_flopping_verdict_is_held_with_the_switch(
    finished: library.Book, fake_llm: FakeLLM, on: bool
) -> None:
    said = "Clara Vane poisoned the colonel."
    verdicts = iter([supported(), unsupported("On second thought it does not.")])
    script(fake_llm, quoting(POISONED, said), verdict=lambda r: next(verdicts, unsupported()))
    answer = ask(finished.id, None, QUESTION, switches=Switches(keep_first_verdicts=on))
    asked = _checks(fake_llm, said)
    assert len(asked) == (1 if on else 2)
    if on:
        assert [s.text for s in answer.sentences] == [said]
    else:
        assert answer.sentences == [] and answer.claims[0].status == "cut"
        assert "Check round 2" in asked[1].last_user


def test_a_verdict_its_own_reason_contradicts_is_asked_again(
    finished: library.Book, fake_llm: FakeLLM
) -> None:
    said = "Clara Vane poisoned the colonel."
    replies = iter(
        [
            {
                "reason": "The passage says Clara Vane poisoned him.",
                "reason_finds": "supports",
                "verdict": "unsupported",
            },
            supported(),
        ]
    )
    script(fake_llm, quoting(POISONED, said), verdict=lambda r: next(replies, supported()))
    answer = ask(finished.id, None, QUESTION)
    first_round = [r for r in _checks(fake_llm, said) if "Check round 1" in r.last_user]
    assert len(first_round) == 2 and "which that reason contradicts" in first_round[1].last_user
    assert [s.text for s in answer.sentences] == [said]
    schema = first_round[0].schema or {}
    assert list(schema["properties"])[:3] == ["reason", "reason_finds", "verdict"]  # reason first


def test_without_reason_first_the_verdict_comes_first_and_stands(
    finished: library.Book, fake_llm: FakeLLM
) -> None:
    said = "Clara Vane poisoned the colonel."
    script(
        fake_llm,
        quoting(POISONED, said),
        verdict=lambda r: {"verdict": "unsupported", "reason": "It says so."},
    )
    answer = ask(finished.id, None, QUESTION, switches=Switches(reason_first=False))
    checks = _checks(fake_llm, said)
    assert len(checks) == 1 and next(iter((checks[0].schema or {})["properties"])) == "verdict"
    assert answer.sentences == []


@pytest.mark.parametrize("failure", ["malformed", "429", "500", "hang"])
def test_a_checker_that_errors_leaves_no_unverified_claim(
    finished: library.Book, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "0.5")
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "1")
    fake_llm.hang_seconds = 2
    said = "Clara Vane poisoned the colonel."
    script(fake_llm, quoting(POISONED, said))
    fake_llm.fail(failure, times=50, match=lambda r: stage(r) == "check", retry_after=0)
    answer = ask(finished.id, None, QUESTION)
    assert answer.mode == "model" and answer.sentences == []
    assert answer.claims[0].status == "cut" and "failed" in answer.claims[0].why
    assert not [r for r in fake_llm.requests if stage(r) == "write"]  # nothing unchecked is written up


def test_a_writer_that_fails_leaves_the_checked_claims(finished: library.Book, fake_llm: FakeLLM) -> None:
    said = "Clara Vane poisoned the colonel."
    script(fake_llm, quoting(POISONED, said))
    fake_llm.fail("500", times=50, match=lambda r: stage(r) == "write")
    answer = ask(finished.id, None, QUESTION)
    assert [s.text for s in answer.sentences] == [said] and answer.sentences[0].citations[0].chapter == 5


def test_a_sentence_citing_no_checked_claim_is_dropped(finished: library.Book, fake_llm: FakeLLM) -> None:
    said = "Clara Vane poisoned the colonel."

    def writer(request: Request):
        return {
            "sentences": [
                *writer_echo(request)["sentences"],
                {"text": "The butler helped her.", "claims": [9]},
            ]
        }

    script(fake_llm, quoting(POISONED, said), writer=writer)
    answer = ask(finished.id, None, QUESTION)
    assert [s.text for s in answer.sentences] == [said]


def test_not_reached_sends_nothing_to_the_model(mystery: library.Book, fake_llm: FakeLLM) -> None:
    library.set_progress(mystery.id, 2)
    answer = ask(mystery.id, None, QUESTION)
    assert answer.verdict == "not_reached" and answer.sentences == [] and answer.mode == "none"
    assert fake_llm.count() == 0
    spoiled = ask(mystery.id, None, QUESTION, spoilers=True, use_model=False)
    assert any(POISONED in s.citations[0].quote for s in spoiled.sentences)


def test_the_answer_streams_and_stops_when_closed(finished: library.Book, fake_llm: FakeLLM) -> None:
    said = "Clara Vane poisoned the colonel."
    script(fake_llm, quoting(POISONED, said))
    stream = ask_stream(finished.id, None, QUESTION)
    kinds = []
    for event in stream:
        kinds.append(event.kind)
        if event.kind == "claim":
            stream.close()
    assert kinds == ["parts", "evidence", "claim"]
    assert not [r for r in fake_llm.requests if stage(r) == "write"]  # stopped before the writer
    kinds = [e.kind for e in ask_stream(finished.id, None, QUESTION)]
    assert kinds[-1] == "answer" and "sentence" in kinds


def test_without_a_model_the_answer_is_the_text_itself(finished: library.Book) -> None:
    answer = ask(finished.id, None, QUESTION)
    assert answer.mode == "extractive" and answer.sentences
    for s in answer.sentences:
        assert s.text == s.citations[0].quote
        passage = next(e for e in answer.evidence if e.passage_id == s.citations[0].passage_id)
        assert s.text in " ".join(passage.text.split())
    assert answer.sentences[0].text == POISONED
    assert "With one (`lore model setup`)" in answer.text()


def test_cli_ask_json(finished: library.Book, fake_llm: FakeLLM) -> None:
    said = "Clara Vane poisoned the colonel."
    script(fake_llm, quoting(POISONED, said))
    result = CliRunner().invoke(app, ["books", "ask", str(finished.id), QUESTION, "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["switches"]["who_did_what"] is True and data["sentences"][0]["text"] == said
    plain = CliRunner().invoke(app, ["books", "ask", str(finished.id), QUESTION, "--no-model"])
    assert plain.exit_code == 0 and "[ch. 5]" in plain.stdout
    bad = CliRunner().invoke(app, ["books", "ask", QUESTION])
    assert bad.exit_code == 2 and "BOOK and QUESTION" in bad.stderr


SWITCH_FLAGS = ("--keep-first-verdicts", "--reason-first", "--who-did-what")


def test_the_evaluation_switches_belong_to_eval(
    finished: library.Book, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    """`books ask --help` shows no evaluation switch; `books eval` takes them and runs with them."""
    ask_help = CliRunner().invoke(app, ["books", "ask", "--help"])
    eval_help = CliRunner().invoke(app, ["books", "eval", "--help"])
    assert ask_help.exit_code == 0 and eval_help.exit_code == 0
    assert not any(flag in ask_help.stdout for flag in SWITCH_FLAGS)
    assert all(flag in eval_help.stdout for flag in SWITCH_FLAGS)
    refused = CliRunner().invoke(app, ["books", "ask", str(finished.id), QUESTION, "--no-who-did-what"])
    assert refused.exit_code == 2

    script(fake_llm, quoting(POISONED, "Clara Vane poisoned the colonel."))
    labelled = {
        "id": "vane-1",
        "book": Path(finished.source_path).name,
        "question": QUESTION,
        "position": {"chapter": 5},
        "answer_quotes": [{"chapter": 5, "quote": POISONED}],
        "expect": "found",
        "split": "held_out",
    }
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps(labelled) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["books", "eval", str(questions), "--no-who-did-what", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["questions"] == 1
    assert fake_llm.requests and all(RULES not in r.prompt for r in fake_llm.requests)


def test_a_stop_between_two_model_steps_ends_the_answer(finished: library.Book, fake_llm: FakeLLM) -> None:
    """Claims and their checks follow each other with no event between: `stopped` still holds there."""
    script(fake_llm, quoting(POISONED, "Clara Vane poisoned the colonel."))
    asked = iter([False, True])  # before the claims call: go on; before the checks: stop
    answer = ask(finished.id, None, QUESTION, stopped=lambda: next(asked, True))
    assert [stage(r) for r in fake_llm.requests] == ["claims"]
    assert answer.sentences == [] and answer.message.startswith("Stopped")
