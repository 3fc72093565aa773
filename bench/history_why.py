"""`lore history why` at scale: latency without a model, hybrid vs vector-only recall, model cost.

    .venv/bin/python bench/history_why.py [--commits 10000] [--threads 5000] [--embed hash|wordllama]
        [--via direct|http] [--home DIR (a second run reuses its store)] [--no-model]
    .venv/bin/python bench/history_why.py --real --repo click=PATH --repo fastapi=PATH [--split dev]

`--real` measures the ranking on real repositories and the labelled questions of
bench/data/why_questions.jsonl, against BM25 and `git log --grep`: see bench/history_why_real.py.

The git history is synthetic (bench/history_synth.py: sweeping commits, a busy changelog,
bots, merges, renames). The threads are made with the fake GitHub of the tests: one PR per
squash-merged commit that names a number, each closing an issue about the problem it fixed, a
maintainer's comment on each issue, and some problems reported again later. They are written
by the GitHub ingest's own code: `--via direct` (the default) hands the API-shaped payloads to
`ingest_threads`, the writer `ingest_github` uses for what it fetches, so 5,000 threads load in
seconds; `--via http` serves them over HTTP to `ingest_github` (about 90 s per 1,000 threads,
all of it requests and their cache). Then:

1. `why` without a model on questions of four shapes and on bare paths: p50 / p95 in ms (the
   index built before the clock starts; its build time is printed apart), against a baseline
   timed in the same run on the same questions: a plain BM25 over the commit messages alone
   (`MessagesBm25`, in memory);
2. `lore history eval`'s drafted questions: recall@10 per category for the hybrid and the
   vector-only arm (fixed-size chunks, same embedder), dev and held-out halves;
3. `why` with a model, at a local fake server answering with a cited sentence: calls and
   tokens per answer as the server counted them.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from history_synth import synth_repo  # noqa: E402  (bench/ is put on the path just above)

PARTS = ["cache", "session", "token", "upload", "retry", "parser", "index", "schema", "queue", "logger"]
PROBLEMS = ["leaks memory", "times out", "drops writes", "crashes on empty input", "is slow on large files"]
FIXES = [
    "bound the buffer",
    "add a deadline",
    "flush before closing",
    "check for empty input",
    "stream the file",
]


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def squash_commits(root: Path, want: int) -> list[tuple[int, str, float, list[str]]]:
    """(PR number, sha, time, files) of commits whose subject names a PR, oldest first."""
    out = subprocess.run(
        ["git", "log", "--reverse", "--format=@%H %at %s", "--name-only", "main"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows: list[tuple[int, str, float, list[str]]] = []
    for block in out.split("\n@")[0:]:
        head, *files = [line for line in block.lstrip("@").splitlines() if line.strip()]
        sha, at, subject = head.split(" ", 2)
        if subject.endswith(")") and "(#" in subject:
            number = int(subject.rsplit("(#", 1)[1][:-1])
            rows.append((number, sha, float(at), [f for f in files if f.startswith("src/")]))
    return rows[:want]


def load_threads(gh, root: Path, threads: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    prs = squash_commits(root, threads // 2)
    issue_no = 100_000
    earlier: list[tuple[int, str]] = []
    for number, sha, at, files in prs:
        part, k = rng.choice(PARTS), rng.randrange(len(PROBLEMS))
        module = files[0].split("/")[1] if files else "core"
        if earlier and rng.random() < 0.1:  # a problem that came back
            old_no, old_title = rng.choice(earlier)
            title = old_title + " again"
            body = f"This looks like #{old_no} all over again."
        else:
            title = f"The {part} of {module} {PROBLEMS[k]}"
            body = f"When the {part} in {module} is under load it {PROBLEMS[k]}."
        issue_no += 1
        gh.add_issue(issue_no, title, body=body, user="reporter", created_at=iso(at - 3 * 86400))
        gh.add_comment(
            issue_no,
            f"Confirmed. We should {FIXES[k]} in the {part}.",
            user="maintainer",
            association="MEMBER",
            at=iso(at - 2 * 86400),
        )
        earlier.append((issue_no, title))
        gh.add_pr(
            number,
            f"{FIXES[k].capitalize()} in the {part} of {module}",
            body=f"Fixes #{issue_no}. The {part} {PROBLEMS[k]}, so we {FIXES[k]}.",
            user="maintainer",
            created_at=iso(at - 86400),
            merged_at=iso(at),
            merge_commit_sha=sha,
            files=[{"filename": f, "additions": 3} for f in files],
        )
        gh.cross_reference(issue_no, source=number, at=iso(at - 86400 + 60))
        gh.close(issue_no, at=iso(at), commit_id=sha)


class MessagesBm25:
    """The plain baseline: BM25 over the repository's commit messages, held in memory (built
    once, before any clock starts), each message split into words as `why` splits them; a query
    scores every message holding one of its words, none newer than `as_of`."""

    def __init__(self, messages: list[tuple[int, float | None, str]]):
        from lore.history.why.keywords import terms

        self.terms = terms
        self.postings: dict[str, dict[int, int]] = {}
        self.length: dict[int, int] = {}
        self.at = {doc_id: at for doc_id, at, _text in messages}
        for doc_id, _at, text in messages:
            words = terms(text)
            self.length[doc_id] = len(words)
            for word in words:
                tfs = self.postings.setdefault(word, {})
                tfs[doc_id] = tfs.get(doc_id, 0) + 1
        self.mean = sum(self.length.values()) / max(1, len(self.length))

    def search(self, question: str, as_of: float | None, limit: int = 50) -> list[int]:
        n, k1, b = len(self.length), 1.2, 0.75
        scores: dict[int, float] = {}
        for word in set(self.terms(question)):
            tfs = self.postings.get(word, {})
            idf = math.log(1.0 + (n - len(tfs) + 0.5) / (len(tfs) + 0.5))
            for doc_id, tf in tfs.items():
                at = self.at[doc_id]
                if as_of is not None and (at is None or at > as_of):
                    continue
                norm = tf + k1 * (1 - b + b * self.length[doc_id] / (self.mean or 1.0))
                scores[doc_id] = scores.get(doc_id, 0.0) + idf * tf * (k1 + 1) / norm
        return sorted(scores, key=lambda d: (-scores[d], d))[:limit]


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) >= 2 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=10000)
    parser.add_argument("--threads", type=int, default=5000)
    parser.add_argument("--embed", default="hash", help="embedder for both arms (hash, wordllama)")
    parser.add_argument("--timed", type=int, default=200, help="why calls timed")
    parser.add_argument("--via", choices=("direct", "http"), default="direct", help="how threads are loaded")
    parser.add_argument("--home", help="keep the store here; a second run with it reuses the ingest")
    parser.add_argument("--no-model", action="store_true", help="skip the part with a model")
    args = parser.parse_args()
    home = Path(args.home or tempfile.mkdtemp(prefix="lore-why-"))
    reuse = (home / "lore.db").exists()
    os.environ["LORE_HOME"] = str(home)
    os.environ["LORE_EMBED"] = args.embed
    for var in ("LORE_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        os.environ.pop(var, None)

    from lore.core.dates import to_epoch
    from lore.history.ingest.github import Thread, ingest_github, ingest_threads
    from lore.history.repos import resolve_repo
    from lore.history.why import evaluate
    from lore.history.why.index import update_index
    from lore.history.why.service import why
    from lore.history.why.store import open_why
    from support.fake_github import FakeGitHub
    from support.fake_llm import API_KEY, FakeLLM

    if reuse:
        print(f"reusing the store in {home}")
    else:
        root = synth_repo(args.commits)
        gh = FakeGitHub("bench", "synth")
        load_threads(gh, root, args.threads)
        t = time.perf_counter()
        if args.via == "http":
            with gh:
                os.environ["LORE_GITHUB_API"] = gh.url
                report = ingest_github("bench/synth", clone=root)
        else:
            gh.stop()  # never served: its payloads go straight to the ingest's writer
            items = sorted(gh.items.values(), key=lambda i: (i.data["created_at"], i.data["number"]))
            threads = [Thread(i.data, i.pull, i.files, i.review_comments, i.events) for i in items]
            report = ingest_threads("bench/synth", threads, clone=root)
        print(
            f"ingested {report.items:,} threads ({args.via}) and {report.commits:,} commits"
            f" in {time.perf_counter() - t:.1f}s"
        )
    repo = resolve_repo("bench/synth")
    t = time.perf_counter()
    added = update_index(repo)
    print(
        f"why index: {added:,} texts (keyword rows, written by the ingest) in {time.perf_counter() - t:.1f}s"
    )

    questions = evaluate.draft(repo)
    rng = random.Random(3)
    paths = [f"src/mod{m:02d}/file{f:02d}.py" for m in range(0, 40, 3) for f in (2, 9)]
    asks = [(q.question, q.as_of) for q in questions] + [(p, None) for p in paths]
    rng.shuffle(asks)
    timed = [(q, to_epoch(a) if a else None) for q, a in (asks * (1 + args.timed // max(1, len(asks))))]
    timed = timed[: args.timed]
    db = open_why()
    messages = MessagesBm25([(d.id, d.at, d.text) for d in db.docs(repo.id) if d.kind == "commit"])
    times, plain = [], []
    for question, as_of in timed:
        t0 = time.perf_counter()
        why(repo, question, as_of=as_of, use_model=False)
        times.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        messages.search(question, as_of)
        plain.append((time.perf_counter() - t0) * 1000)
    p50, p95 = statistics.median(times), pct(times, 95)
    b50, b95 = statistics.median(plain), pct(plain, 95)
    print(
        f"\nwhy without a model, {len(times)} calls: p50 {p50:.1f} ms, p95 {p95:.1f} ms"
        f" (target p95 < 100 ms: {'met' if p95 < 100 else 'MISSED'})"
        f"\nbaseline, plain BM25 over the commit messages alone: p50 {b50:.1f} ms, p95 {b95:.1f} ms;"
        f" why / baseline: p50 x{p50 / max(b50, 1e-6):.1f}, p95 x{p95 / max(b95, 1e-6):.1f}"
    )

    t = time.perf_counter()
    result = evaluate.run(repo, questions)
    print(
        f"\nrecall@10, {len(questions)} drafted questions (unreviewed), embedder {args.embed}"
        f" ({time.perf_counter() - t:.0f}s):"
    )
    print(f"{'category':<11} {'split':<9} {'n':>3} {'hybrid':>7} {'vector':>7}")
    for category, splits in result.items():
        for split, row in splits.items():
            print(f"{category:<11} {split:<9} {row['n']:>3} {row['hybrid']:>7.3f} {row['vector']:>7.3f}")

    if args.no_model:
        return
    llm = FakeLLM().start()
    os.environ.update(LORE_MODEL="openai:fake-model", OPENAI_BASE_URL=llm.url, OPENAI_API_KEY=API_KEY)

    def cite(request) -> dict:
        text = request.last_user
        return {
            "sentences": [
                {
                    "text": "It was changed for this.",
                    "evidence": "E1",
                    "quote": text[text.find('"text": "') + 9 :][:20],
                }
            ]
        }

    llm.reply("Evidence (repository data", cite)
    asked = [q for q in questions if q.category in ("single_hop", "multi_hop")][:20]
    shown = 0
    for q in asked:
        shown += bool(why(repo, q.question, use_model=True).answer)
    n = max(1, len(asked))
    print(
        f"\nwith a model (local fake server): {llm.count('chat') / n:.2f} calls and"
        f" {(llm.prompt_tokens + llm.completion_tokens) / n:,.0f} tokens per answer"
        f" ({llm.prompt_tokens / n:,.0f} prompt + {llm.completion_tokens / n:,.0f} completion);"
        f" {shown}/{len(asked)} answers had a verified sentence"
    )
    llm.close()


if __name__ == "__main__":
    from report import recorded

    if "--real" in sys.argv:  # real repositories and the labelled set: bench/history_why_real.py
        import history_why_real

        about = " ".join((history_why_real.__doc__ or "").split("\n\n")[0].split())
        with recorded(name="history_why_real", baseline=history_why_real.BASELINE, about=about):
            history_why_real.main(sys.argv[1:])
        sys.exit(0)
    with recorded(
        baseline="vector-only ranking (recall), and the targets it prints (no-model p95 under 100 ms)"
    ):
        main()
