"""`lore history why` quotes the reason: on real histories, is the labelled reason what Lore shows?

    .venv/bin/python bench/why_reasons.py [--split dev|held_out] [--click PATH] [--fastapi PATH]
        [--home DIR (a second run reuses its store)] [--show (dev only: each item's quote)]

The questions are bench/data/why_questions.jsonl's items with a `reason_quote` (the sentence of
the answering commit's message that states the reason, labelled from git before Lore was run;
see its .md). The two repositories are cloned from the local mirrors unless paths are given, and
ingested by Lore (`ingest_git`). For each question the answering commit's item is built as `why`
builds it (its indexed text, its reason picked for the question) and its quote compared with the
label: "contains" (the label whole, spacing and case aside) and "most" (more than half of the
label's words in the quote). Baselines in the same run, on the same items: the subject line
(what `why` showed before it quoted reasons) and the sentence sharing most of the question's
words, subject included (the rule it replaced). Also: how often the commit is in `why`'s top 10.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "why_questions.jsonl"
MIRRORS = {"click": "/work/.mirror/pallets+click/repo", "fastapi": "/work/.mirror/fastapi+fastapi/repo"}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def matches(shown: str, label: str) -> tuple[bool, bool]:
    """(the label is inside the quote, more than half of the label's words are in it)."""
    flat = " ".join(shown.lower().split())
    contains = bool(shown) and " ".join(label.lower().split()) in flat
    wanted, got = words(label), set(words(shown))
    most = bool(wanted) and sum(w in got for w in wanted) / len(wanted) > 0.5
    return contains, contains or most


def shared_words_sentence(text: str, question: str) -> str:
    """The rule `why` used before: the sentence (subject included) sharing most question words."""
    from lore.core.text import split_words, stem
    from lore.core.vocabulary import STOPWORDS

    def terms(t: str) -> set[str]:
        return {stem(w) for w in split_words(t) if w not in STOPWORDS and len(w) > 1}

    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[])|\n\s*\n", text) if p.strip()]
    wanted = terms(question)
    best, score = (parts[0] if parts else ""), 0
    for part in parts:
        hit = len(terms(part) & wanted)
        if hit > score:
            best, score = part, hit
    return best[:280]


def clone(name: str, given: str | None, into: Path) -> Path:
    if given:
        return Path(given)
    target = into / name
    if not target.exists():
        subprocess.run(["git", "clone", "-q", MIRRORS[name], str(target)], check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "held_out"), default="dev")
    parser.add_argument("--click")
    parser.add_argument("--fastapi")
    parser.add_argument("--home", help="keep the store (and clones) here; a second run reuses them")
    parser.add_argument("--show", action="store_true", help="each dev item's quote (never held-out text)")
    args = parser.parse_args()
    if args.show and args.split != "dev":
        parser.error("--show prints the items' text: dev only")
    home = Path(args.home or tempfile.mkdtemp(prefix="lore-why-reasons-"))
    home.mkdir(parents=True, exist_ok=True)
    os.environ["LORE_HOME"] = str(home)
    os.environ["LORE_EMBED"] = "hash"
    for var in ("LORE_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        os.environ.pop(var, None)

    from lore.history import store as layer1
    from lore.history.ingest.git import ingest_git
    from lore.history.repos import resolve_repo
    from lore.history.why.evidence import with_reason
    from lore.history.why.service import gather
    from lore.history.why.sourced import evidence_of
    from lore.history.why.store import open_why

    items = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    items = [i for i in items if i.get("reason_quote") and i["split"] == args.split]
    repos = {}
    for name in sorted({i["repo"] for i in items}):
        root = clone(name, getattr(args, name), home / "clones")
        ingest_git(root)  # tops up on a second run
        repos[name] = resolve_repo(root.name)

    db, graph = open_why(), layer1.open_history()
    rows = []
    for item in items:
        repo, sha, label = repos[item["repo"]], item["answers"][0], item["reason_quote"]
        node = graph.commits_by_sha(repo.id, [sha])[sha]
        (built,) = evidence_of(repo, db.sourced_by_source(repo.id, ("commit",), [node]))
        shown = with_reason(built, item["question"])
        top = [e.unit for e in gather(repo, item["question"], limit=10).evidence]
        rows.append(
            {
                "lore": matches(shown.quote, label),
                "subject": matches(built.title, label),
                "shared": matches(shared_words_sentence(built.text, item["question"]), label),
                "in_top10": f"commit:{sha}" in top,
                "where": shown.reason.where if shown.reason else "none",
                "chars": len(shown.quote),
            }
        )
        if args.show:
            mark = "ok" if rows[-1]["lore"][1] else "MISS"
            print(f"{mark:4} {item['id']}: {' '.join(shown.quote.split())[:160]!r}")

    n = len(rows)

    def count(key: str, which: int) -> int:
        return sum(r[key][which] for r in rows)

    print(f"why quotes the reason: {n} labelled items ({args.split} half) over click and fastapi\n")
    print(f"{'quote shown':34} {'contains':>9} {'most':>6}")
    for key, name in (
        ("lore", "Lore (the reason picked)"),
        ("subject", "baseline: the subject line"),
        ("shared", "baseline: most shared words"),
    ):
        print(f"{name:34} {count(key, 0):4d}/{n:<4d} {count(key, 1):2d}/{n}")
    base = max(count("subject", 1), count("shared", 1), 1)
    print(f"\nLore / best baseline (most): {count('lore', 1) / base:.2f}x")
    body = sum(r["where"] == "body" for r in rows)
    title = sum(r["where"] == "title" for r in rows)
    print(f"reason from the body {body}, from the subject {title}, none stated {n - body - title}")
    print(f"answering commit in why's top 10: {sum(r['in_top10'] for r in rows)}/{n}")


if __name__ == "__main__":
    from report import recorded

    if "--show" in sys.argv:
        main()
    else:
        with recorded(baseline="the subject line, and the old most-shared-words sentence, in the same run"):
            main()
