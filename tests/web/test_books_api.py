"""The reader's API through the real app: a real uvicorn on 127.0.0.1, a real SQLite home, a
real EPUB uploaded as a browser sends it, and a real model server on 127.0.0.1 for the answers.

The book is the test mystery: Penrose from chapter 1, Clara Vane first named in chapter 3, the
poisoner revealed in chapter 5.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from lore.books import entities, library
from lore.core.home import ensure_home, lore_home
from lore.web import asking
from support.ask_model import quoting, script, stage
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401  (the fake_llm fixture)
from support.mystery import mystery_epub_fixture as mystery_epub_fixture
from support.mystery import mystery_fixture as mystery_fixture

POISONED = "It was Clara Vane who had poisoned the old colonel with arsenic in his tea."
QUESTION = "Who poisoned the old colonel?"


def _wait_import(client: httpx.Client, job: dict[str, Any]) -> dict[str, Any]:
    while job["state"] == "importing":
        time.sleep(0.05)
        job = client.get(f"/api/books/imports/{job['id']}").json()
    return job


def _events(client: httpx.Client, body: dict[str, Any]) -> list[dict[str, Any]]:
    with client.stream("POST", "/api/books/ask", json=body) as reply:
        assert reply.status_code == 200, reply.read()
        assert reply.headers["content-type"].startswith("application/x-ndjson")
        return [json.loads(line) for line in reply.iter_lines() if line]


def _uploads() -> list[str]:
    folder = lore_home() / "uploads"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def _asked(fake: FakeLLM) -> None:
    """Until the claims request is at the model (held by its delay): Stop lands in the middle of it."""
    deadline = time.monotonic() + 30
    while fake.max_in_flight == 0 and time.monotonic() < deadline:
        time.sleep(0.02)


def _wait_idle() -> None:
    """Until every answer's thread has let go (a stopped one finishes its model call first)."""
    deadline = time.monotonic() + 30
    while asking.in_progress() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert asking.in_progress() == 0


# -- library and upload ------------------------------------------------------------------------


def test_upload_imports_in_the_background_and_keeps_the_file(ui, mystery_epub: Path) -> None:
    with ui.client() as client:
        assert client.get("/api/books").json()["books"] == []
        sent = client.post("/api/books/upload", files={"file": ("vane.epub", mystery_epub.read_bytes())})
        assert sent.status_code == 202 and sent.json()["state"] == "importing"
        job = _wait_import(client, sent.json())
        assert job["state"] == "done" and job["fraction"] == 1.0 and job["error"] is None
        listed = client.get("/api/books").json()
        again = _wait_import(
            client,
            client.post("/api/books/upload", files={"file": ("copy.epub", mystery_epub.read_bytes())}).json(),
        )
    (stored,) = library.list_books()
    assert [b["id"] for b in listed["books"]] == [stored.id] == [job["book"]["id"]]
    assert listed["books"][0]["position"]["label"] == "not started"
    assert Path(stored.source_path) == lore_home() / "uploads" / "vane.epub"
    assert Path(stored.source_path).read_bytes() == mystery_epub.read_bytes()
    assert again["already_present"] is True and again["book"]["id"] == stored.id
    assert _uploads() == ["vane.epub"]  # one copy


def test_a_bad_upload_is_one_line_and_leaves_the_library_as_it_was(ui, mystery: library.Book) -> None:
    with ui.client() as client:
        broken = _wait_import(
            client,
            client.post("/api/books/upload", files={"file": ("broken.epub", b"PK\x03\x04 not a zip")}).json(),
        )
        empty = client.post("/api/books/upload", files={"file": ("empty.epub", b"")})
        not_a_form = client.post("/api/books/upload", content=b"raw bytes")
        no_file = client.post("/api/books/upload", files={"other": ("x.epub", b"abc")})
    assert broken["state"] == "failed" and "\n" not in broken["error"] and broken["error"]
    assert (empty.status_code, empty.json()) == (400, {"error": "empty.epub is empty"})
    assert not_a_form.status_code == 400 and "multipart/form-data" in not_a_form.json()["error"]
    assert no_file.status_code == 400 and "'file'" in no_file.json()["error"]
    assert [b.id for b in library.list_books()] == [mystery.id]
    assert _uploads() == []  # nothing half-written kept


