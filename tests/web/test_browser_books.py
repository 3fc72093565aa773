"""The reader in real headless Chromium (Debian's): upload, position, ask, Stop, citations,
spoilers, characters and the graph, clicked through as a reader would.

Each test runs its own `lore serve` (a real uvicorn on 127.0.0.1, its own `$LORE_HOME`); answers
with a model come from a real OpenAI-compatible server on 127.0.0.1 (`support.fake_llm`). With
`LORE_SCREENSHOTS=1` the tests save a picture of each view into `docs/img/` for the docs.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lore.books import entities, library
from lore.web import asking
from support.ask_model import quoting, script, stage
from support.books import make_epub, mystery_book, prose_chapter
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401  (the fake_llm fixture)

pytestmark = pytest.mark.e2e
expect = pytest.importorskip("playwright.sync_api").expect

POISONED = "It was Clara Vane who had poisoned the old colonel with arsenic in his tea."
QUESTION = "Who poisoned the old colonel?"
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "img"


def _shot(page, name: str) -> None:
    """A picture for the docs, only when asked for (so a test run leaves the tree as it was)."""
    if os.environ.get("LORE_SCREENSHOTS", "") not in ("", "0"):
        page.screenshot(path=str(IMAGES / name), full_page=False)


@pytest.fixture
def book(tmp_path: Path) -> library.Book:
    return library.add_book(make_epub(tmp_path / "vane.epub", mystery_book()))


def _open(page, ui, book: library.Book | None = None, view: str = "ask") -> None:
    page.goto(ui.url + (f"#books/{book.id}/{view}" if book else "#books"))
    expect(page.locator("#domain-books")).to_be_visible()


def _ask(page, question: str = QUESTION, spoilers: bool = False) -> None:
    page.locator('#ask-form [name="question"]').fill(question)
    if spoilers:
        page.locator("#ask-spoilers").check()
    page.locator("#ask-submit").click()


def _wait(condition, what: str) -> None:
    deadline = time.monotonic() + 30  # an upper bound for a slow machine, not a measurement
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.02)


def test_the_shell_switches_domains_and_keeps_each_in_the_address(page, ui, book) -> None:
    page.goto(ui.url)
    expect(page.locator("#domain-rules")).to_be_visible()
    expect(page.locator("#domain-books")).to_be_hidden()
    page.locator('nav.domains a[data-domain="books"]').click()
    expect(page.locator("#domain-books")).to_be_visible()
    expect(page.locator("#domain-rules")).to_be_hidden()
    expect(page.locator("#book-title")).to_have_text("The Vane Inheritance")
    assert page.url.endswith("#books") and "token" not in page.url
    page.reload()  # the domain is in the address, the token in the tab
    expect(page.locator("#domain-books")).to_be_visible()
    page.locator('nav.domains a[data-domain="history"]').click()
    expect(page.locator("#domain-history")).to_have_js_property("hidden", False)  # its view fills it
    expect(page.locator("#domain-books")).to_be_hidden()
    page.go_back()
    expect(page.locator("#domain-books")).to_be_visible()


def test_upload_shows_its_progress_and_the_book_arrives(page, ui, tmp_path: Path) -> None:
    path = make_epub(tmp_path / "long-vane.epub", mystery_book(chapters=40))
    _open(page, ui)
    expect(page.locator("#no-books")).to_be_visible()
    page.evaluate(
        """() => {
          window.seen = {upload: [], import: []};
          for (const [name, id] of [["upload", "upload-bar"], ["import", "import-bar"]]) {
            const bar = document.getElementById(id);
            new MutationObserver(() => window.seen[name].push(bar.value))
              .observe(bar, {attributes: true, attributeFilter: ["value"]});
          }
        }"""
    )
    page.locator("#upload-file").set_input_files(str(path))
    page.locator("#upload-submit").click()
    expect(page.locator("#status")).to_contain_text("Imported The Vane Inheritance: 40 chapters")
    expect(page.locator("#library .book-link")).to_have_text(["The Vane Inheritance"])
    expect(page.locator("#book-position")).to_have_text("not started")
    seen = page.evaluate("window.seen")
    assert seen["upload"][-1] == 1 and seen["import"][-1] == 1
    assert seen["import"] == sorted(seen["import"])  # the bar only moves forward
    expect(page.locator("#import-stage")).to_have_text("done")
    (stored,) = library.list_books()
    assert stored.chapters == 40 and Path(stored.source_path).name == "long-vane.epub"
    _shot(page, "web-library.png")

    page.locator("#upload-file").set_input_files(
        files=[{"name": "notes.epub", "mimeType": "application/epub+zip", "buffer": b"not a book"}]
    )
    page.locator("#upload-submit").click()
    expect(page.locator("#status.error")).to_be_visible()
    expect(page.locator("#import-stage")).to_have_text("failed")
    assert len(library.list_books()) == 1


def test_set_the_position_by_chapter_percent_or_words(page, ui, book) -> None:
    _open(page, ui, book)
    expect(page.locator("#book-position")).to_have_text("not started")
    page.locator("#position-panel summary").click()
    chapter = page.locator("#position-chapter")
    chapter.locator("select").select_option("2")
    chapter.get_by_role("button", name="Set chapter").click()
    expect(page.locator("#book-position")).to_have_text("chapter 2 of 5")
    assert library.get_book(book.id).position.chapter == 2
    expect(chapter.locator("option")).to_have_text(
        ["not started", "1. Chapter 1", "2. Chapter 2", "Chapter 3", "Chapter 4", "Chapter 5"]
    )  # titles ahead are withheld

    page.locator('#position-at [name="at"]').fill("That evening Clara Vane arrived from Paris")
    page.locator("#position-at").get_by_role("button", name="Find them").click()
    expect(page.locator("#book-position")).to_contain_text("chapter 3 of 5, passage")
    assert library.get_book(book.id).position.chapter == 3

    page.locator('#position-at [name="at"]').fill("Penrose")
    page.locator("#position-at").get_by_role("button", name="Find them").click()
    expect(page.locator("#status.error")).to_contain_text("further on")
    assert library.get_book(book.id).position.chapter == 3  # refused, not guessed

    page.locator('#position-percent [name="percent"]').fill("100")
    page.locator("#position-percent").get_by_role("button", name="Set percent").click()
    expect(page.locator("#book-position")).to_have_text("finished")
    assert library.get_book(book.id).position.chapter == 5


def test_stop_cancels_the_answer_and_the_question_is_asked_once(page, ui, book, fake_llm: FakeLLM) -> None:
    library.set_progress(book.id, "end")
    script(fake_llm, quoting(POISONED, "Clara Vane poisoned the colonel."))
    fake_llm.delay = 1.5  # each model call is slow: Stop lands while the claims are being made
    _open(page, ui, book)
    ask = page.locator("#ask-submit").element_handle()
    _ask(page)
    expect(page.locator("#ask-stop")).to_be_visible()
    expect(page.locator("#ask-submit")).to_be_hidden()
    _wait(lambda: fake_llm.max_in_flight > 0, "the claims request to reach the model")
    stop = page.locator("#ask-stop").element_handle()
    page.locator("#ask-stop").click()
    expect(page.locator("#ask-submit")).to_be_visible()
    expect(page.locator("#ask-stop")).to_be_hidden()
    expect(page.locator("#ask-status")).to_contain_text("Stopped")
    after = page.locator("#ask-submit").element_handle()
    assert page.evaluate(
        "([ask, stop, after]) => ask === after && after !== stop"
        " && stop.type === 'button' && after.type === 'submit'",
        [ask, stop, after],
    )
    _wait(lambda: asking.in_progress() == 0, "the stopped answer's thread to let go")
    assert [stage(r) for r in fake_llm.requests] == ["claims"]  # one question, never asked again
    expect(page.locator("#answer-sentences li")).to_have_count(0)


def test_the_answer_streams_in_and_a_citation_opens_in_context(page, ui, book, fake_llm: FakeLLM) -> None:
    library.set_progress(book.id, "end")
    script(fake_llm, quoting(POISONED, "Clara Vane poisoned the colonel."))
    _open(page, ui, book)
    _ask(page)
    expect(page.locator("#answer-sentences .sentence-text")).to_have_text(
        ["Clara Vane poisoned the colonel."]
    )
    expect(page.locator("#ask-status")).to_contain_text("Checked answer")
    expect(page.locator("#model-note")).to_be_hidden()
    page.locator("#answer-sentences button.cite").click()
    context = page.locator("#context")
    expect(context).to_be_visible()
    expect(page.locator("#context-title")).to_have_text("The Vane Inheritance, chapter 5: Chapter 5")
    expect(context.locator("mark")).to_have_text(POISONED)
    expect(context.locator(".passage.cited")).to_have_count(1)
    assert context.locator(".passage").count() > 1  # with its neighbours
    _shot(page, "web-reader-ask.png")


def test_spoilers_are_shown_for_one_question_only_and_no_model_says_what_one_adds(page, ui, book) -> None:
    library.set_progress(book.id, 2)
    _open(page, ui, book)
    expect(page.locator("#model-note")).to_contain_text("With one (`lore model setup`)")
    _ask(page)
    message = page.locator("#answer-message")
    expect(message).to_contain_text("You haven't reached the part of the book that answers this yet.")
    expect(message).to_contain_text("show spoilers for this question")
    expect(page.locator("#answer-sentences li")).to_have_count(0)

    _ask(page, spoilers=True)
    expect(page.locator("#answer-sentences .sentence-text").first).to_have_text(POISONED)
    expect(page.locator("#ask-spoilers")).not_to_be_checked()  # not sticky
    expect(page.locator("#ask-status")).to_contain_text("(no model)")
    expect(page.locator("#model-note")).to_be_visible()  # what a model would add, said once
    assert page.locator("#domain-books").inner_text().count("lore model setup") == 1
    page.locator("#answer-sentences button.cite").first.click()  # the spoiler's own context
    expect(page.locator("#context mark")).to_have_text(POISONED)

    _ask(page)
    expect(message).to_contain_text("You haven't reached")
    expect(page.locator("#answer-sentences li")).to_have_count(0)
    assert library.get_book(book.id).position.chapter == 2  # the toggle never moves the position


def test_characters_and_the_graph_hold_only_names_under_the_cap(page, ui, book) -> None:
    library.set_progress(book.id, 2)
    _, capped = entities.characters(book.id, limit=500, every=True)
    _, whole = entities.characters(book.id, limit=500, spoilers=True, every=True)
    _, listed = entities.characters(book.id, limit=500)  # the list: names with enough evidence
    hidden = {c.name for c in whole} - {c.name for c in capped}
    assert "Clara Vane" in hidden
    _open(page, ui, book, "characters")
    rows = page.locator("#characters tbody tr")
    expect(rows.first).to_be_visible()
    assert [r.get_attribute("data-name") for r in rows.all()] == [c.name for c in listed]

    page.locator("#reader .tabs").get_by_role("link", name="Relationships").click()
    labels = page.locator("#graph text")
    expect(labels.first).to_be_visible()
    names = labels.all_text_contents()
    assert names and set(names) <= {c.name for c in capped} and not set(names) & hidden


def test_a_real_book_graph_under_the_cap(page, ui, shared_data: Path) -> None:
    scarlet = library.add_book(shared_data / "books" / "a-study-in-scarlet.epub")
    library.set_progress(scarlet.id, 4)
    _, capped = entities.characters(scarlet.id, limit=5000, every=True)
    _, whole = entities.characters(scarlet.id, limit=5000, spoilers=True, every=True)
    hidden = {c.name for c in whole} - {c.name for c in capped}
    assert hidden  # the rest of the book names people a reader at chapter 4 has not met
    _open(page, ui, scarlet, "graph")
    labels = page.locator("#graph text")
    expect(labels.first).to_be_visible()
    names = labels.all_text_contents()
    assert len(names) > 5 and set(names) <= {c.name for c in capped} and not set(names) & hidden
    _shot(page, "web-reader-graph.png")
    page.locator("#reader .tabs").get_by_role("link", name="Characters").click()
    expect(page.locator("#characters tbody tr").first).to_be_visible()
    _shot(page, "web-reader-characters.png")


def test_the_relationship_view_is_readable(page, ui, shared_data: Path) -> None:
    scarlet = library.add_book(shared_data / "books" / "a-study-in-scarlet.epub")
    library.set_progress(scarlet.id, "end")
    edges = entities.graph(scarlet.id, limit=200)["edges"]
    assert len(edges) > 40  # more relationships than the view shows: it keeps the strongest
    _open(page, ui, scarlet, "graph")
    labels = page.locator("#graph text")
    expect(labels.first).to_be_visible()
    boxes = [labels.nth(i).bounding_box() for i in range(labels.count())]
    assert len(boxes) >= 10
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, (a, b)
    lines = page.locator("#graph line")
    assert 0 < lines.count() <= 40
    strongest = max(edges, key=lambda e: e["passages"])
    shown = set(labels.all_text_contents())
    assert {strongest["source_name"], strongest["target_name"]} <= shown
    # grouped by kind: every person's node left of every place's
    xs = page.evaluate(
        """() => [...document.querySelectorAll('#graph g.node')].map(g => [g.getAttribute('class'),
            Number(g.querySelector('circle').getAttribute('cx'))])"""
    )
    people = [x for kind, x in xs if kind == "node person"]
    places = [x for kind, x in xs if kind == "node place"]
    assert people and places and max(people) < min(places)


def test_book_text_is_shown_as_text_never_run(page, ui, tmp_path: Path) -> None:
    sneaky = 'The note said <img src=x onerror="window.owned=1"> and <b>nothing</b> more about the colonel.'
    spec = mystery_book()
    spec.chapters[0] = prose_chapter(1, [sneaky])
    hostile = library.add_book(make_epub(tmp_path / "hostile.epub", spec))
    library.set_progress(hostile.id, "end")
    _open(page, ui, hostile)
    _ask(page, "What did the note say about the colonel?")
    sentence = page.locator("#answer-sentences .sentence-text", has_text="The note said")
    expect(sentence).to_have_text(sneaky)
    sentence.locator("xpath=..").locator("button.cite").click()
    expect(page.locator("#context mark")).to_have_text(sneaky)
    assert page.locator("#answer img, #answer b, #context img, #context b").count() == 0
    assert page.evaluate("window.owned") is None


def _hold_asks(page) -> list:
    """Hold each question's request in the browser until the test lets it go (`continue_`)."""
    held: list = []
    page.route("**/api/books/ask", lambda route: held.append(route))
    return held


