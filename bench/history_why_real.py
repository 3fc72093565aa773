"""`lore history why` on real repositories: top-1/3/10 and MRR per split, against BM25 over the
commit messages and `git log --grep`, and the CLI's wall time.

    .venv/bin/python bench/history_why.py --real --repo click=/tmp/x_click \
        --repo fastapi=/tmp/x_fastapi [--split dev|held_out|all] [--home DIR] [--timed N]
        [--questions FILE ...]

The questions are bench/data/why_questions.jsonl (see its .md), or the sets `--questions` names
(each split then named by its file): each names its repository, and a
question is answered when one of its `answers` shas is among the ranked commits. A `file` item
is asked as `why PATH`. Each repository given is ingested into one store (`--home` keeps it for
a second run), so every repository's ranking is measured with the others beside it. In the same
run, on the same questions:

- BM25: the stemmed words of every commit message of the repository, ranked by BM25 (`core.bm25`)
  against the question's content words;
- `git log --grep`: `git log -i --grep=WORD` for each content word of the question; the commits
  matching most of the words first, newest first among equals;
- the wall time of `lore history why TARGET --no-model` run as a command, p50 and p95, against
  that of `git log -i --grep` with the same words.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "data" / "why_questions.jsonl"
LORE = HERE.parent / ".venv" / "bin" / "lore"
BASELINE = "BM25 over the commit messages and `git log --grep`, on the same questions in the same run"
DEPTH = 10  # ranks counted: an answer below it scores 0 for MRR


@dataclass(frozen=True)
class Item:
    id: str
    repo: str
    kind: str
    question: str
    path: str | None
    answers: frozenset[str]
    split: str

    @property
    def target(self) -> str:
        """What is asked of `lore history why`: the path for a file item, else the question."""
        return self.path if self.kind == "file" and self.path else self.question


def load(path: Path, split: str) -> list[Item]:
    """The labelled questions of one split (or all), read without printing any of them."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        if split != "all" and d["split"] != split:
            continue
        out.append(
            Item(
                d["id"],
                d["repo"],
                d["kind"],
                d["question"],
                d.get("path"),
                frozenset(d["answers"]),
                d["split"],
            )
        )
    return out


def keywords(text: str) -> list[str]:
    """The question's content words, as a person would type them into `git log --grep`."""
    from lore.core.text import split_words
    from lore.core.vocabulary import STOPWORDS

    seen: dict[str, None] = {}
    for w in split_words(text):
        if w not in STOPWORDS and len(w) > 2 and w != "why":
            seen.setdefault(w, None)
    return list(seen)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


class Bm25Baseline:
    """BM25 over one repository's commit messages, the question's content words as the query."""

    def __init__(self, root: Path):
        from lore.core.bm25 import BM25Index
        from lore.history.why.keywords import terms

        self.index = BM25Index()
        self.terms = terms
        for record in git(root, "log", "--format=%H%x00%B%x01").split("\x01"):
            sha, _, message = record.strip("\n").partition("\x00")
            if sha:
                self.index.add(sha, terms(message))

    def rank(self, item: Item) -> list[str]:
        scores = self.index.scores({t for w in keywords(item.target) for t in self.terms(w)})
        return sorted(scores, key=lambda s: (-scores[s], s))[:DEPTH]


def grep_rank(root: Path, item: Item) -> list[str]:
    """`git log -i --grep` once per content word of the question: the commits matching most of
    the words first, newest first among equals (git's own order)."""
    count: dict[str, int] = {}
    order: dict[str, int] = {}
    for word in keywords(item.target):
        for n, sha in enumerate(git(root, "log", "-i", "--format=%H", f"--grep={word}").split()):
            count[sha] = count.get(sha, 0) + 1
            order.setdefault(sha, n)
    return sorted(count, key=lambda s: (-count[s], order[s]))[:DEPTH]


def lore_rank(repo: object, item: Item) -> list[str]:
    from lore.history.why.service import gather

    report = gather(repo, item.target, limit=DEPTH)  # type: ignore[arg-type]
    return [e.key.split(":", 1)[1] for e in report.evidence if e.kind == "commit"]


def first_hit(ranked: Sequence[str], answers: frozenset[str]) -> int | None:
    for n, sha in enumerate(ranked[:DEPTH], start=1):
        if sha in answers:
            return n
    return None


def table(name: str, hits: list[int | None]) -> str:
    n = max(1, len(hits))
    at = [sum(1 for h in hits if h is not None and h <= k) for k in (1, 3, 10)]
    mrr = sum(1.0 / h for h in hits if h is not None) / n
    return (
        f"| {name} | {len(hits)} | {at[0]} ({at[0] / n:.0%}) | {at[1]} ({at[1] / n:.0%})"
        f" | {at[2]} ({at[2] / n:.0%}) | {mrr:.3f} |"
    )


