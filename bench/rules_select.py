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

Selection times are wall clock (p50/p95) and the CPU time of the selecting thread (p50): on a
shared machine the wall clock mostly measures the other work, the thread's CPU far less.

    .venv/bin/python bench/rules_select.py [--sizes 100,1000,10000] [--compare OTHER/src]

`--compare` puts another tree's selection (`OTHER/src/lore/rules/serve/selection.py`, with its
`reply.py` and `hybrid.py` where it has them; for instance a `git archive` of `main`) beside
this one in the same run: its labelled-set table from
a child process with OTHER first on the path (the figures must match this tree's to the digit when
only speed changed), and its `choose` timed on the same warm index, call for call interleaved
with this tree's, with the count of replies that are identical. That tree's selection runs on
this tree's index and vectors (`index.py`, `meaning.py`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
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


def timed(choose, index, tok, project, task, embedder) -> tuple:
    """(reply, wall ms, thread CPU ms) of one selection for the bench's change."""
    w0, c0 = time.perf_counter(), time.thread_time()
    reply = choose(
        index, tok, project=project.name, paths=["src/api/orders.py"], sections=["src/api"], task=task,
        embedder=embedder,
    )  # fmt: skip
    return reply, (time.perf_counter() - w0) * 1000, (time.thread_time() - c0) * 1000


def time_mode(index, tok, project, task_list, repeat, embedder, before=None) -> dict:
    """Selection times for one mode (index warm), and the tokens of its replies and of send-all;
    with `before` (another tree's `choose`), its times too, each call beside one of this tree's."""
    from lore.core.tokens import estimate_tokens
    from lore.rules.serve.selection import choose

    paths = ["src/api/orders.py"]
    select_ms, select_cpu, all_ms, sent_tokens, all_tokens = [], [], [], 0, 0
    before_ms, before_cpu, same = [], [], 0
    for task in task_list:
        for n in range(repeat):
            if before is not None and n % 2:  # who goes first alternates: the second runs warmer
                old, b_wall, b_cpu = timed(before, index, tok, project, task, embedder)
            reply, wall, cpu = timed(choose, index, tok, project, task, embedder)
            select_ms.append(wall)
            select_cpu.append(cpu)
            if before is not None:
                if not n % 2:
                    old, b_wall, b_cpu = timed(before, index, tok, project, task, embedder)
                before_ms.append(b_wall)
                before_cpu.append(b_cpu)
                same += old.to_dict() == reply.to_dict()
            t0 = time.perf_counter()
            everything = choose(
                index, tok, project=project.name, paths=paths, sections=["src/api"], task=None
            )
            all_ms.append((time.perf_counter() - t0) * 1000)
        sent_tokens += estimate_tokens(reply.render())
        all_tokens += estimate_tokens(everything.render())
    out = {
        "select p50": statistics.median(select_ms),
        "select p95": pct(select_ms, 0.95),
        "select cpu p50": statistics.median(select_cpu),
        "send-all p50": statistics.median(all_ms),
        "tokens sent": sent_tokens / len(task_list),
        "tokens send-all": all_tokens / len(task_list),
    }
    if before is not None:
        out["before"] = {"p50": statistics.median(before_ms), "cpu p50": statistics.median(before_cpu),
                         "same": same, "calls": len(before_ms)}  # fmt: skip
    return out


def other_choose(src: Path):
    """The `choose` of another tree's selection, loaded beside this tree's: its `selection.py`
    and, where that tree has them, the `reply.py` and `hybrid.py` it imports (a tree from before
    they were parted from the selection has only the one file)."""
    serve = src / "lore" / "rules" / "serve"
    if not (serve / "selection.py").is_file():
        sys.exit(f"--compare: no selection module at {serve / 'selection.py'}")
    import lore.rules.serve.selection  # noqa: F401  (this tree's parts, loaded before any is swapped)

    own: dict[str, object] = {}
    try:
        for part in ("reply", "hybrid", "selection"):
            path = serve / f"{part}.py"
            spec = importlib.util.spec_from_file_location(f"compared_{part}", path)
            if spec is None or spec.loader is None or not path.is_file():
                continue
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
            spec.loader.exec_module(module)
            name = f"lore.rules.serve.{part}"
            own.setdefault(name, sys.modules[name])
            sys.modules[name] = module  # the other tree's later parts import this one
    finally:
        sys.modules.update(own)  # this tree's parts back in place
    return sys.modules["compared_selection"].choose


