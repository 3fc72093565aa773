"""The grounding check on labelled sentences: lies that get through, correct sentences cut.

    .venv/bin/python bench/grounding.py [--split dev|held_out|all] [--show]

The sentences are `bench/data/grounding_claims.jsonl`, written blind (see its `.md`): for books
and for history, sentences a model would write from a verbatim quote of a passage or a commit
message, labelled `correct` (paraphrases, pronouns, light inference) or `lie` by kind (an
invented claim under a real quote, a fact from later in the book, an unrelated quote, a one-word
quote, who-did-what flipped, a changed number, an added reason, an overclaim).

Each sentence is checked as Lore checks it before any model verdict: books against its quote and
passage, with the names the reader has met and not met at the end of the quoted chapter (from
the shared books imported into a scratch library: `../shared/data/books`), then the who-did-what
check; history against its quote and commit message, the repository's name given.
The baseline, measured in the same run, is the quote check alone (the quote is in its source):
what stood between a model and a reader before grounding. Printed per domain and per kind: lies
that got through (target 0 on `held_out`) and correct sentences cut (target at most 5%).
`--show` prints the sentences each side got wrong (use it on `dev` only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
DATA = HERE / "data" / "grounding_claims.jsonl"
BOOKS = Path(os.environ.get("LORE_SHARED_DATA") or HERE.parent.parent / "shared" / "data") / "books"


def _rows(split: str) -> list[dict]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split == "all" or r["split"] == split]


def _book_checks(rows: list[dict]):
    """One grounding check per (book, chapter) the rows quote, as `lore books ask` builds it."""
    from lore.books import library
    from lore.books.ask.gather import target
    from lore.books.ask.grounded import grounding_for

    db = library.open_books()
    wanted = sorted({(r["source"]["book"], int(r["source"]["chapter"])) for r in rows})
    ids = {}
    for name in sorted({b for b, _ in wanted}):
        ids[name] = library.add_book(BOOKS / name, store=db).id
    return {
        (name, chapter): grounding_for(db, target(db, ids[name], None, position=(chapter, None)))
        for name, chapter in wanted
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=["dev", "held_out", "all"])
    parser.add_argument("--show", action="store_true", help="print what each side got wrong")
    args = parser.parse_args()
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-grounding-")

    from lore.books.ask.roles import swapped
    from lore.core.grounding import GroundingCheck, default_embed
    from lore.core.quotes import find_quote

    rows = _rows(args.split)
    books = [r for r in rows if r["domain"] == "books"]
    checks = _book_checks(books) if books else {}
    embed = default_embed()
    history = GroundingCheck(embed=embed, given=["click", "fastapi"], keep_case=False)

    # (domain, label, kind) -> [through the quote check, through grounding, total]
    seen: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    wrong: list[str] = []
    reasons: Counter[str] = Counter()
    for r in rows:
        if r["domain"] == "books":
            check = checks[(r["source"]["book"], int(r["source"]["chapter"]))]
        else:
            check = history
        quoted = find_quote(r["quote"], r["unit"]) is not None
        verdict = check.check(r["sentence"], r["quote"], r["unit"])
        flipped = r["domain"] == "books" and swapped(r["sentence"], r["quote"])
        passed = quoted and verdict.grounded and not flipped
        cell = seen[(r["domain"], r["label"], r["kind"])]
        cell[0] += quoted
        cell[1] += passed
        cell[2] += 1
        if r["label"] == "correct" and not passed:
            reasons[verdict.reason.split(" (")[0].split(",")[0]] += 1
        if (r["label"] == "lie") == passed:
            wrong.append(
                f"  [{r['label']}/{r['kind']}] {r['sentence']!r} <- {r['quote']!r}: {verdict.reason}"
            )

    print(f"grounding on {len(rows)} labelled sentences ({args.split}); baseline: the quote check alone\n")
    print(f"{'domain':8} {'label':8} {'kind':18} {'n':>4} {'quote check':>12} {'grounding':>10}")
    for (domain, label, kind), (quoted, passed, n) in sorted(seen.items()):
        print(f"{domain:8} {label:8} {kind:18} {n:4d} {quoted:12d} {passed:10d}")
    print()
    for domain in sorted({d for d, _, _ in seen}):
        lies = [v for (d, label, _), v in seen.items() if d == domain and label == "lie"]
        good = [v for (d, label, _), v in seen.items() if d == domain and label == "correct"]
        n_lies, n_good = sum(v[2] for v in lies), sum(v[2] for v in good)
        base = sum(v[0] for v in lies)
        through = sum(v[1] for v in lies)
        cut = n_good - sum(v[1] for v in good)
        ratio = f"{through / base:.2f}x of the baseline" if base else "n/a"
        print(
            f"{domain}: lies through {through}/{n_lies} (quote check alone: {base}/{n_lies}; {ratio});"
            f" correct cut {cut}/{n_good} ({cut / max(n_good, 1):.1%})"
        )
    if reasons:
        print("correct sentences cut, by reason: " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
    if args.show:
        print("\nwrong:\n" + "\n".join(wrong))


if __name__ == "__main__":
    from report import recorded

    if "--show" in sys.argv:
        main()
    else:
        with recorded(baseline="the quote check alone (the cited words are in the source), in the same run"):
            main()
