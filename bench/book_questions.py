"""The labelled reader questions (`bench/data/book_questions.jsonl`): loading, placing, scoring.

Each question names a shared book, the reader's position when asking (a chapter, optionally a
passage or a percent of that chapter), the verdict a truthful search gives (`found`,
`not_reached`, `not_in_book`) and short verbatim quotes that identify the answering passages.
A quote is located in the imported chapter text (up to case, spacing, quote marks and dashes,
`lore.core.quotes`) and mapped to the passages its span overlaps, so the labels name passages
by what they say, not by ids that change with the passage splitter.

Scoring (`score`): for `found` questions, the share whose answering passage is among the first
three hits of a `found` reply; for each verdict X, of the times search said X, how often X was
false (the false-statement rate; "not reached" when the book never says it, "found" with
nothing relevant, "the book doesn't say" when it does).

The test (`tests/books/test_book_questions.py`) checks the file with the same functions the
benchmark uses, so a broken label fails there before it skews a figure.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.core.quotes import comparable

DATA = Path(__file__).resolve().parent / "data" / "book_questions.jsonl"
BLIND = DATA.with_name("book_questions_blind.jsonl")
VERDICTS = ("found", "not_reached", "not_in_book")
SPLITS = ("dev", "held_out")


@dataclass(frozen=True)
class Quote:
    chapter: int
    quote: str


@dataclass(frozen=True)
class Question:
    id: str
    book: str
    question: str
    chapter: int
    passage: int | None
    percent: float | None
    quotes: tuple[Quote, ...]
    expect: str
    split: str
    answer: str = ""  # the blind set's short answer, and other acceptable forms of it
    aliases: tuple[str, ...] = ()


def load(path: Path = DATA) -> list[Question]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        pos = row["position"]
        out.append(
            Question(
                id=row["id"],
                book=row["book"],
                question=row["question"],
                chapter=int(pos["chapter"]),
                passage=pos.get("passage"),
                percent=pos.get("percent"),
                quotes=tuple(Quote(int(q["chapter"]), q["quote"]) for q in row["answer_quotes"]),
                expect=row["expect"],
                split=row["split"],
                answer=row.get("answer", ""),
                aliases=tuple(row.get("answer_aliases", ())),
            )
        )
    return out


def occurrences(quote: str, text: str) -> list[tuple[int, int]]:
    """Every (start, end) span of `quote` in `text`, compared as `lore.core.quotes` compares."""
    needle, _ = comparable(quote)
    needle = needle.strip(" ")
    hay, where = comparable(text)
    spans, at = [], hay.find(needle)
    while needle and at >= 0:
        spans.append((where[at], where[at + len(needle) - 1] + 1))
        at = hay.find(needle, at + 1)
    return spans


@dataclass
class BookLayout:
    """One imported book as the labels need it: chapter texts and passage spans."""

    book_id: int
    texts: list[str]  # index chapter_seq - 1
    passages: dict[int, list[tuple[int, int, int, int]]]  # chapter -> (id, seq, start, end)

    def passages_of(self, chapter: int, start: int, end: int) -> list[tuple[int, int]]:
        """(passage id, passage seq) of the passages a span of a chapter overlaps."""
        return [(pid, seq) for pid, seq, s, e in self.passages.get(chapter, []) if s < end and start < e]

    def where(self, quote: str) -> list[tuple[int, int, int]]:
        """Every place a quote occurs in the book: (chapter, start, end)."""
        return [(n, s, e) for n, text in enumerate(self.texts, start=1) for s, e in occurrences(quote, text)]

    def position(self, q: Question) -> tuple[int, int | None]:
        """The reader's cap for a question: chapter, and the last visible passage of it."""
        if q.passage is not None:
            return q.chapter, int(q.passage)
        if q.percent is not None:
            count = len(self.passages.get(q.chapter, []))
            return q.chapter, max(1, math.ceil(count * float(q.percent) / 100.0))
        return q.chapter, None


def layout(store: Any, book_id: int) -> BookLayout:
    """Read a book's chapters and passage spans through the books store (no SQL here)."""
    texts = store.chapter_texts(book_id)
    passages: dict[int, list[tuple[int, int, int, int]]] = {}
    for p in store.passage_spans(book_id):
        passages.setdefault(p.chapter_seq, []).append((p.id, p.passage_seq, p.start, p.end))
    return BookLayout(book_id, texts, passages)


def answer_passages(book: BookLayout, q: Question) -> set[int]:
    """The passage ids the question's quotes identify (each quote at its labelled chapter)."""
    ids: set[int] = set()
    for quote in q.quotes:
        for chapter, start, end in book.where(quote.quote):
            if chapter == quote.chapter:
                ids.update(pid for pid, _ in book.passages_of(chapter, start, end))
    return ids


def visible(book: BookLayout, q: Question, chapter: int, start: int, end: int) -> bool:
    """Whether a span lies wholly under the question's cap."""
    cap_chapter, cap_passage = book.position(q)
    if chapter != cap_chapter:
        return chapter < cap_chapter
    return cap_passage is None or all(seq <= cap_passage for _, seq in book.passages_of(chapter, start, end))