def test_an_upload_over_the_limit_is_refused_as_it_streams(ui, mystery_epub: Path) -> None:
    (ensure_home() / "config.json").write_text(json.dumps({"books": {"max_uncompressed_mb": 0.001}}))
    size = 0.001 * 1024 * 1024
    assert mystery_epub.stat().st_size > size
    with ui.client() as client:
        assert client.get("/api/books").json()["upload_limit"] == int(size)

        def body() -> Iterator[bytes]:  # no Content-Length: the limit must hold on the stream itself
            boundary = b"--lore-test"
            yield boundary + b'\r\nContent-Disposition: form-data; name="file"; filename="vane.epub"\r\n\r\n'
            yield mystery_epub.read_bytes()
            yield b"\r\n" + boundary + b"--\r\n"

        streamed = client.post(
            "/api/books/upload",
            content=body(),
            headers={"Content-Type": "multipart/form-data; boundary=lore-test"},
        )
        declared = client.post(
            "/api/books/upload", files={"file": ("vane.epub", mystery_epub.read_bytes() * 3)}
        )
    for reply in (streamed, declared):
        assert reply.status_code == 413
        assert "upload limit of 0.001 MB" in reply.json()["error"]
        assert "books.max_uncompressed_mb" in reply.json()["error"]
    assert library.list_books() == []
    assert _uploads() == []


def test_the_reader_api_needs_the_token(ui, mystery: library.Book) -> None:
    with ui.client(token="wrong-token-wrong-token") as client:
        for reply in (
            client.get("/api/books"),
            client.post("/api/books/upload", files={"file": ("a.txt", b"text")}),
            client.post("/api/books/ask", json={"book": mystery.id, "question": QUESTION}),
        ):
            assert reply.status_code == 401
    assert _uploads() == []


# -- position ----------------------------------------------------------------------------------


def test_position_by_chapter_percent_or_words(ui, mystery: library.Book) -> None:
    with ui.client() as client:
        by_chapter = client.post(
            f"/api/books/{mystery.id}/position", json={"chapter": 2, "passage": 1}
        ).json()
        assert by_chapter["position"] == {"chapter": 2, "passage": 1, "label": "chapter 2 of 5, passage 1"}
        assert by_chapter["read"] == 0.4
        words = "That evening Clara Vane arrived from Paris"
        by_words = client.post(f"/api/books/{mystery.id}/position", json={"at": words}).json()
        assert by_words["position"]["chapter"] == 3
        by_percent = client.post(f"/api/books/{mystery.id}/position", json={"percent": 100}).json()
        assert by_percent["position"]["label"] == "finished"
        outline = client.get(f"/api/books/{mystery.id}").json()["outline"]
        assert [c["reached"] for c in outline] == [True] * 5

        client.post(f"/api/books/{mystery.id}/position", json={"chapter": 1})
        hidden = client.get(f"/api/books/{mystery.id}").json()["outline"]
        assert hidden[0]["title"] == "Chapter 1" and [c["title"] for c in hidden[1:]] == [None] * 4

        refusals = [
            client.post(f"/api/books/{mystery.id}/position", json={}),
            client.post(f"/api/books/{mystery.id}/position", json={"chapter": 2, "percent": 10}),
            client.post(f"/api/books/{mystery.id}/position", json={"chapter": 9}),
            client.post(f"/api/books/{mystery.id}/position", json={"at": "Penrose"}),  # read and further on
            client.post(f"/api/books/{mystery.id}/position", json={"passage": 2}),
        ]
        missing_words = client.post(f"/api/books/{mystery.id}/position", json={"at": "a purple elephant"})
        missing_book = client.post("/api/books/999/position", json={"chapter": 1})
    assert [r.status_code for r in refusals] == [400] * 5
    ambiguous = refusals[3].json()["error"]
    assert "further on" in ambiguous and "places" not in ambiguous  # never how many ahead
    assert not any(f"chapter {n}" in ambiguous for n in range(2, 6))  # nor where
    assert missing_words.status_code == 404 and missing_book.status_code == 404
    assert library.get_book(mystery.id).position.chapter == 1  # the refusals changed nothing


