"""Benchmark: importing books without a model, and what the reader's cap costs a search.

Import: every shared book (../shared/data/books, when present) and a generated 60,000-word
EPUB, each into a fresh store in its own child process: seconds, seconds per 100k words, and
the child's peak resident memory (from `wait4`), beside a child that only loads Lore (the
memory baseline). The time baseline is reading the file alone (parsing into chapters, no
store), measured in the same child.

Search: p50/p95 of `search_book` (FTS5 + capped BM25 + vectors + relevance floor, the whole service)
with the reader half-way through the book (the cap), against the same queries uncapped
(`spoilers=True`) over the same book; and the raw capped vs uncapped FTS5 query (matches with
their term frequencies, from which BM25 is scored). The ratio is
capped / uncapped: the overhead of the cap.

Answers: the labelled reader questions (`bench/data/book_questions.jsonl`, see
`bench/book_questions.py`), each asked at its reading position: the share of answerable questions
whose answering passage is in the top 3, and of the times search said "found", "not reached" or
"the book doesn't say", how often that was false; per split (dev, held_out), for the old search
(the code of commit OLD_SEARCH, loaded from git) and the current one, with the hash embedder and
with WordLlama, each over its own fresh store.

    .venv/bin/python bench/books.py [--queries 60] [--books DIR] [--answers-only]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OLD_SEARCH = "0d3ece47"  # main before issue 11: the search the new one is measured against
EMBEDDERS = ("hash", "wordllama")
SHARED = ROOT.parent / "shared" / "data" / "books"
QUERIES = [
    "Who was the murderer?",
    "Holmes",
    "Watson and Holmes in Baker Street",
    "the letter",
    "Who is the stranger at the door?",
    "a carriage in the rain",
    "money and the inheritance",
    "What did the inspector find?",
    "marriage proposal",
    "the hound on the moor",
    "ring",
    "Where did they meet?",
    "the violin",
    "poison",
    "the treasure chest",
    "a walk in the garden",
    "Why did she leave?",
    "blood on the wall",
    "the ball at Netherfield",
    "the trial of the knave",
]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def fresh_home() -> None:
    from lore.core.store.open import forget_stores

    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-books-")
    forget_stores()


def generated_epub(words: int) -> Path:
    """A plain EPUB of about `words` words in 20 chapters, from the test builders."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support.books import FILLER, BookSpec, Chapter, make_epub

    names = ["Arthur Penrose", "Clara Vane", "Inspector Hale", "Mrs. Marlow", "Thornfield Lodge"]
    per_chapter = words // 20
    chapters = []
    for n in range(1, 21):
        paras, count, k = [], 0, 0
        while count < per_chapter:
            sentence = (
                f"{names[(n + k) % len(names)]} waited. "
                + FILLER[k % len(FILLER)]
                + " "
                + FILLER[(k + n) % len(FILLER)]
            )
            paras.append(sentence)
            count += len(sentence.split())
            k += 1
        chapters.append(Chapter(f"Chapter {n}", paras))
    path = Path(tempfile.mkdtemp()) / "generated-60k.epub"
    return make_epub(path, BookSpec(title="Generated Sixty Thousand", chapters=chapters))


def child_import(path: str) -> None:
    """In a child process: parse the file, then import it into a fresh store; print JSON."""
    from lore.books import library
    from lore.books.read.readers import read_book

    if path == "-":  # the memory baseline: load Lore, import nothing
        print(json.dumps({}))
        return
    started = time.perf_counter()
    read_book(Path(path))
    parse_only = time.perf_counter() - started
    fresh_home()
    started = time.perf_counter()
    book = library.add_book(path)
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "words": book.words,
                "chapters": book.chapters,
                "passages": book.passages,
                "seconds": seconds,
                "parse": parse_only,
            }
        )
    )


def run_child(path: str) -> dict:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child-import", path],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"importing {path} failed")
    return {**json.loads(out), "peak_mb": usage.ru_maxrss / 1024}