def compared_labelled_table(src: Path) -> str:
    """The labelled-set table of another tree, from a child process with it first on the path."""
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    done = subprocess.run(
        [sys.executable, __file__, "--labelled-only"], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        sys.exit(f"--compare: the other tree's labelled table failed: {done.stderr.strip()[-500:]}")
    print(f"\nBEFORE ({src}):" + done.stdout.rstrip("\n"))
    return done.stdout


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
    parser.add_argument("--labelled-only", action="store_true", help="only the labelled-set table")
    parser.add_argument("--compare", type=Path, help="another tree's src, timed and scored beside this one")
    args = parser.parse_args()
    if args.labelled_only:
        labelled_table()
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="lore-bench-"))
    os.environ["LORE_HOME"] = str(workdir / "home")

    from lore.core.bm25 import BM25Index
    from lore.rules import service
    from lore.rules.serve.index import forget_indexes, project_index, rank_terms
    from lore.rules.serve.meaning import semantic_embedder, task_text
    from lore.rules.store.rules import rules_store

    before = other_choose(args.compare) if args.compare else None
    if not args.no_labelled:
        if args.compare:
            before_table = compared_labelled_table(args.compare)
            mine = io.StringIO()
            with contextlib.redirect_stdout(mine):
                labelled_table()
            print("\nAFTER (this tree):" + mine.getvalue().rstrip("\n"))
            same = "identical" if mine.getvalue() == before_table else "DIFFERENT"
            print(f"\nthe two labelled-set tables are {same}")
        else:
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
            row = time_mode(index, tok, project, TASKS, args.repeat, space, before)
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
    head = ("rules", "mode", "select p50", "select p95", "cpu p50", "send-all p50", "ratio", "service mean",
            "tokens sent", "send-all tokens", "saved")  # fmt: skip
    print(" | ".join(f"{h:>13}" for h in head))
    for r in rows:
        vals = (
            r["rules"],
            r["mode"],
            f"{r['select p50']:.3f}",
            f"{r['select p95']:.3f}",
            f"{r['select cpu p50']:.3f}",
            f"{r['send-all p50']:.3f}",
            f"{r['select p50'] / r['send-all p50']:.2f}x",
            f"{r['service p50']:.2f}",
            f"{r['tokens sent']:.0f}",
            f"{r['tokens send-all']:.0f}",
            f"{1 - r['tokens sent'] / r['tokens send-all']:.1%}",
        )
        print(" | ".join(f"{v:>13}" for v in vals))
    print("\nratio = selection time / send-all time (both index warm, same run); saved = tokens not sent;")
    print("cpu = the selecting thread's CPU time (what the other work on the machine moves least).")
    if args.compare:
        print(f"\nAgainst {args.compare}'s selection, interleaved call for call on the same index (ms):\n")
        head = (
            "rules",
            "mode",
            "p50 before",
            "p50 now",
            "cpu before",
            "cpu now",
            "cpu ratio",
            "same replies",
        )
        print(" | ".join(f"{h:>12}" for h in head))
        for r in rows:
            b = r["before"]
            vals = (r["rules"], r["mode"], f"{b['p50']:.3f}", f"{r['select p50']:.3f}", f"{b['cpu p50']:.3f}",
                    f"{r['select cpu p50']:.3f}", f"{b['cpu p50'] / r['select cpu p50']:.2f}x",
                    f"{b['same']}/{b['calls']}")  # fmt: skip
            print(" | ".join(f"{v:>12}" for v in vals))
        print(
            "cpu ratio = before / now (above 1: faster now); same replies = identical to_dict() of the two."
        )
    print("Targets for hybrid: select p50 under 2 ms at 1,000 rules and 15 ms at 10,000.")
    for r in rows:
        if r["mode"] == "hybrid" and r["rules"] in (1000, 10000):
            target = 2.0 if r["rules"] == 1000 else 15.0
            print(f"  {r['rules']:>6} rules: p50 {r['select p50']:.2f} ms (want < {target:g}): "
                  f"{'met' if r['select p50'] < target else 'MISSED'}")  # fmt: skip
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

    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="sending every eligible rule, measured in the same run"):
        main()
