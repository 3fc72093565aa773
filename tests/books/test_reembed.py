"""Switching embedders: every book is re-embedded once, on first use, and one search never mixes
the vectors of two models; a process killed half-way leaves the store whole and the next run
finishes the job."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from lore.books import library, passage_vectors
from lore.books.passage_vectors import COLLECTION, ensure_current, stale_books
from lore.books.search import search_book, search_series
from lore.books.store import books_store
from lore.cli.app import app
from lore.core.embed import HashEmbedder, get_embedder
from lore.core.embed.wordllama import WordLlamaEmbedder
from lore.core.llm import totals
from lore.core.store.open import forget_stores, open_store
from lore.core.vectors import VectorIndex, VectorSpace, collections
from support.books import BookSpec, make_epub, mystery_book

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

WORDLLAMA = WordLlamaEmbedder.name


def vector_counts(book_id: int) -> dict[str, int]:
    """How many vectors each embedder holds for one book."""
    out = {}
    for entry in collections():
        if entry["collection"] == COLLECTION:
            index = VectorIndex(COLLECTION, VectorSpace(entry["embedder"], entry["dim"]))
            n = index.count(where={"book_id": book_id})
            if n:
                out[entry["embedder"]] = n
    return out


def generation(model: str) -> int:
    return VectorIndex(COLLECTION, VectorSpace(model, 0)).rows.generation(COLLECTION, model)


def second_book(tmp_path: Path, name: str = "second") -> Path:
    spec: BookSpec = mystery_book()
    spec.title = f"The {name.title()} Ledger"
    spec.chapters[0].paragraphs.append("A striped zebra wandered through the orchard at noon.")
    return make_epub(tmp_path / f"{name}.epub", spec)


def in_series(*books: library.Book) -> None:
    db = books_store()
    with db.transaction():
        conn = db.store.connect()
        for b in books:  # the CLI has no series setter for an imported book; this is the store's own row
            conn.execute("UPDATE books SET series = 'Test Series' WHERE id = ?", (b.id,))


def test_a_model_switch_re_embeds_each_book_once_and_drops_the_old_vectors(
    mystery: library.Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.set_progress(mystery.id, "end")
    assert vector_counts(mystery.id) == {"hash-ngram-v1": mystery.passages}

    monkeypatch.setenv("LORE_EMBED", "wordllama")
    assert stale_books(open_store(), [mystery.id]) == [mystery.id]
    first = search_book(mystery.id, "who poisoned the colonel?")
    assert first.embedder == WORDLLAMA
    assert vector_counts(mystery.id) == {WORDLLAMA: mystery.passages}  # the hash vectors are gone
    written = generation(WORDLLAMA)  # bumped by every write of that model's vectors

    second = search_book(mystery.id, "who arrested her at the station?")
    assert second.embedder == WORDLLAMA
    assert generation(WORDLLAMA) == written  # nothing embedded or stored again
    assert stale_books(open_store(), [mystery.id]) == []
    # a fresh process finds nothing to do either: what is current is read from the store
    code = (
        "from lore.books.passage_vectors import ensure_current;"
        "from lore.core.store import open_store;"
        f"print(ensure_current(open_store(), [{mystery.id}]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"


def test_one_search_never_mixes_two_models(
    mystery: library.Book, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two books, one embedded by each model: a search over both compares the question with
    vectors of the current model only, every score being that model's cosine of the passage."""
    monkeypatch.setenv("LORE_EMBED", "wordllama")
    other = library.add_book(second_book(tmp_path))
    assert vector_counts(mystery.id) == {"hash-ngram-v1": mystery.passages}
    assert vector_counts(other.id) == {WORDLLAMA: other.passages}
    in_series(mystery, other)
    for b in (mystery, other):
        library.set_progress(b.id, "end")

    store = open_store()
    caps = [library.cap_for(library.get_book(b.id)) for b in (mystery, other)]
    hits = passage_vectors.vector_search(store, caps, "the colonel was poisoned with arsenic", 40)
    assert {h.meta["book_id"] for h in hits} == {mystery.id, other.id}
    model = WordLlamaEmbedder()
    texts = {r.id: r.text for b in (mystery, other) for r in books_store().passages_for_embedding(b.id)}
    query = model.embed_query("the colonel was poisoned with arsenic")
    for hit in hits:
        expected = float(model.embed([texts[int(hit.key)]])[0] @ query)
        assert hit.score == pytest.approx(expected, abs=1e-5)
    assert vector_counts(mystery.id) == {WORDLLAMA: mystery.passages}

    result = search_series("Test Series", "who poisoned the colonel?")
    assert result.embedder == WORDLLAMA and result.hits