def bench_import(files: list[Path]) -> tuple[float, list[dict]]:
    baseline = run_child("-")["peak_mb"]
    rows = []
    for path in files:
        r = run_child(str(path))
        rows.append({"book": path.name, **r, "per100k": r["seconds"] * 100_000 / max(1, r["words"])})
    return baseline, rows


def timed(fn, runs: int) -> list[float]:
    out = []
    for i in range(runs):
        started = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - started) * 1000)
    return out


def bench_search(path: Path, runs: int) -> list[tuple[str, float, float, float, float]]:
    from lore.books.query import content_terms

    from lore.books import library, search
    from lore.books import store as sql
    from lore.books.store.cap import END, Cap

    fresh_home()
    book = library.add_book(path)
    library.set_progress(book.id, max(1, book.chapters // 2))
    queries = [QUERIES[i % len(QUERIES)] for i in range(runs)]
    for q in QUERIES:  # warm: the vector matrix load and SQLite's page cache
        search.search_book(book.id, q)
        search.search_book(book.id, q, spoilers=True)
    capped = timed(lambda i: search.search_book(book.id, queries[i]), runs)
    uncapped = timed(lambda i: search.search_book(book.id, queries[i], spoilers=True), runs)
    db = sql.books_store()
    half, whole = [Cap(book.id, max(1, book.chapters // 2))], [Cap(book.id, END)]
    terms = [" OR ".join(f'"{t}"' for t in content_terms(q)) or '"the"' for q in queries]
    fts_capped = timed(lambda i: db.term_hits(half, terms[i]), runs)
    fts_uncapped = timed(lambda i: db.term_hits(whole, terms[i]), runs)
    return [
        (
            "search_book (service)",
            pct(capped, 0.5),
            pct(capped, 0.95),
            pct(uncapped, 0.5),
            pct(uncapped, 0.95),
        ),
        (
            "FTS5 match + tf query",
            pct(fts_capped, 0.5),
            pct(fts_capped, 0.95),
            pct(fts_uncapped, 0.5),
            pct(fts_uncapped, 0.95),
        ),
    ]


def old_search(commit: str = OLD_SEARCH, tag: str = "bench_old"):
    """The search module as it was at a commit (OLD_SEARCH by default, with that commit's query
    module), from git."""
    import importlib.util
    import types

    def source(path: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    query = types.ModuleType(f"{tag}_query")
    sys.modules[f"{tag}_query"] = query  # registered first, as dataclasses look their module up
    exec(compile(source("src/lore/books/query.py"), "old query.py", "exec"), query.__dict__)
    code = source("src/lore/books/search.py").replace(
        "from lore.books.query import", f"from {tag}_query import"
    )
    spec = importlib.util.spec_from_loader(f"{tag}_search", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"{tag}_search"] = module
    exec(compile(code, "old search.py", "exec"), module.__dict__)
    return module


def bench_answers(files: list[Path]) -> list[tuple[str, str, dict]]:
    """(embedder, search, per-split scores) for the old and the new search, per embedder."""
    sys.path.insert(0, str(ROOT / "bench"))
    import book_questions as labels
    from lore.books import library, search
    from lore.books import store as sql

    questions = labels.load()
    by_name = {f.name: f for f in files}
    wanted = sorted({q.book for q in questions if q.book in by_name})
    questions = [q for q in questions if q.book in by_name]
    old = old_search()
    out = []
    for name in EMBEDDERS:
        os.environ["LORE_EMBED"] = name
        fresh_home()
        db = sql.books_store()
        ids = {b: library.add_book(by_name[b]).id for b in wanted}
        layouts = {b: labels.layout(db, ids[b]) for b in wanted}
        for label, module in (("old", old), ("new", search)):

            def ask(book, q, position, module=module):
                library.set_progress(book.book_id, position[0], position[1])
                result = module.search_book(book.book_id, q.question, k=5)
                return result.verdict, [h.passage_id for h in result.hits]

            out.append((name, label, labels.by_split(labels.run(questions, layouts, ask))))
    os.environ.pop("LORE_EMBED", None)
    return out


def print_answers(rows: list[tuple[str, str, dict]]) -> None:
    print("Answers: labelled reader questions at their reading positions (bench/data/book_questions.jsonl)")
    print(
        f"{'embedder':10} {'search':6} {'split':9} {'n':>4} {'top-3':>12} {'false found':>12}"
        f" {'false not reached':>18} {'false not in book':>18}"
    )

    def rate(s, verdict: str) -> str:
        r = s.false_rate(verdict)
        return "-" if r is None else f"{r:.0%} ({s.false[verdict]}/{s.said[verdict]})"

    for name, label, splits in rows:
        for split, s in splits.items():
            print(
                f"{name:10} {label:6} {split:9} {s.questions:>4} {f'{s.top3_rate:.0%} ({s.top3}/{s.found})':>12}"
                f" {rate(s, 'found'):>12} {rate(s, 'not_reached'):>18} {rate(s, 'not_in_book'):>18}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--books", type=Path, default=SHARED)
    parser.add_argument("--answers-only", action="store_true", help="only the labelled questions")
    parser.add_argument("--child-import", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    fresh_home()
    if args.child_import:
        child_import(args.child_import)
        return
    files = (
        sorted(args.books.glob("*.epub")) + sorted(args.books.glob("*.pdf")) if args.books.exists() else []
    )
    if args.answers_only:
        print_answers(bench_answers(files))
        return
    generated = generated_epub(60_000)
    baseline, rows = bench_import([generated, *files])

    print(
        f"Import without a model; time baseline: parsing the file alone; memory baseline: a"
        f" process that only loads Lore ({baseline:.0f} MB) - {os.cpu_count()} cores"
    )
    print(
        f"{'book':42} {'words':>8} {'ch':>4} {'passages':>8} {'import s':>9} {'s/100k w':>9}"
        f" {'parse s':>8} {'ratio':>6} {'peak MB':>8} {'ratio':>6}"
    )
    for r in rows:
        print(
            f"{r['book'][:42]:42} {r['words']:>8,} {r['chapters']:>4} {r['passages']:>8,}"
            f" {r['seconds']:>9.2f} {r['per100k']:>9.2f} {r['parse']:>8.2f}"
            f" {r['seconds'] / max(r['parse'], 1e-9):>6.2f} {r['peak_mb']:>8.0f}"
            f" {r['peak_mb'] / baseline:>6.2f}"
        )
    target = rows[0]
    verdict = "met" if target["seconds"] < 5 else "MISSED"
    print(f"target: a 60,000-word EPUB in under 5 s without a model -> {target['seconds']:.2f} s ({verdict})")

    subject = next((f for f in files if f.name == "a-study-in-scarlet.epub"), generated)
    print()
    print(
        f"Search in {subject.name}, reader half-way (cap) vs the same queries uncapped "
        f"(spoilers), {args.queries} queries, wall-clock ms"
    )
    print(
        f"{'what':24} {'capped p50':>11} {'capped p95':>11} {'uncapped p50':>13} {'uncapped p95':>13}"
        f" {'ratio p95':>10}"
    )
    results = bench_search(subject, args.queries)
    for name, c50, c95, u50, u95 in results:
        print(f"{name:24} {c50:>11.2f} {c95:>11.2f} {u50:>13.2f} {u95:>13.2f} {c95 / max(u95, 1e-9):>10.2f}")
    p95 = results[0][2]
    print(f"target: capped search p95 under 20 ms -> {p95:.2f} ms ({'met' if p95 < 20 else 'MISSED'})")
    print()
    print_answers(bench_answers(files))
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"search process peak resident memory: {maxrss:.0f} MB")


if __name__ == "__main__":
    from report import recorded

    with recorded(
        baseline="import: reading the file alone (time) and a child that only loads Lore (memory); search: the same queries uncapped; all in the same run"
    ):
        main()