# -- asking ------------------------------------------------------------------------------------


def test_ask_streams_events_and_holds_the_cap_without_a_model(ui, mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2)
    with ui.client() as client:
        capped = _events(client, {"book": mystery.id, "question": QUESTION})
        spoiled = _events(client, {"book": mystery.id, "question": QUESTION, "spoilers": True})
        after = _events(client, {"book": mystery.id, "question": QUESTION})  # not sticky
        assert client.get("/api/books").json()["model"]["note"].startswith("Without a model")
    assert capped[0]["kind"] == "started" and capped[0]["model"] is False
    assert [e["kind"] for e in capped[1:]] == ["parts", "answer"]
    assert capped[-1]["answer"]["verdict"] == "not_reached" and "Clara" not in json.dumps(capped)
    assert after[-1]["answer"]["verdict"] == "not_reached"
    kinds = [e["kind"] for e in spoiled]
    assert kinds[:3] == ["started", "parts", "evidence"] and kinds[-1] == "answer" and "sentence" in kinds
    answer = spoiled[-1]["answer"]
    assert answer["mode"] == "extractive" and any("model" in n for n in answer["notes"])
    assert any(POISONED in c["quote"] for s in answer["sentences"] for c in s["citations"])


def test_a_bad_question_is_refused_before_the_stream(ui, mystery: library.Book) -> None:
    with ui.client() as client:
        empty = client.post("/api/books/ask", json={"book": mystery.id, "question": "   "})
        long = client.post("/api/books/ask", json={"book": mystery.id, "question": "why " * 200})
        unknown = client.post("/api/books/ask", json={"book": 999, "question": QUESTION})
    assert (empty.status_code, empty.json()) == (400, {"error": "ask a question"})
    assert long.status_code == 400 and "500 characters" in long.json()["error"]
    assert unknown.status_code == 404
    _wait_idle()


def test_stop_ends_the_answer_and_nothing_more_is_asked(ui, mystery: library.Book, fake_llm: FakeLLM) -> None:
    library.set_progress(mystery.id, "end")
    script(fake_llm, quoting(POISONED, "Clara Vane poisoned the colonel."))
    fake_llm.delay = 1.5  # the claims call is still on its way when Stop is pressed
    with (
        ui.client() as client,
        client.stream("POST", "/api/books/ask", json={"book": mystery.id, "question": QUESTION}) as reply,
    ):
        lines = reply.iter_lines()
        seen = []
        for line in lines:
            seen.append(json.loads(line))
            if seen[-1]["kind"] == "evidence":
                break
        _asked(fake_llm)
        stopped = client.post(f"/api/books/ask/{seen[0]['ask']}/stop").json()
        rest = [json.loads(line) for line in lines if line]
    assert stopped == {"ask": seen[0]["ask"], "stopped": True}
    assert [e["kind"] for e in rest] == ["stopped"]  # no claim, sentence or answer after Stop
    _wait_idle()
    assert [stage(r) for r in fake_llm.requests] == ["claims"]  # one question, asked once
    with ui.client() as client:
        assert client.post(f"/api/books/ask/{seen[0]['ask']}/stop").json()["stopped"] is False


def test_a_dropped_stream_stops_the_answer_too(ui, mystery: library.Book, fake_llm: FakeLLM) -> None:
    library.set_progress(mystery.id, "end")
    script(fake_llm, quoting(POISONED, "Clara Vane poisoned the colonel."))
    fake_llm.delay = 1.0
    with (
        ui.client() as client,
        client.stream("POST", "/api/books/ask", json={"book": mystery.id, "question": QUESTION}) as reply,
    ):
        for line in reply.iter_lines():
            if json.loads(line)["kind"] == "evidence":
                _asked(fake_llm)
                break  # the browser closes the tab
    _wait_idle()
    assert [stage(r) for r in fake_llm.requests] == ["claims"]