def _until_held(page, held: list, n: int) -> None:
    """Until `n` requests were held: the route's handler runs when Playwright reads the browser's
    messages, which each call to the page does. The request is already made, so this ends."""
    for _ in range(1000):
        if len(held) >= n:
            return
        page.evaluate("0")
    raise AssertionError(f"{n} question request(s) never reached the route")


def _focused(page) -> str:
    return page.evaluate("document.activeElement.id || document.activeElement.tagName")


def test_focus_stays_on_the_control_as_ask_turns_into_stop_and_back(page, ui, book) -> None:
    library.set_progress(book.id, "end")
    _open(page, ui, book)
    held = _hold_asks(page)
    page.locator('#ask-form [name="question"]').fill(QUESTION)
    page.locator("#ask-submit").focus()
    page.keyboard.press("Enter")  # Ask, from the keyboard
    _until_held(page, held, 1)
    expect(page.locator("#ask-stop")).to_be_focused()
    assert _focused(page) == "ask-stop"
    held[0].continue_()
    expect(page.locator("#answer-sentences .sentence-text").first).to_have_text(POISONED)
    expect(page.locator("#ask-submit")).to_be_focused()
    assert _focused(page) == "ask-submit"

    page.keyboard.press("Enter")  # the same question again, then Stop from the keyboard
    _until_held(page, held, 2)
    expect(page.locator("#ask-stop")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#ask-status")).to_contain_text("Stopped")
    expect(page.locator("#ask-submit")).to_be_focused()
    assert _focused(page) == "ask-submit"


def test_ctrl_enter_in_the_question_asks_it(page, ui, book) -> None:
    library.set_progress(book.id, "end")
    _open(page, ui, book)
    question = page.locator('#ask-form [name="question"]')
    question.fill(QUESTION)
    question.press("Control+Enter")
    expect(page.locator("#answer-sentences .sentence-text").first).to_have_text(POISONED)
    expect(question).to_be_focused()  # the words stay where they were typed
    expect(question).to_have_value(QUESTION)  # a question asked, not a new line added to it
