"""The model layer, against a real OpenAI-compatible server on 127.0.0.1 (tests/support/fake_llm).

The fake model answers each chapter of the mystery book with recorded-shape JSON, including
one invented quote, so the tests see verification, resolution, identities, the cap and the
accounting work on what a real provider would send.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from lore.books import entities, library
from lore.books import store as sql
from lore.books.model import extract as model_extract
from lore.cli.app import app
from lore.core.errors import NeedsModel, NotFound
from lore.core.llm import totals_by_subject
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401  (the fake_llm fixture)

FACTS = {
    1: {
        "entities": [
            {
                "name": "Mr. Arthur Penrose",
                "kind": "character",
                "aliases": [],
                "description": "A man who walks out alone.",
                "quote": "Mr. Arthur Penrose walked out alone",
            },
            {
                "name": "Thornfield Lodge",
                "kind": "place",
                "aliases": ["the lodge"],
                "description": "Where Penrose lives.",
                "quote": "Penrose lived at Thornfield Lodge",
            },
        ],
        "relations": [
            {
                "source": "Penrose",
                "target": "Thornfield Lodge",
                "relation": "lives at",
                "quote": "Penrose lived at Thornfield Lodge",
            }
        ],
    },
    2: {
        "entities": [
            {
                "name": "Inspector Gideon Hale",
                "kind": "character",
                "aliases": ["Hale"],
                "description": "A police inspector.",
                "quote": "Inspector Gideon Hale",
            },
            {
                "name": "the veiled woman",
                "kind": "character",
                "aliases": [],
                "description": "A woman seen near the lodge at night.",
                "quote": "A veiled woman was seen near the lodge at midnight",
            },
            {
                "name": "Penrose",
                "kind": "character",
                "aliases": [],
                "description": "Penrose owns a yacht.",
                "quote": "Penrose sailed his yacht to Calais",
            },
        ],
        "relations": [
            {
                "source": "Penrose",
                "target": "Hale",
                "relation": "spoke with",
                "quote": "Penrose spoke with Inspector Gideon Hale",
            }
        ],
    },
    3: {
        "entities": [
            {
                "name": "Clara Vane",
                "kind": "character",
                "aliases": [],
                "description": "Arrives from Paris.",
                "quote": "Clara Vane arrived from Paris",
            }
        ],
        "relations": [
            {
                "source": "Clara Vane",
                "target": "Penrose",
                "relation": "argued with",
                "quote": "Clara Vane and Penrose argued in the library",
            }
        ],
    },
    4: {},
    5: {
        "entities": [
            {
                "name": "Clara Vane",
                "kind": "character",
                "aliases": ["the veiled woman"],
                "description": "The poisoner of the colonel.",
                "quote": "It was Clara Vane who had poisoned the old colonel",
            }
        ],
        "identities": [
            {
                "name": "the veiled woman",
                "identified_as": "Clara Vane",
                "quote": "The veiled woman had been Clara Vane herself",
            }
        ],
    },
}


def _replier(book_facts: dict[int, dict]):
    def reply(request) -> dict:
        """The facts for the chapter in the prompt, each citing the [Pn] passage holding its quote."""
        prompt = request.last_user
        chapter = int(re.search(r"opening of chapter (\d+)", prompt).group(1))
        blocks = dict(
            (int(n), text)
            for n, text in re.findall(r"\[P(\d+)\] (.*?)(?=\n\n\[P\d+\]|\n</book_text>)", prompt, re.S)
        )

        def cite(item: dict) -> dict:
            where = next((n for n, text in blocks.items() if item["quote"] in text), 1)
            return {**item, "passage": where}

        facts = book_facts[chapter]
        return {
            key: [cite(item) for item in facts.get(key, [])]
            for key in ("entities", "relations", "identities")
        }

    return reply


_reply = _replier(FACTS)


@pytest.fixture
def extracted(fake_llm: FakeLLM, mystery: library.Book):
    fake_llm.reply(lambda req: "<book_text>" in req.last_user, _reply)
    report = model_extract.extract_book(mystery.id)
    return mystery, report


def test_extraction_keeps_verified_items_and_counts_the_model_use(extracted, fake_llm: FakeLLM) -> None:
    book, report = extracted
    assert report.chunks == 5 and fake_llm.count("chat") == 5 and report.failed_chunks == 0
    assert report.rejected == 1  # the yacht: its quote is not in the passage it cites
    assert report.identities == 1 and report.relations == 3
    assert report.usage["calls"] == 5 and report.usage["prompt_tokens"] > 0
    assert totals_by_subject("book:")[f"book:{book.id}"].calls == 5
    conn = sql.books_store().store.connect()
    chapters = {
        r[0]: r[1]
        for r in conn.execute("SELECT chapter_seq, text FROM book_chapters WHERE book_id = ?", (book.id,))
    }
    quotes = conn.execute(
        "SELECT chapter_seq, quote, quote_start, quote_end FROM book_model_facts"
        " UNION ALL SELECT chapter_seq, quote, quote_start, quote_end"
        " FROM book_model_relations"
    ).fetchall()
    assert quotes and all(chapters[c][a:b] == q for c, q, a, b in quotes)
    assert not any("yacht" in q for _, q, _, _ in quotes)


def test_a_second_run_is_answered_by_the_cache(extracted, fake_llm: FakeLLM) -> None:
    book, first = extracted
    again = model_extract.extract_book(book.id)
    assert fake_llm.count("chat") == 5  # no new request reached the server
    assert (again.entities, again.relations, again.identities) == (
        first.entities,
        first.relations,
        first.identities,
    )
    assert again.usage["cache_hits"] == 5


def test_short_and_full_names_become_one_entity(extracted) -> None:
    book, _ = extracted
    library.set_progress(book.id, "end")
    _, found = entities.characters(book.id)
    names = [e.name for e in found]
    assert names.count("Mr. Arthur Penrose") == 1 and "Penrose" not in names
    penrose = entities.profile(book.id, "Penrose")
    assert penrose["source"] == "model" and penrose["name"] == "Mr. Arthur Penrose"
    assert {r["kind"] for r in penrose["relations"]} == {"lives at", "spoke with", "argued with"}
    assert all(f["quote"] for f in penrose["facts"])


def test_an_identity_is_an_edge_from_the_reveal_never_a_merge(extracted) -> None:
    book, _ = extracted
    library.set_progress(book.id, 4)
    _, found = entities.characters(book.id)
    names = {e.name for e in found}
    assert {"the veiled woman", "Clara Vane"} <= names
    assert "IDENTIFIED_AS" not in {e["kind"] for e in entities.graph(book.id)["edges"]}
    veiled = entities.profile(book.id, "the veiled woman")
    assert veiled["relations"] == []

    library.set_progress(book.id, 5)
    _, found = entities.characters(book.id)
    assert {"the veiled woman", "Clara Vane"} <= {e.name for e in found}  # still two entities
    edges = [e for e in entities.graph(book.id)["edges"] if e["kind"] == "IDENTIFIED_AS"]
    assert [(e["source_name"], e["target_name"], e["chapter"]) for e in edges] == [
        ("the veiled woman", "Clara Vane", 5)
    ]


def test_the_model_layer_is_capped_like_everything_else(extracted) -> None:
    book, _ = extracted
    library.set_progress(book.id, 2)
    _, found = entities.characters(book.id)
    assert all(e.first_chapter <= 2 for e in found)
    assert not any("Clara" in e.name or "Clara" in " ".join(e.aliases) for e in found)
    assert entities.autocomplete(book.id, "Cla") == []
    graph = entities.graph(book.id)
    assert all(e["chapter"] <= 2 for e in graph["edges"])
    penrose = entities.profile(book.id, "Penrose")
    assert all(r["chapter"] <= 2 for r in penrose["relations"])
    assert "argued with" not in {r["kind"] for r in penrose["relations"]}
    library.set_progress(book.id, 0)
    assert entities.characters(book.id)[1] == []
    # the deterministic names stay available beside the model layer
    library.set_progress(book.id, 2)
    assert entities.characters(book.id, source="names")[1][0].source == "names"


def test_a_failing_chunk_is_counted_and_the_rest_is_kept(
    fake_llm: FakeLLM, mystery: library.Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "1")
    fake_llm.reply(lambda req: "<book_text>" in req.last_user, _reply)
    fake_llm.fail("500", times=10, match="opening of chapter 3,")
    report = model_extract.extract_book(mystery.id)
    assert report.failed_chunks == 1 and report.chunks == 5
    library.set_progress(mystery.id, "end")
    assert "Clara Vane" in {e.name for e in entities.characters(mystery.id)[1]}  # named in ch 5 too


def test_without_a_model_extraction_says_what_it_needs(mystery: library.Book) -> None:
    with pytest.raises(NeedsModel, match="LORE_MODEL"):
        model_extract.extract_book(mystery.id)
    result = CliRunner().invoke(app, ["books", "extract", str(mystery.id)])
    assert result.exit_code == 5 and "LORE_MODEL" in result.stderr
    shown = CliRunner().invoke(app, ["books", "show", str(mystery.id), "--json"])
    assert '"calls": 0' in shown.stdout


def test_the_cli_runs_extraction_and_shows_the_model_layer(fake_llm: FakeLLM, mystery: library.Book) -> None:
    fake_llm.reply(lambda req: "<book_text>" in req.last_user, _reply)
    runner = CliRunner()
    done = runner.invoke(app, ["books", "extract", str(mystery.id)])
    assert done.exit_code == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "1 identities" in out and "1 dropped" in out and "5 model calls" in out
    runner.invoke(app, ["books", "progress", str(mystery.id), "end"])
    shown = runner.invoke(app, ["books", "profile", str(mystery.id), "Clara Vane"])
    assert shown.exit_code == 0 and "poisoned the old colonel" in " ".join(shown.stdout.split())
    graph = runner.invoke(app, ["books", "graph", str(mystery.id)])
    assert graph.exit_code == 0 and "IDENTIFIED_AS" in graph.stdout
    show = runner.invoke(app, ["books", "show", str(mystery.id)])
    assert "model use: 5 model calls" in " ".join(show.stdout.split())


# A model that knows the book: in chapter 2 it already calls the veiled woman "Clara Vane" (a
# name the text gives in chapter 3; the reveal is in chapter 5), adds an alias the book never
# uses, links her to the lodge, and in chapter 3 pins her on the chapter's opening passage.
KNOWING = {
    **FACTS,
    2: {
        "entities": [
            FACTS[2]["entities"][0],
            {
                "name": "Clara Vane",
                "kind": "character",
                "aliases": ["the veiled woman", "the Paris poisoner"],
                "description": "A woman seen near the lodge at night.",
                "quote": "A veiled woman was seen near the lodge at midnight",
            },
        ],
        "relations": [
            *FACTS[2]["relations"],
            {
                "source": "Clara Vane",
                "target": "Thornfield Lodge",
                "relation": "watched",
                "quote": "A veiled woman was seen near the lodge at midnight",
            },
        ],
    },
    3: {
        "entities": [
            {
                "name": "Clara Vane",
                "kind": "character",
                "aliases": [],
                "description": "A guest of the house.",
                "quote": "This is the opening of chapter 3",
            },
            *FACTS[3]["entities"],
        ],
        "relations": FACTS[3]["relations"],
    },
}


@pytest.fixture
def knowing(fake_llm: FakeLLM, mystery: library.Book):
    fake_llm.reply(lambda req: "<book_text>" in req.last_user, _replier(KNOWING))
    return mystery, model_extract.extract_book(mystery.id)


def _everything_named(book_id: int) -> set[str]:
    _, found = entities.characters(book_id, limit=500)
    graph = entities.graph(book_id, limit=500)
    return (
        {e.name for e in found}
        | {a for e in found for a in e.aliases}
        | {n["name"] for n in graph["nodes"]}
        | {e[k] for e in graph["edges"] for k in ("source_name", "target_name")}
    )


def test_names_the_text_has_not_given_yet_stay_hidden(knowing) -> None:
    book, report = knowing
    assert report.rejected == 1  # the relation standing on a name the text gives later
    assert report.names_set_aside == 3  # Clara Vane twice (chapter 2), the Paris poisoner
    library.set_progress(book.id, 2)
    assert not any("Clara" in n or "Vane" in n or "Paris" in n for n in _everything_named(book.id))
    assert entities.autocomplete(book.id, "Cl") == [] and entities.autocomplete(book.id, "Va") == []
    with pytest.raises(NotFound):
        entities.profile(book.id, "Clara Vane")
    veiled = entities.profile(book.id, "the veiled woman")
    assert veiled["aliases"] == [] and veiled["relations"] == []
    assert [f["text"] for f in veiled["facts"]] == ["A woman seen near the lodge at night."]
    runner = CliRunner()
    for args in (
        ["characters", str(book.id)],
        ["names", str(book.id), "Cl"],
        ["graph", str(book.id)],
        ["profile", str(book.id), "the veiled woman"],
    ):
        shown = runner.invoke(app, ["books", *args])
        assert shown.exit_code == 0 and "Clara" not in shown.stdout, (args, shown.stdout)


def test_a_name_known_later_is_not_linked_to_what_came_before(knowing) -> None:
    book, _ = knowing
    for chapter in (3, 4):
        library.set_progress(book.id, chapter)
        clara = entities.profile(book.id, "Clara Vane")
        veiled = entities.profile(book.id, "the veiled woman")
        assert clara["id"] != veiled["id"] and clara["first_chapter"] == 3
        assert "the veiled woman" not in clara["aliases"] and "Clara Vane" not in veiled["aliases"]
        assert all(f["chapter"] == 3 for f in clara["facts"])
        assert "watched" not in {r["kind"] for r in clara["relations"]}
    library.set_progress(book.id, 5)
    edges = [e for e in entities.graph(book.id)["edges"] if e["kind"] == "IDENTIFIED_AS"]
    assert [(e["source_name"], e["target_name"], e["chapter"]) for e in edges] == [
        ("the veiled woman", "Clara Vane", 5)
    ]
    library.set_progress(book.id, "end")
    assert "the Paris poisoner" not in _everything_named(book.id)  # the book never says it


def test_a_name_is_known_from_the_passage_that_gives_it(knowing) -> None:
    book, _ = knowing
    conn = sql.books_store().store.connect()
    first = conn.execute(
        "SELECT MIN(passage_seq) FROM book_passages WHERE book_id = ? AND chapter_seq = 3"
        " AND text LIKE '%Clara Vane%'",
        (book.id,),
    ).fetchone()[0]
    assert first > 1  # the model cited the chapter's opening passage, which does not name her
    library.set_progress(book.id, 3, passage=first - 1)
    assert entities.autocomplete(book.id, "Cla") == [] and entities.characters(book.id)[1]
    library.set_progress(book.id, 3, passage=first)
    assert entities.autocomplete(book.id, "Cla") == ["Clara Vane"]
    assert entities.autocomplete(book.id, "vANE") == ["Clara Vane"]  # in any case