@dataclass
class Outcome:
    question: Question
    verdict: str
    top: list[int]  # passage ids of the first hits, best first
    answers: set[int]

    @property
    def hit3(self) -> bool:
        return self.verdict == "found" and bool(self.answers & set(self.top[:3]))


@dataclass
class Scores:
    questions: int = 0
    found: int = 0
    top3: int = 0
    said: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    false: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))

    @property
    def top3_rate(self) -> float:
        return self.top3 / self.found if self.found else 0.0

    def false_rate(self, verdict: str) -> float | None:
        return self.false[verdict] / self.said[verdict] if self.said[verdict] else None


def score(outcomes: Iterable[Outcome]) -> Scores:
    """Top-3 hit rate over `found` questions, and each verdict's false-statement rate.

    A `found` reply is false when the question is not answered by a visible passage (it expected
    another verdict) or when none of its first three hits is an answering passage: it says
    "here is the answer" and the answer is not among what it shows."""
    s = Scores()
    for o in outcomes:
        s.questions += 1
        expect = o.question.expect
        if expect == "found":
            s.found += 1
            s.top3 += o.hit3
        s.said[o.verdict] += 1
        wrong = o.verdict != expect or (o.verdict == "found" and not o.hit3)
        s.false[o.verdict] += wrong
    return s


def by_split(outcomes: list[Outcome]) -> dict[str, Scores]:
    return {split: score(o for o in outcomes if o.question.split == split) for split in SPLITS}


def run(
    questions: list[Question],
    books: dict[str, BookLayout],
    ask: Callable[[BookLayout, Question, tuple[int, int | None]], tuple[str, list[int]]],
) -> list[Outcome]:
    """Ask every question at its position; `ask` returns (verdict, passage ids best first)."""
    out = []
    for q in questions:
        book = books[q.book]
        verdict, top = ask(book, q, book.position(q))
        out.append(Outcome(q, verdict, top, answer_passages(book, q)))
    return out


# --- the benchmark: `lore books ask` without a model, before and after, on both labelled sets ---
#
#     .venv/bin/python bench/book_questions.py [--shared ../shared/data] [--split dev|held_out]
#         [--file bench/data/OTHER.jsonl]   (a given labelled set instead of the two, e.g. a fresh blind one)
#
# For each set and half: the answering passage among search's first three hits, the no-model
# answer holding the labelled answer (the blind set's `answer` or an alias) or citing an answering
# passage, "the book doesn't say" said where the answer was already read (false) and where it lies
# ahead ("not reached" is true there), answers said to be weak, and sentences cut mid-way (ending at
# an initial, a title or a truncation, starting in the middle of one, or holding a heading). The
# baseline is the code of commit BEFORE, run on the same questions in the same run (its `src`
# exported from git into a temporary folder and run in a child process).

BEFORE = "1b2a54c"  # main before the no-model answer picked sentences by the question's type
_END = re.compile(r"[.!?…:—-][”’\"')\]]*$")
_SHORT_END = re.compile(
    r"(?:^|[\s“‘\"(])(?:[A-Z]|Mr|Mrs|Ms|Dr|St|Messrs|Rev|Col|Capt|Gen|Lt|No|Co)\.[”’\"')\]]*$"
)
_HEADING = re.compile(r"\b(?:CHAPTER|Chapter)\s+[IVXLC\d]+\b|\b[A-Z]{2,}(?:\s+[A-Z]{2,}){2,}\b")


def cut(sentence: str) -> bool:
    """Whether a shown sentence is not whole: truncated, ended at an initial or a title, started
    mid-way (in lower case), without an ending, or with a heading glued to it."""
    text = sentence.strip()
    body = text.lstrip("“‘\"'([ ")
    return (
        text.endswith(" …")
        or bool(_SHORT_END.search(text))
        or not _END.search(text)
        or (body[:1].islower())
        or bool(_HEADING.search(text))
    )


def holds(text: str, q: Question) -> bool:
    """Whether an answer's text holds the labelled answer or one of its aliases."""
    hay = comparable(text)[0].casefold()
    return any(comparable(a)[0].casefold().strip() in hay for a in (q.answer, *q.aliases) if a.strip())


