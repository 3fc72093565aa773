"""Book search with `LORE_EMBED=minilm-onnx`: the real packaged ONNX MiniLM embeds the passages,
puts the passage answering a question that shares no word with it nearest, and the reader's cap
still holds. (Its whole-passage cosine for a one-sentence answer stays under the relevance
floor, which is why the words still decide most of what search shows: docs/books.md, Search.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lore.books import library, search
from lore.books.passage_vectors import embedder, vector_search
from lore.books.store import books_store
from lore.books.store.records import PassageRow
from lore.core.embed.onnx_minilm import OnnxMiniLMEmbedder, onnx_installed
from support.books import BookSpec, make_epub, prose_chapter

pytestmark = pytest.mark.skipif(
    not onnx_installed() and not os.environ.get("LORE_CI"),
    reason="the onnx extra is not installed here; CI fails instead",
)

ANSWER = "The physician admitted at last that he had slipped arsenic into his brother's brandy."
QUESTION = "Which doctor killed a sibling with poison?"


@pytest.fixture
def book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> library.Book:
    monkeypatch.setenv("LORE_EMBED", "minilm-onnx")
    spec = BookSpec(chapters=[prose_chapter(n, [ANSWER] if n == 4 else None) for n in range(1, 6)])
    return library.add_book(make_epub(tmp_path / "physician.epub", spec))


def test_the_question_shares_no_word_with_its_answer() -> None:
    asked = {w.strip("?").lower() for w in QUESTION.split()}
    said = {w.strip(".'s").lower() for w in ANSWER.split()}
    assert asked & said <= {"a", "with", "his"}


def _nearest(book: library.Book, k: int) -> list[PassageRow]:
    """The passages MiniLM's vectors put nearest the question, under the reader's cap."""
    db = books_store()
    caps = library.caps_for([library.get_book(book.id)])
    hits = vector_search(db.store, caps, QUESTION, k)
    rows = {r.id: r for r in db.passages_by_id(caps, [int(h.key) for h in hits])}
    return [rows[int(h.key)] for h in hits]


def test_minilm_puts_the_paraphrased_answer_nearest(book: library.Book) -> None:
    library.set_progress(book.id, "end")
    assert embedder().name == OnnxMiniLMEmbedder.name
    assert ANSWER in _nearest(book, 3)[0].text


def test_the_cap_holds_with_minilm(book: library.Book) -> None:
    library.set_progress(book.id, 3)
    nearest = _nearest(book, 10)
    assert nearest and all(r.chapter_seq <= 3 for r in nearest)
    assert not any(ANSWER in r.text for r in nearest)
    result = search.search_book(book.id, QUESTION, k=5)
    assert result.embedder == OnnxMiniLMEmbedder.name
    assert all(h.chapter <= 3 for h in result.hits)
    assert not any(ANSWER in h.text for h in result.hits)
