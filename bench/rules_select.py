"""Benchmark: choosing rules for a task against sending every eligible rule.

Real rule text from ../shared/data/rules (Cursor .mdc and Copilot instruction files), split into
rules of at most 500 characters, loaded into a real store at 100, 1,000 and 10,000 eligible
rules. For each size it prints the selection time (p50/p95, index warm), the time of the
send-all baseline measured in the same run, the full service call, tokens sent against
send-all, the rules' vectors made once and read back from the store by a new index (as a new
process does), and the cost of adding one rule to a warm index against rebuilding it, for both
selection modes (`spec`: keywords, seed 003; `hybrid`: keywords and meaning). First it scores
both modes on the labelled set (bench/data/rules_tasks): must-recall, nice-recall, precision and
tokens against send-all, per split.

    .venv/bin/python bench/rules_select.py [--sizes 100,1000,10000]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED_RULES = Path(__file__).resolve().parents[2] / "shared" / "data" / "rules"
TASKS = [
    "add pagination to the orders endpoint",
    "write a migration that adds a status column",
    "fix the flaky login test",
    "rename the user repository class",
    "add retry with backoff to the http client",
    "validate the signup form input",
    "log request ids in the api middleware",
    "upgrade react and fix the type errors",
    "store the api key in an environment variable",
    "document the public functions of the parser module",
    "make the button component accessible",
    "handle the timeout error when fetching prices",
    "add a unit test for the tokenizer",
    "refactor the settings loader to use pydantic",
    "format the code with prettier and fix lint warnings",
    "speed up the slow sql query on the reports page",
    "add a dockerfile for the worker service",
    "cache the product list in redis",
    "split the large component into smaller hooks",
    "write the changelog entry for the release",
]


def rule_texts(limit: int) -> list[tuple[str, str]]:
    """(title, text) pairs: bullets and paragraphs of the shared rule files, headings as titles."""
    out: list[tuple[str, str]] = []
    files = sorted(SHARED_RULES.rglob("*.mdc")) + sorted(SHARED_RULES.rglob("*.instructions.md"))
    for path in files:
        body = path.read_text(encoding="utf-8", errors="replace")
        body = re.sub(r"\A---\n.*?\n---\n", "", body, flags=re.S)
        body = re.sub(r"```.*?```", "", body, flags=re.S)
        title = path.stem
        for block in re.split(r"\n\s*\n|\n(?=\s*[-*] )", body):
            block = block.strip()
            if block.startswith("#"):
                title = block.lstrip("#").strip().splitlines()[0][:80]
                block = "\n".join(block.splitlines()[1:]).strip()
            block = re.sub(r"^\s*[-*]\s+", "", block)
            if 20 <= len(block) <= 500 and "<!--" not in block:
                out.append((title, block))
    if not out:
        sys.exit("no rule files found in ../shared/data/rules")
    base = list(out)
    i = 0
    while len(out) < limit:  # reuse text with a variant marker when the corpus is smaller
        title, text = base[i % len(base)]
        out.append((title, f"{text} (variant {i // len(base) + 1})"))
        i += 1
    return out[:limit]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "src" / "api").mkdir(parents=True)
    (root / "src" / "api" / "orders.py").write_text("x\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def time_mode(index, tok, project, task_list, repeat, embedder) -> dict:
    """Selection times for one mode (index warm), and the tokens of its replies and of send-all."""
    from lore.core.text import estimate_tokens
    from lore.rules.serve.selection import choose

    paths = ["src/api/orders.py"]
    select_ms, all_ms, sent_tokens, all_tokens = [], [], 0, 0
    for task in task_list:
        for _ in range(repeat):
            t0 = time.perf_counter()
            reply = choose(
                index,
                tok,
                project=project.name,
                paths=paths,
                sections=["src/api"],
                task=task,
                embedder=embedder,
            )
            select_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            everything = choose(
                index, tok, project=project.name, paths=paths, sections=["src/api"], task=None
            )
            all_ms.append((time.perf_counter() - t0) * 1000)
        sent_tokens += estimate_tokens(reply.render())
        all_tokens += estimate_tokens(everything.render())
    return {
        "select p50": statistics.median(select_ms),
        "select p95": pct(select_ms, 0.95),
        "send-all p50": statistics.median(all_ms),
        "tokens sent": sent_tokens / len(task_list),
        "tokens send-all": all_tokens / len(task_list),
    }


def labelled_table() -> None:
    """Both modes on the labelled set (bench/data/rules_tasks), per split, same run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import rules_tasks

    labelled = rules_tasks.load()
    spec = rules_tasks.score(labelled, rules_tasks.spec_select)
    hybrid = rules_tasks.score(labelled, rules_tasks.hybrid_select)
    print(f"\nThe labelled set: {len(labelled.tasks)} tasks over {len(labelled.rules)} rules, "
          "tuned on dev only (bench/rules_tasks.py)\n")  # fmt: skip
    rules_tasks.print_table({"spec": spec, "hybrid": hybrid, "send-all": rules_tasks.send_all(spec)})
    print("must/nice-recall = labels served / labels; tokens/all = reply tokens against send-all.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per task")
    parser.add_argument("--no-labelled", action="store_true", help="skip the labelled-set table")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="lore-bench-"))
    os.environ["LORE_HOME"] = str(workdir / "home")

    from lore.core.bm25 import BM25Index
    from lore.rules import service
    from lore.rules.serve.index import forget_indexes, project_index, rank_terms
    from lore.rules.serve.meaning import semantic_embedder, task_text
    from lore.rules.store.rules import rules_store

    if not args.no_labelled:
        labelled_table()
    embedder = semantic_embedder()
    texts = rule_texts(max(sizes) + 1)
    rows = []
    for size in sizes:
        project, _ = service.register_project(make_repo(workdir / f"p{size}"))
        t0 = time.perf_counter()
        store = rules_store()
        for title, text in texts[:size]:
            store.insert_rule(project.id, {"text": text, "title": title, "status": "active", "tagged": True})
        insert_s = time.perf_counter() - t0
        tok = service.tokenizer()
        t0 = time.perf_counter()
        index = project_index(store, project.id, tok)  # first build, from the store
        build_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        index.meaning.similarities(embedder, task_text(TASKS[0], []))  # the rules' vectors, once
        vectors_s = time.perf_counter() - t0
        forget_indexes()  # as a new process: the index again, the vectors read back from the store
        index = project_index(store, project.id, tok)
        t0 = time.perf_counter()
        index.meaning.similarities(embedder, task_text(TASKS[0], []))
        reread_s = time.perf_counter() - t0
        for mode, space in (("spec", None), ("hybrid", embedder)):
            row = time_mode(index, tok, project, TASKS, args.repeat, space)
            t0 = time.perf_counter()
            for task in TASKS:
                service.rules_for_change(project, ["src/api/orders.py"], task=task, mode=mode)
            row["service p50"] = (time.perf_counter() - t0) * 1000 / len(TASKS)
            rows.append({"rules": size, "mode": mode, **row})

        # incremental: add one rule, then the next query catches up, against a full rebuild
        title, text = texts[size]
        t0 = time.perf_counter()
        store.insert_rule(project.id, {"text": text, "title": title, "status": "active"})
        project_index(store, project.id, tok)
        index.meaning.similarities(embedder, task_text(TASKS[0], []))
        add_ms = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        rebuilt = BM25Index()
        for rule in index.rules.values():
            rebuilt.add(rule.id, rank_terms(rule, tok))
        rebuild_ms = (time.perf_counter() - t0) * 1000
        rows[-1].update(
            {"add 1 rule ms": add_ms, "rebuild ms": rebuild_ms, "first build s": build_s,
             "vectors s": vectors_s, "reread s": reread_s, "insert s": insert_s}
        )  # fmt: skip

    print(f"\nChoosing rules for {len(TASKS)} tasks x {args.repeat} runs (times in ms unless noted)\n")
    head = ("rules", "mode", "select p50", "select p95", "send-all p50", "ratio", "service mean", "tokens sent",
            "send-all tokens", "saved")  # fmt: skip
    print(" | ".join(f"{h:>13}" for h in head))
    for r in rows:
        vals = (
            r["rules"],
            r["mode"],
            f"{r['select p50']:.3f}",
            f"{r['select p95']:.3f}",
            f"{r['send-all p50']:.3f}",
            f"{r['select p50'] / r['send-all p50']:.2f}x",
            f"{r['service p50']:.2f}",
            f"{r['tokens sent']:.0f}",
            f"{r['tokens send-all']:.0f}",
            f"{1 - r['tokens sent'] / r['tokens send-all']:.1%}",
        )
        print(" | ".join(f"{v:>13}" for v in vals))
    print("\nratio = selection time / send-all time (both index warm, same run); saved = tokens not sent.")
    print("Targets for hybrid: select p50 under 2 ms at 1,000 rules and 15 ms at 10,000.")
    print(
        "add 1 rule = store insert + incremental index catch-up (with its vector); rebuild = BM25 re-index."
    )
    for r in rows:
        if "insert s" in r:
            print(
                f"  {r['rules']:>6} rules: first index build {r['first build s']:.2f} s, rule vectors "
                f"{r['vectors s']:.2f} s (read back by a new index {r['reread s']:.2f} s), bulk insert {r['insert s']:.2f} s, add 1 rule "
                f"{r['add 1 rule ms']:.2f} ms, rebuild {r['rebuild ms']:.1f} ms"
            )


if __name__ == "__main__":
    main()
