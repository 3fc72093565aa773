"""Corpora of real embeddings for the vector benchmarks, built once and cached under bench/out/.

The texts are windows of 1 to W consecutive sentences, never crossing a chapter, from the
shared books (`../shared/data/books`, read by Lore's own readers, split by Lore's own sentence
splitter) and the shared rules (`../shared/data/rules`, one project per top-level folder, one
"chapter" per file). The shared data hold about 60,000 sentences, so a million distinct
passages need windows up to about 23 sentences long: the windows are taken shortest first
(every 1-sentence window, then every 2-sentence one, ...) until `count` distinct vectors are in
hand, so 200,000 passages are windows of 1-5 sentences and 1,000,000 of 1-23. Overlapping
windows make the collection denser than a real library (a query's neighbours are many windows
around the same lines, their scores nearly tied), the harder case for recall@10, not the easier.
A vector equal to one already taken is skipped, so no vector appears twice.

Each vector is WordLlama's (Lore's default embedder) for the window's text, the sentences joined
by single spaces. WordLlama is the mean of the text's token vectors, and on text of
single-space-separated words its tokens are the words' tokens in order (see `WordIds` in
`lore/core/embed/wordllama.py`), so a window's vector is the normalised sum of its sentences'
token-vector sums: prefix sums over each chapter give a million windows in seconds instead of
re-tokenising 200 million words. Every build embeds a sample of window texts with the embedder
itself and stops unless the two agree (cosine above 0.99999).

The queries are the reader questions of `bench/data/book_questions.jsonl`, embedded the same
way (`embed_query`): real questions, none of them a vector from the corpus.

Metadata mirror a book's passages (`lore/books/passage_vectors.py`): `book_id` (a book, or a
rules project from 101 on), `chapter_seq` and `passage_seq`.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "bench" / "out" / "vector_corpus"
QUESTIONS = ROOT / "bench" / "data" / "book_questions.jsonl"
VERSION = 1  # bump when the way windows are made changes: the cache is then rebuilt
RULES_FROM = 101  # book ids from here on are rules projects
SPECIAL = ("<unk>", "<s>", "</s>")  # the tokenizer's own tokens: a sentence holding one is left out
CHECKED = 256  # windows embedded by the embedder itself on every build


@dataclass(frozen=True)
class Source:
    """One book or rules project: its id, name and chapters as lists of normalised sentences."""

    book_id: int
    name: str
    chapters: list[list[str]]


@dataclass
class Corpus:
    """Unit vectors with their metadata columns, and the query vectors."""

    kind: str
    vectors: np.ndarray  # (n, dim) float32
    book_id: np.ndarray
    chapter_seq: np.ndarray
    passage_seq: np.ndarray
    chapters: dict[int, int]  # book id -> its number of chapters
    names: dict[int, str]
    queries: np.ndarray  # (q, dim) float32

    def meta(self, i: int) -> dict[str, int | float]:
        """A row's metadata as Lore stores a passage's."""
        out: dict[str, int | float] = {
            "book_id": int(self.book_id[i]),
            "chapter_seq": int(self.chapter_seq[i]),
            "passage_seq": int(self.passage_seq[i]),
        }
        return out


def _normalised(text: str) -> str:
    return " ".join(text.split())


def sources() -> list[Source]:
    """The shared books (EPUBs before PDFs, so a PDF twin's identical windows drop out) and the
    shared rules projects."""
    from lore.books.passages import sentences
    from lore.books.read.readers import read_book

    def split(text: str) -> list[str]:
        out = [_normalised(text[s.start : s.end]) for s in sentences(text)]
        return [s for s in out if s and not any(t in s for t in SPECIAL)]

    found: list[Source] = []
    books = sorted(DATA.joinpath("books").glob("*.epub")) + sorted(DATA.joinpath("books").glob("*.pdf"))
    for i, path in enumerate(books, start=1):
        parsed = read_book(path)
        found.append(Source(i, path.name, [split(c.text) for c in parsed.chapters]))
    for j, project in enumerate(sorted(p for p in DATA.joinpath("rules").iterdir() if p.is_dir())):
        files = sorted(f for f in project.rglob("*") if f.is_file() and f.suffix in (".md", ".mdc"))
        chapters = [split(f.read_text(encoding="utf-8", errors="replace")) for f in files]
        found.append(Source(RULES_FROM + j, f"rules/{project.name}", chapters))
    return found


def _sentence_sums(all_sentences: list[str]) -> np.ndarray:
    """Each sentence's sum of WordLlama token vectors (float64, one row per sentence)."""
    from lore.core.embed.wordllama import _load_table, _load_tokenizer

    table = _load_table()
    last = len(table) - 1
    sums = np.zeros((len(all_sentences), table.shape[1]), dtype=np.float64)
    encodings = _load_tokenizer().encode_batch(all_sentences, add_special_tokens=False)
    for i, encoding in enumerate(encodings):
        if encoding.ids:
            ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, last)
            sums[i] = table[ids].astype(np.float32).sum(axis=0, dtype=np.float64)
    return sums