def test_a_read_only_store_is_searched_without_the_old_vectors(
    mystery: library.Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.set_progress(mystery.id, "end")
    monkeypatch.setenv("LORE_EMBED", "wordllama")
    from lore.core.config import update_settings

    totals()  # the accounting tables exist, as in any store a search has used
    update_settings({"store": {"read_only": True}})
    forget_stores()
    store = open_store()
    assert store.read_only
    caps = [library.cap_for(library.get_book(mystery.id, store=store))]
    assert passage_vectors.vector_search(store, caps, "who poisoned the colonel?", 10) == []
    assert vector_counts(mystery.id) == {"hash-ngram-v1": mystery.passages}  # nothing written
    result = search_book(mystery.id, "who poisoned the colonel?", store=store)  # words still work
    assert result.embedder == WORDLLAMA and result.hits


def test_reindex_with_no_book_embeds_only_the_stale_ones(
    mystery: library.Book, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_EMBED", "wordllama")
    other = library.add_book(second_book(tmp_path))
    done, count = library.reindex_stale()
    assert [b.id for b in done] == [mystery.id] and count == mystery.passages
    assert library.reindex_stale() == ([], 0)
    assert vector_counts(other.id) == {WORDLLAMA: other.passages}


_KILLER = """
import os, signal, sys
from lore.books import passage_vectors
from lore.core.embed import HashEmbedder
from lore.core.store.open import open_store

class DiesOnZebra(HashEmbedder):
    '''A hash embedder under its own name that kills its process on the second book's text.'''

    def __init__(self):
        super().__init__()
        self.name = "hash-renamed"

    def _embed_batch(self, texts):
        if any("zebra" in t for t in texts):
            os.kill(os.getpid(), signal.SIGKILL)
        return super()._embed_batch(texts)

passage_vectors._embedders["hash-renamed"] = DiesOnZebra()
passage_vectors.ensure_current(open_store(), [int(a) for a in sys.argv[1:]])
print("not killed")
"""


class Renamed(HashEmbedder):
    """The hash embedder under another name: a model switch whose vectors are reproducible."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "hash-renamed"


def test_a_re_embed_killed_half_way_leaves_the_store_whole_and_resumes(
    mystery: library.Book, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = library.add_book(second_book(tmp_path))
    env = {**os.environ, "LORE_EMBED": "hash-renamed"}
    killed = subprocess.run(
        [sys.executable, "-c", _KILLER, str(mystery.id), str(other.id)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert "not killed" not in killed.stdout

    forget_stores()
    store = open_store()
    if store.dialect == "sqlite":  # a PostgreSQL server keeps its own pages whole
        assert store.connect().execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # the first book switched whole, the second not at all
    assert vector_counts(mystery.id) == {"hash-renamed": mystery.passages}
    assert vector_counts(other.id) == {"hash-ngram-v1": other.passages}

    monkeypatch.setenv("LORE_EMBED", "hash-renamed")
    monkeypatch.setitem(passage_vectors._embedders, "hash-renamed", Renamed())
    assert stale_books(store, [mystery.id, other.id]) == [other.id]
    assert ensure_current(store, [mystery.id, other.id]) == other.passages  # only what was left
    assert vector_counts(other.id) == {"hash-renamed": other.passages}
    assert ensure_current(store, [mystery.id, other.id]) == 0
    # and the vectors are the ones a clean run makes
    index = VectorIndex(COLLECTION, Renamed(), store)
    row = books_store(store).passages_for_embedding(other.id)[0]
    hit = index.search(Renamed().embed([row.text])[0], k=1, where={"book_id": other.id})[0]
    assert hit.key == str(row.id) and hit.score == pytest.approx(1.0, abs=1e-5)


def test_the_progress_bar_goes_to_stderr_never_stdout(
    mystery: library.Book, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LORE_EMBED", "hash-renamed")
    monkeypatch.setitem(passage_vectors._embedders, "hash-renamed", Renamed())
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich draws the bar only on what it takes for a terminal
    capsys.readouterr()
    assert ensure_current(open_store(), [mystery.id], progress=True) == mystery.passages
    out, err = capsys.readouterr()
    assert out == ""
    assert "embedding 1 book(s) with hash-renamed" in err


def test_vectors_stay_unit_and_of_the_new_dimension(
    mystery: library.Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_EMBED", "wordllama")
    ensure_current(open_store(), [mystery.id])
    index = VectorIndex(COLLECTION, get_embedder())
    hits = index.search(
        np.ones(index.dim, dtype=np.float32), k=mystery.passages, where={"book_id": mystery.id}
    )
    assert index.dim == 256 and len(hits) == mystery.passages


def test_the_reindex_command_embeds_the_stale_books_once(
    mystery: library.Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    monkeypatch.setenv("LORE_EMBED", "hash-renamed")
    monkeypatch.setitem(passage_vectors._embedders, "hash-renamed", Renamed())
    first = runner.invoke(app, ["books", "reindex", "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout) == {
        "books": [mystery.id],
        "passages": mystery.passages,
        "embedder": "hash-renamed",
    }
    again = runner.invoke(app, ["books", "reindex"])
    assert again.exit_code == 0 and "nothing to embed" in again.stdout