def timed(run: Callable[[], object]) -> float:
    t = time.perf_counter()
    run()
    return (time.perf_counter() - t) * 1000


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) >= 2 else values[0]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--real", action="store_true", help="this mode (bench/history_why.py dispatches on it)"
    )
    parser.add_argument(
        "--repo", action="append", default=[], help="NAME=PATH: a clone of a repository the set asks about"
    )
    parser.add_argument(
        "--questions",
        type=Path,
        action="append",
        help="a labelled set (repeat for several; each split is then named by its file)",
    )
    parser.add_argument("--split", choices=("dev", "held_out", "all"), default="all")
    parser.add_argument("--home", help="keep the store here; a second run reuses the ingest")
    parser.add_argument("--timed", type=int, default=20, help="CLI calls timed per repository")
    args = parser.parse_args(argv)
    roots = {}
    for spec in args.repo:
        name, _, path = spec.partition("=")
        roots[name] = Path(path).resolve()
    if not roots:
        parser.error("give at least one --repo NAME=PATH")
    home = Path(args.home or tempfile.mkdtemp(prefix="lore-why-real-"))
    os.environ["LORE_HOME"] = str(home)
    for var in ("LORE_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        os.environ.pop(var, None)

    from lore.history.ingest.git import ingest_git
    from lore.history.repos import resolve_repo

    repos = {}
    for name, root in roots.items():
        t = time.perf_counter()
        report = ingest_git(root)
        print(f"ingest {name}: {report.commits_added:,} new commits in {time.perf_counter() - t:.1f}s")
        repos[name] = resolve_repo(str(root))
    sets = args.questions or [QUESTIONS]
    items = [
        replace(i, split=f"{path.stem}/{i.split}" if len(sets) > 1 else i.split)
        for path in sets
        for i in load(path, args.split)
        if i.repo in roots
    ]
    splits = sorted({i.split for i in items})

    bm25 = {name: Bm25Baseline(root) for name, root in roots.items()}
    results: dict[str, dict[str, list[int | None]]] = {}
    for item in items:
        ranked = {
            "Lore": lore_rank(repos[item.repo], item),
            "BM25 (messages)": bm25[item.repo].rank(item),
            "git log --grep": grep_rank(roots[item.repo], item),
        }
        for system, shas in ranked.items():
            results.setdefault(f"{item.split}/{system}", []).append(first_hit(shas, item.answers))

    for split in splits:
        asked = [i for i in items if i.split == split]
        kinds = ", ".join(
            f"{k} {sum(1 for i in asked if i.kind == k)}" for k in ("question", "file", "reason")
        )
        print(f"\n{split}: {len(asked)} questions ({kinds}); answered = an answer sha in the top k")
        print(
            "\n| system | n | top-1 | top-3 | top-10 | MRR@10 |\n| --- | ---: | ---: | ---: | ---: | ---: |"
        )
        for system in ("Lore", "BM25 (messages)", "git log --grep"):
            print(table(system, results[f"{split}/{system}"]))

    env = {**os.environ, "COLUMNS": "120"}
    lore_ms: list[float] = []
    grep_ms: list[float] = []
    for name, root in roots.items():
        asked = [i for i in items if i.repo == name][: args.timed]
        for item in asked:
            cmd = [str(LORE), "history", "why", item.target, "--repo", str(root), "--no-model"]
            lore_ms.append(
                timed(lambda cmd=cmd: subprocess.run(cmd, env=env, capture_output=True, check=True))
            )
            greps = [f"--grep={w}" for w in keywords(item.target)]
            grep_ms.append(timed(lambda g=greps, r=root: git(r, "log", "-i", "--format=%H %s", *g)))
    if not lore_ms:
        return
    p50, p95 = statistics.median(lore_ms), pct(lore_ms, 95)
    g50 = statistics.median(grep_ms)
    print(
        f"\nCLI wall time, `lore history why ... --no-model`, {len(lore_ms)} calls: p50 {p50:.0f} ms,"
        f" p95 {pct(lore_ms, 95):.0f} ms (target p50 < 300 ms: {'met' if p50 < 300 else 'MISSED'});"
        f" `git log -i --grep` p50 {g50:.0f} ms; Lore / git p50 x{p50 / max(g50, 1e-6):.1f}, p95 {p95:.0f} ms"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    from report import recorded

    with recorded(name="history_why_real", baseline=BASELINE):
        main(sys.argv[1:])
