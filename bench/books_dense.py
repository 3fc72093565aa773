"""Benchmark: does a transformer's reading of meaning find the answering passage of a reader's question?

Over the labelled reader questions (`bench/book_questions.py`'s sets, the `found` ones), each
asked at its reading position, the share whose answering passage is in the top 3 of the visible
passages, per set and half, for rankings built from one embedder at a time (WordLlama, the
default, and the ONNX MiniLM, `all-MiniLM-L6-v2` trained on question-answer pairs):

- `words`: search's word ranking alone (BM25 over the question's word groups, the neighbours'
  share, the character and cue boosts: `lore.books.search.signals` with no vectors);
- `search`: the words fused with the embedder's passage vectors as `lore.books.search.fuse` fuses
  them (reciprocal rank, the vectors at `DENSE_WEIGHT`): what `lore books search` ranks with that
  embedder;
- `passage`, `window`: the embedder's cosine alone, of the question against whole passages, and
  against every window of three consecutive sentences of a passage (a passage scores its best);
- `words+window`: each candidate's share of the question's words plus half its best window's
  cosine (a linear blend instead of reciprocal rank).

The baseline is `search` with WordLlama, in the same run. Vectors go through each embedder's
cache in the library's store, so a second run embeds nothing new; what embedding costs is
measured apart: one shared book (`--import-book`) imported into a fresh library with each
embedder, in a child process each, against WordLlama's import.

    .venv/bin/python bench/books_dense.py --home DIR [--file bench/data/SET.jsonl ...]
        [--split dev --split held_out] [--embed wordllama --embed minilm-onnx]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
SETS = ("book_questions.jsonl", "book_questions_blind.jsonl", "book_questions_blind2.jsonl")
IMPORT_BOOK = "alice-pg11.epub"
WINDOW = 3  # sentences per window
BLEND = 0.5  # the window cosine's weight beside the share of the question's words


@dataclass
class BookVectors:
    """One book's passages under one embedder: passage vectors, and window vectors with the
    passage each window belongs to."""

    ids: np.ndarray  # passage id per row
    where: np.ndarray  # (chapter_seq, passage_seq) per row
    passages: np.ndarray
    window_of: np.ndarray  # row of the passage, per window
    windows: np.ndarray
    texts: int  # passages and windows embedded
    seconds: float


def windows(text: str) -> list[str]:
    """Every run of WINDOW consecutive sentences of a passage (the passage when shorter)."""
    from lore.books.passages import sentences

    said = [text[s.start : s.end] for s in sentences(text)]
    if len(said) <= WINDOW:
        return [text]
    return [" ".join(said[i : i + WINDOW]) for i in range(len(said) - WINDOW + 1)]


def book_vectors(db: Any, book_id: int, embedder: Any) -> BookVectors:
    rows = db.passages_for_embedding(book_id)
    started = time.perf_counter()
    passages = embedder.embed([r.text for r in rows], progress=False)
    owner, texts = [], []
    for i, r in enumerate(rows):
        for w in windows(r.text):
            owner.append(i)
            texts.append(w)
    vectors = embedder.embed(texts, progress=False)
    return BookVectors(
        np.array([r.id for r in rows]),
        np.array([(r.chapter_seq, r.passage_seq) for r in rows]),
        passages,
        np.array(owner),
        vectors,
        len(rows) + len(texts),
        time.perf_counter() - started,
    )


def visible(book: BookVectors, chapter: int, passage: int | None) -> np.ndarray:
    ch, ps = book.where[:, 0], book.where[:, 1]
    return (ch < chapter) | ((ch == chapter) & (ps <= (passage if passage is not None else 1 << 30)))


def dense_lists(
    book: BookVectors, query: np.ndarray, chapter: int, passage: int | None
) -> dict[str, dict[int, float]]:
    """Cosine per visible passage: whole, and its best window."""
    seen = visible(book, chapter, passage)
    whole = {
        int(book.ids[i]): float(s)
        for i, s in zip(np.flatnonzero(seen), book.passages[seen] @ query, strict=True)
    }
    best: dict[int, float] = {}
    keep = seen[book.window_of]
    for row, s in zip(book.window_of[keep], book.windows[keep] @ query, strict=True):
        pid = int(book.ids[row])
        best[pid] = max(best.get(pid, -1.0), float(s))
    return {"passage": whole, "window": best}


def top(scores: dict[int, float], n: int = 3) -> list[int]:
    return sorted(scores, key=lambda p: (-scores[p], p))[:n]


def arms(sig: Any, dense: dict[str, dict[int, float]], limit: int) -> dict[str, list[int]]:
    """The top 3 of each ranking for one question under one embedder."""
    from lore.books.search import Signals, fuse

    words = Signals(sig.lexical, {}, sig.boosts, sig.rows)
    fused = Signals(
        sig.lexical,
        dict(sorted(dense["passage"].items(), key=lambda kv: -kv[1])[:limit]),
        sig.boosts,
        sig.rows,
    )
    coverage = sig.lexical["coverage"]
    window = dense["window"]
    lowest = min(window.values(), default=0.0)
    candidates = set(sig.lexical["order"]) | set(top(window, limit))
    blend = {
        p: (coverage.get(p, 0.0) + BLEND * window.get(p, lowest)) * (1.0 + sig.boosts.get(p, 0.0))
        for p in candidates
    }
    return {
        "words": top(fuse(words, limit)),
        "search": top(fuse(fused, limit)),
        "passage": top(dense["passage"]),
        "window": top(window),
        "words+window": top(blend),
    }


def import_seconds(path: Path, embed: str) -> float:
    """Seconds to import one book into a fresh library with this embedder (a child process)."""
    code = (
        "import sys, time; from lore.books import library; t = time.perf_counter(); "
        "library.add_book(sys.argv[1]); print(time.perf_counter() - t)"
    )
    with tempfile.TemporaryDirectory(prefix="lore-bench-import-") as home:
        env = {**os.environ, "LORE_HOME": home, "LORE_EMBED": embed}
        done = subprocess.run(
            [sys.executable, "-c", code, str(path)], env=env, capture_output=True, text=True, check=True
        )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, help="a library folder to reuse (books and vectors kept)")
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--file", type=Path, action="append", default=[])
    parser.add_argument("--split", action="append", choices=("dev", "held_out"))
    parser.add_argument("--import-book", default=IMPORT_BOOK, help="the shared book whose import is timed")
    parser.add_argument(
        "--embed", action="append", help="embedders to compare (default: wordllama, minilm-onnx)"
    )
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="lore-bench-dense-"))
    home.mkdir(parents=True, exist_ok=True)
    os.environ.pop("LORE_EMBED", None)
    names = args.embed or ["wordllama", "minilm-onnx"]
    imports = {n: import_seconds(args.shared / "books" / args.import_book, n) for n in names}
    os.environ["LORE_HOME"] = str(home)
    import book_questions as bq
    from lore.books import library
    from lore.books.ask.labelled import books_by_file
    from lore.books.retrieve.query import parse
    from lore.books.search import CANDIDATES, signals
    from lore.books.store import books_store
    from lore.books.store.cap import Cap
    from lore.core.embed import get_embedder

    files = args.file or [ROOT / "bench" / "data" / name for name in SETS]
    splits = args.split or ["dev", "held_out"]
    sets = {f.stem: [q for q in bq.load(f) if q.expect == "found" and q.split in splits] for f in files}
    db = books_store()
    have = books_by_file(db)
    for name in sorted({q.book for qs in sets.values() for q in qs} - set(have)):
        library.add_book(args.shared / "books" / name)
    have = books_by_file(db)
    layouts = {name: bq.layout(db, b.id) for name, b in have.items()}
    embedders = {n: get_embedder(n) for n in names}
    used = sorted({q.book for qs in sets.values() for q in qs})
    vectors = {n: {b: book_vectors(db, layouts[b].book_id, e) for b in used} for n, e in embedders.items()}
    hits: dict[tuple[str, str, str], list[int]] = {}
    for set_name, questions in sets.items():
        for q in questions:
            book = layouts[q.book]
            chapter, passage = book.position(q)
            caps = [Cap(book.book_id, chapter, passage)]
            sig = signals(db, caps, parse(" ".join(q.question.split())), CANDIDATES)
            answers = bq.answer_passages(book, q)
            for n, e in embedders.items():
                dense = dense_lists(vectors[n][q.book], e.embed_query(q.question), chapter, passage)
                for arm, shown in arms(sig, dense, CANDIDATES).items():
                    row = hits.setdefault((f"{set_name}/{q.split}", n, arm), [0, 0])
                    row[0] += bool(answers & set(shown))
                    row[1] += 1
    keys = sorted({k[0] for k in hits})
    print("Answering passage in the top 3 (found questions), per set/half:\n")
    print("| embedder | arm | " + " | ".join(keys) + " | all |")
    print("|---|---|" + "---|" * (len(keys) + 1))
    base = {k: hits[(k, "wordllama", "search")] for k in keys} if "wordllama" in names else None
    for n in names:
        for arm in ("words", "search", "passage", "window", "words+window"):
            if n != names[0] and arm == "words":
                continue  # the same for every embedder
            cells, total = [], [0, 0]
            for k in keys:
                h, of = hits[(k, n, arm)]
                total[0] += h
                total[1] += of
                cells.append(f"{h}/{of} ({h / of:.0%})")
            ratio = ""
            if base:
                b = sum(v[0] for v in base.values())
                ratio = f", {total[0] / b:.2f}x baseline" if b else ""
            print(
                f"| {n if arm != 'words' else '(none)'} | {arm} | "
                + " | ".join(cells)
                + f" | {total[0]}/{total[1]} ({total[0] / total[1]:.0%}{ratio}) |"
            )
    print(
        "\nTexts embedded per book (passages and windows) and the seconds this run took for them"
        " (vectors in the embedding cache are read back, not made again):\n"
    )
    print("| embedder | " + " | ".join(used) + " |")
    print("|---|" + "---|" * len(used))
    for n in names:
        cells = (f"{vectors[n][b].texts} in {vectors[n][b].seconds:.1f} s" for b in used)
        print(f"| {n} | " + " | ".join(cells) + " |")

    first = imports[names[0]]
    print(f"\nImporting {args.import_book} into a fresh library (parsing, names, every passage embedded):\n")
    print(f"| embedder | seconds | against {names[0]} |")
    print("|---|---|---|")
    for n in names:
        print(f"| {n} | {imports[n]:.1f} | {imports[n] / first:.1f}x |")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from report import recorded

    with recorded(baseline="lore books search's ranking with WordLlama (the default), in the same run"):
        main()
