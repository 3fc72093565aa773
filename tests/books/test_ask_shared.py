"""`lore books ask` on the shared books: the seed's golden question, and no prompt past the cap."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from lore.books import store as sql
from lore.books.ask import ask
from lore.books.ask.evaluate import Metrics, evaluate, sign_test
from lore.books.ask.records import Sentence
from lore.books.library import open_books
from lore.books.store.cap import Cap
from support.ask_model import passages, quoting, script, stage
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401  (the fake_llm fixture)

SCARLET = "a-study-in-scarlet.epub"
NAMING = "Jefferson Hope, the murderer of Enoch Drebber"
QUESTIONS = Path(__file__).parents[2] / "bench" / "data" / "book_questions.jsonl"
_NAMES = re.compile(r"Names the reader has met: (.*?)\.(?: Seen together|\n|$)")


def test_golden_who_is_the_killer(shared, fake_llm: FakeLLM) -> None:
    folder, lib = shared
    book = lib.book(folder, SCARLET)
    script(fake_llm, quoting(NAMING, "Jefferson Hope is the murderer of Enoch Drebber."))
    early = ask(book.id, None, "Who is the killer?", position=(4, None), store=lib.store)
    assert early.verdict == "not_reached" and early.sentences == []
    assert early.message == "You haven't reached the part of the book that answers this yet."
    assert "Jefferson" not in json.dumps(early.as_dict())
    assert fake_llm.count() == 0  # nothing at all, so nothing past chapter 4, reached the model

    later = ask(book.id, None, "Who is the killer?", position=(7, None), store=lib.store)
    assert later.verdict == "found" and later.mode == "model"
    cited = [c for s in later.sentences for c in s.citations]
    assert cited and cited[0].chapter == 7 and NAMING in cited[0].quote
    sent = [p for r in fake_llm.requests for p in passages(r).values()]
    assert sent and all(chapter <= 7 for chapter, _ in sent)

    plain = ask(book.id, None, "Who is the killer?", position=(7, None), use_model=False, store=lib.store)
    assert any(
        "Jefferson Hope, the murderer" in c.quote and c.chapter == 7
        for s in plain.sentences
        for c in s.citations
    )


def _visible(db: sql.BooksStore, book_id: int, chapter: int, passage: int | None) -> list[str]:
    return [
        p.text
        for p in db.chapter_passages(book_id)
        if p.chapter_seq < chapter
        or (p.chapter_seq == chapter and (passage is None or p.passage_seq <= passage))
    ]


def test_nothing_past_the_cap_reaches_the_model(shared, fake_llm: FakeLLM) -> None:
    """Random caps and questions over real books; checked on what the model server received."""
    folder, lib = shared
    rng = random.Random(2024)
    labelled = [
        json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    generic = [
        "Who is the killer?",
        "Who is Holmes and where does he live?",
        "What happened to the treasure?",
    ]

    def first_sentence(held):  # a model that claims the opening words of the first passage it is given
        if not held:
            return []
        n = min(held)
        words = held[n][1].split()[:8]
        return [{"text": "It begins so.", "passage": n, "quote": " ".join(words)}]

    script(fake_llm, first_sentence)
    db = sql.books_store(lib.store)
    prompts = 0
    for name in (SCARLET, "the-sign-of-the-four.epub"):
        book = lib.book(folder, name)
        for _ in range(8):
            chapter = rng.randint(1, book.chapters)
            count = next(c.passage_count for c in db.chapter_outline(book.id) if c.chapter_seq == chapter)
            passage = rng.choice([None, rng.randint(1, count)])
            question = rng.choice([q["question"] for q in labelled if q["book"] == name] + generic)
            fake_llm.reset()
            answer = ask(book.id, None, question, position=(chapter, passage), store=lib.store)
            seen = _visible(db, book.id, chapter, passage)
            known = set(seen)
            everything = " ".join(seen)
            prompts += sum(1 for r in fake_llm.requests if stage(r) == "claims")
            for request in fake_llm.requests:
                for ch, text in passages(request).values():
                    assert ch <= chapter and text in known, (question, chapter, passage)
                found = _NAMES.search(request.last_user)
                for word in re.findall(r"[A-Z][a-z]+", found.group(1) if found else ""):
                    assert word in everything, (word, chapter, passage)
            for s in answer.sentences:
                for c in s.citations:
                    assert (c.chapter, c.passage) <= (chapter, passage or 1 << 30)
    assert prompts > 0  # the loop did reach the model, not only "not reached yet"


def test_eval_measures_the_held_out_half(shared, tmp_path: Path) -> None:
    folder, lib = shared
    lib.book(folder, SCARLET)
    rows = [line for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if SCARLET in line]
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    report = evaluate(path, split="held_out", store=lib.store)
    held = sum(1 for r in rows if json.loads(r)["split"] == "held_out")
    m = report.metrics["default"]
    assert report.questions == held and m["leaks"] == 0
    assert m["exact_quote_share"] == 1.0 and m["cited_sentence_share"] == 1.0
    assert 0.0 <= m["hit_at_3"] <= 1.0


def test_sign_test() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0
    assert round(sign_test(9, 1), 4) == 0.0215  # 2 * 11/1024
    assert sign_test(1, 9) == sign_test(9, 1)


def test_eval_reads_leaks_in_what_the_answer_says(shared, fake_llm: FakeLLM, tmp_path: Path) -> None:
    """A liar names the murderer in a chapter-4 answer to a question chapter 1 answers: the answer
    withholds it, and the eval's leak figures read the text, not only the citations."""
    folder, lib = shared
    book = lib.book(folder, SCARLET)
    liar = "Stamford introduced Watson to Holmes, who later caught Jefferson Hope."
    script(fake_llm, quoting("said Stamford, introducing us", liar))
    row = {
        "id": "t1",
        "book": SCARLET,
        "question": "Who introduced Watson to Holmes?",
        "position": {"chapter": 4},
        "answer": "Stamford",
        "answer_quotes": [{"chapter": 1, "quote": "said Stamford, introducing us"}],
        "expect": "found",
        "split": "held_out",
    }
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    m = evaluate(path, split="held_out", store=lib.store).metrics["default"]
    assert m["leaks"] == 0 and m["name_leaks"] == 0 and m["answer_leaks"] == 0
    assert not any("Jefferson" in r.prompt for r in fake_llm.requests)  # never sent: the model only knows it

    answer = ask(book.id, None, row["question"], position=(4, None), store=lib.store)
    assert "Jefferson" not in json.dumps(answer.as_dict())

    leaky = Metrics()
    answer.sentences = [Sentence(liar, [])]
    unmet = open_books(lib.store).unmet_forms([Cap(book.id, 4, None)])
    leaky.add(answer, (4, None), set(), "found", unmet=unmet, named=("Stamford",))
    assert leaky.name_leaks == 1 and leaky.named_answers == 1
    early = Metrics()
    early.add(answer, (4, None), set(), "not_reached", unmet=unmet, named=("Stamford",))
    assert early.answer_leaks == 1