def test_the_model_answer_streams_and_cut_claims_are_never_shown(
    ui, mystery: library.Book, fake_llm: FakeLLM
) -> None:
    library.set_progress(mystery.id, "end")
    made_up = "The colonel's nephew confessed to the vicar."

    def claims(held: dict[int, tuple[int, str]]) -> list[dict[str, Any]]:
        good = quoting(POISONED, "Clara Vane poisoned the colonel.")(held)
        return [*good, {"text": made_up, "passage": good[0]["passage"], "quote": "he confessed it all"}]

    script(fake_llm, claims)
    with ui.client() as client:
        events = _events(client, {"book": mystery.id, "question": QUESTION})
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "started" and events[0]["model"] is True
    assert "cut" in kinds and "claim" in kinds and kinds[-1] == "answer"
    assert made_up not in json.dumps(events) and "he confessed it all" not in json.dumps(events)
    answer = events[-1]["answer"]
    assert answer["mode"] == "model" and answer["claims"] == {"passed": 1, "cut": 1}
    (sentence,) = answer["sentences"]
    assert sentence["text"] == "Clara Vane poisoned the colonel."
    assert sentence["citations"][0]["quote"] == POISONED


# -- passages, characters, graph ---------------------------------------------------------------


def test_a_passage_in_context_stays_under_the_cap(ui, mystery: library.Book) -> None:
    library.set_progress(mystery.id, "end")
    with ui.client() as client:
        (sentence, *_) = [
            s
            for e in _events(client, {"book": mystery.id, "question": QUESTION})
            if e["kind"] == "sentence"
            for s in [e["sentence"]]
        ]
        cited = sentence["citations"][0]
        full = client.get(f"/api/books/{mystery.id}/passages/{cited['passage_id']}?around=2").json()
        assert full["chapter"] == 5 and full["chapter_title"] == "Chapter 5"
        numbers = [p["passage"] for p in full["passages"]]
        assert cited["passage"] in numbers and len(numbers) == len(set(numbers)) > 1
        assert [p["cited"] for p in full["passages"]].count(True) == 1

        library.set_progress(mystery.id, 5, cited["passage"])  # the cited passage is the last one read
        edge = client.get(f"/api/books/{mystery.id}/passages/{cited['passage_id']}?around=5").json()
        assert max(p["passage"] for p in edge["passages"]) == cited["passage"]

        library.set_progress(mystery.id, 2)
        hidden = client.get(f"/api/books/{mystery.id}/passages/{cited['passage_id']}")
        nowhere = client.get(f"/api/books/{mystery.id}/passages/999999")
        spoiled = client.get(f"/api/books/{mystery.id}/passages/{cited['passage_id']}?spoilers=true")
        too_wide = client.get(f"/api/books/{mystery.id}/passages/{cited['passage_id']}?around=50")
    assert hidden.status_code == nowhere.status_code == 404
    assert hidden.json()["error"].replace(str(cited["passage_id"]), "N") == nowhere.json()["error"].replace(
        "999999", "N"
    )  # "not yet" and "no such passage" read the same
    assert spoiled.status_code == 200 and any(POISONED in p["text"] for p in spoiled.json()["passages"])
    assert too_wide.status_code == 400


def test_characters_and_graph_hold_only_names_under_the_cap(ui, mystery: library.Book) -> None:
    library.set_progress(mystery.id, 2)
    with ui.client() as client:
        listed = client.get(f"/api/books/{mystery.id}/characters?limit=500&every=true").json()["characters"]
        graph = client.get(f"/api/books/{mystery.id}/graph").json()
        profile = client.get(f"/api/books/{mystery.id}/characters/Penrose").json()
        unknown = client.get(f"/api/books/{mystery.id}/characters/Clara Vane")
    names = {c["name"] for c in listed}
    _, expected = entities.characters(mystery.id, limit=500, every=True)
    assert names == {c.name for c in expected} and "Arthur Penrose" in names
    assert not any("Clara" in n or "Vane" in n for n in names)
    assert graph["nodes"] and {n["name"] for n in graph["nodes"]} <= names
    assert all(e["source_name"] in names and e["target_name"] in names for e in graph["edges"])
    assert profile["name"] == "Arthur Penrose"
    assert unknown.status_code == 404 and "part of the book you have read" in unknown.json()["error"]