def measure(shared: Path, home: Path, splits: list[str], files: list[Path] | None = None) -> dict[str, Any]:
    """Ask every question of both sets (or of `files`) at its position with the code on the path;
    the figures."""
    import os

    os.environ["LORE_HOME"] = str(home)
    os.environ.pop("LORE_EMBED", None)
    from lore.books import library
    from lore.books.ask import ask
    from lore.books.ask.gather import target
    from lore.books.ask.labelled import books_by_file
    from lore.books.search import search_books
    from lore.books.store import books_store
    from lore.core.store.open import forget_stores

    forget_stores()
    db = books_store()
    sets = {f.stem: load(f) for f in files} if files else {"blind": load(BLIND), "older": load(DATA)}
    have = books_by_file(db)
    for name in sorted({q.book for qs in sets.values() for q in qs} - set(have)):
        library.add_book(shared / "books" / name)
    have = books_by_file(db)
    layouts = {name: layout(db, b.id) for name, b in have.items()}
    out: dict[str, Any] = {}
    for set_name, questions in sets.items():
        for split in splits:
            f = dict.fromkeys(
                ("found", "top3", "holds", "cites", "weak", "not_in_book_read", "ahead",
                 "not_in_book_ahead", "not_reached_ahead", "sentences", "cut", "one_sentence", "absent",
                 "absent_not_reached", "not_reached_read"), 0
            )  # fmt: skip
            for q in (q for q in questions if q.split == split):
                book = layouts[q.book]
                cap = book.position(q)
                answer = ask(book.book_id, None, q.question, position=cap, use_model=False, store=db)
                shown = [s.text for s in answer.sentences]
                f["sentences"] += len(shown)
                f["cut"] += sum(cut(s) for s in shown)
                if q.expect == "not_in_book":
                    f["absent"] += 1
                    f["absent_not_reached"] += answer.verdict == "not_reached"
                    continue
                if q.expect != "found":
                    f["ahead"] += 1
                    f["not_in_book_ahead"] += answer.verdict == "not_in_book"
                    f["not_reached_ahead"] += answer.verdict == "not_reached"
                    continue
                f["found"] += 1
                f["not_in_book_read"] += answer.verdict == "not_in_book"
                f["not_reached_read"] += answer.verdict == "not_reached"
                f["weak"] += any("weak" in n.lower() for n in answer.notes)
                f["one_sentence"] += len(shown) == 1
                f["holds"] += bool(q.answer) and holds(" ".join(shown), q)
                answers = answer_passages(book, q)
                f["cites"] += any(c.passage_id in answers for s in answer.sentences for c in s.citations)
                hits = search_books(target(db, book.book_id, position=cap).books, q.question, 3, store=db)
                f["top3"] += hits.verdict == "found" and bool(answers & {h.passage_id for h in hits.hits[:3]})
            out[f"{set_name}/{split}"] = f
    return out


def _row(arm: str, key: str, f: dict[str, int]) -> str:
    n = max(1, f["found"])
    held = f"{f['holds'] / n:.0%}" if not key.startswith("older") else "-"
    return (
        f"| {key} | {arm} | {f['found']} | {f['top3'] / n:.0%} | {held} | {f['cites'] / n:.0%} "
        f'| {f["not_in_book_read"]} ({f["not_in_book_read"] / n:.0%}); "not reached": {f["not_reached_read"]} | {f["not_reached_ahead"]}/{f["ahead"]}'
        f" ({f['not_in_book_ahead']} said doesn't say) | {f['absent_not_reached']}/{f['absent']} "
        f"| {f['one_sentence'] / n:.0%} | {f['weak']} "
        f"| {f['cut']}/{f['sentences']} |"
    )


def _baseline(shared: Path, splits: list[str], files: list[Path]) -> dict[str, Any]:
    """The same measure with the code of BEFORE, in a child process."""
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]
    folder = Path(tempfile.mkdtemp(prefix="lore-bench-before-"))
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", BEFORE, "src"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    env = {**__import__("os").environ, "PYTHONPATH": str(folder / "src")}
    args = [sys.executable, __file__, "--arm", "--shared", str(shared), "--home", str(folder / "home")]
    done = subprocess.run(
        [
            *args,
            *(a for s in splits for a in ("--split", s)),
            *(a for f in files for a in ("--file", str(f))),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data"
    )
    parser.add_argument("--split", action="append", choices=SPLITS, help="a half (repeatable; default dev)")
    parser.add_argument("--home", type=Path, help="a library folder to reuse (the books imported once)")
    parser.add_argument(
        "--arm", action="store_true", help="print this code's figures as JSON (the baseline's child)"
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline arm (trial runs)")
    parser.add_argument(
        "--file",
        type=Path,
        action="append",
        default=[],
        help="a labelled set to run instead of the two (repeatable)",
    )
    args = parser.parse_args()
    splits = args.split or ["dev"]
    home = args.home or Path(tempfile.mkdtemp(prefix="lore-bench-answers-"))
    home.mkdir(parents=True, exist_ok=True)
    if args.arm:
        print(json.dumps(measure(args.shared, home, splits, args.file)))
        return
    arms = {} if args.no_baseline else {"before": _baseline(args.shared, splits, args.file)}
    arms["after"] = measure(args.shared, home, splits, args.file)
    print(
        "| set/half | arm | found askings | top-3 | holds the answer | cites an answering passage"
        ' | false "doesn\'t say" | asked before: "not reached" | not in the book: false "not reached"'
        " | one sentence | weak | cut sentences |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in arms["after"]:
        for arm, figures in arms.items():
            print(_row(arm, key, figures[key]))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    if "--arm" in sys.argv:
        main()
    else:
        from report import recorded

        with recorded(baseline=f"the no-model answer and search of commit {BEFORE}, in the same run"):
            main()