def _build_real(count: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    from lore.core.embed import get_embedder

    started = time.perf_counter()
    found = sources()
    flat = [s for src in found for chapter in src.chapters for s in chapter]
    sums = _sentence_sums(flat)
    # the chapters as (source, chapter number, prefix sums over its sentences)
    spans = []
    at = 0
    for src in found:
        for seq, chapter in enumerate(src.chapters, start=1):
            n = len(chapter)
            if n:
                prefix = np.vstack([np.zeros((1, sums.shape[1])), np.cumsum(sums[at : at + n], axis=0)])
                spans.append((src, seq, at, prefix))
            at += n
    seen: set[bytes] = set()
    vectors, book_ids, chapter_seqs, passage_seqs, where = [], [], [], [], []
    next_passage: dict[tuple[int, int], int] = {}
    width = 0
    while len(seen) < count:
        width += 1
        grew = False
        for src, seq, first, prefix in spans:
            n = len(prefix) - 1
            if n < width:
                continue
            grew = True
            window = prefix[width:] - prefix[:-width]
            norms = np.linalg.norm(window, axis=1, keepdims=True)
            keep = norms[:, 0] > 0
            units = (window[keep] / norms[keep]).astype(np.float32)
            starts = np.flatnonzero(keep)
            for row, start in zip(units, starts, strict=True):
                digest = hashlib.blake2b(row.tobytes(), digest_size=16).digest()
                if digest in seen:
                    continue
                seen.add(digest)
                vectors.append(row)
                key = (src.book_id, seq)
                next_passage[key] = next_passage.get(key, 0) + 1
                book_ids.append(src.book_id)
                chapter_seqs.append(seq)
                passage_seqs.append(next_passage[key])
                where.append((first + int(start), width))
                if len(seen) == count:
                    break
            if len(seen) == count:
                break
        if not grew:
            raise SystemExit(f"the shared data give only {len(seen):,} distinct windows, not {count:,}")
    matrix = np.stack(vectors)
    embedder = get_embedder("wordllama")
    rng = np.random.default_rng(11)
    sample = rng.choice(len(where), size=min(CHECKED, len(where)), replace=False)
    texts = [" ".join(flat[where[i][0] : where[i][0] + where[i][1]]) for i in sample]
    direct = embedder.embed(texts, no_cache=True, progress=False)
    agreement = float(np.min(np.sum(direct * matrix[sample], axis=1)))
    if agreement < 0.99999:
        raise SystemExit(f"window vectors disagree with the embedder (lowest cosine {agreement:.6f})")
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines() if line.strip()]
    queries = np.stack([embedder.embed_query(q, no_cache=True) for q in questions]).astype(np.float32)
    arrays = {
        "vectors": matrix,
        "book_id": np.array(book_ids, dtype=np.int32),
        "chapter_seq": np.array(chapter_seqs, dtype=np.int32),
        "passage_seq": np.array(passage_seqs, dtype=np.int32),
        "queries": queries,
    }
    info = {
        "version": VERSION,
        "embedder": embedder.name,
        "longest_window": width,
        "sentences": len(flat),
        "lowest_cosine_against_the_embedder": agreement,
        "build_s": round(time.perf_counter() - started, 1),
        "chapters": {str(s.book_id): len(s.chapters) for s in found},
        "names": {str(s.book_id): s.name for s in found},
    }
    return arrays, info


def real_corpus(count: int) -> Corpus:
    """`count` real passage vectors and the question vectors, from the cache when built before."""
    stem = OUT / f"real-v{VERSION}-{count}"
    files = [stem.with_suffix(".npy"), stem.with_suffix(".npz"), stem.with_suffix(".json")]
    if all(f.exists() for f in files):
        info = json.loads(files[2].read_text())
        vectors = np.load(files[0], mmap_mode="r")
        columns = np.load(files[1])
        print(f"  corpus: {count:,} real vectors from {files[0].name} (cached)", file=sys.stderr)
    else:
        print(f"  corpus: embedding {count:,} windows (once; cached in {OUT})", file=sys.stderr)
        arrays, info = _build_real(count)
        OUT.mkdir(parents=True, exist_ok=True)
        np.save(files[0], arrays.pop("vectors"))
        np.savez(files[1], **arrays)
        files[2].write_text(json.dumps(info, indent=1))
        vectors = np.load(files[0], mmap_mode="r")
        columns = np.load(files[1])
        print(
            f"  corpus: built in {info['build_s']} s, windows of 1-{info['longest_window']} sentences,"
            f" lowest cosine against the embedder {info['lowest_cosine_against_the_embedder']:.6f}",
            file=sys.stderr,
        )
    return Corpus(
        "real",
        np.asarray(vectors),
        columns["book_id"],
        columns["chapter_seq"],
        columns["passage_seq"],
        {int(k): v for k, v in info["chapters"].items()},
        {int(k): v for k, v in info["names"].items()},
        columns["queries"],
    )


def random_corpus(count: int) -> Corpus:
    """The real corpus's metadata with random vectors (HNSW's worst case) and random queries."""
    real = real_corpus(count)
    rng = np.random.default_rng(3)
    dim = real.vectors.shape[1]

    def units(n: int) -> np.ndarray:
        rows = rng.normal(size=(n, dim)).astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    return Corpus(
        "random",
        units(count),
        real.book_id,
        real.chapter_seq,
        real.passage_seq,
        real.chapters,
        real.names,
        units(len(real.queries)),
    )
