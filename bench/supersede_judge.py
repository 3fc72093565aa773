"""How many decision pairs a judge that always says "replaces" could close, before and after the
grounded-word rule of `lore history supersede`.

Every commit with a body on a real repository's first-parent history stands in for a decision
(its subject as statement and quote, the files it touched as its files, one scope for all, so
the scope never separates a pair): the worst case, where everything a maintainer wrote is taken
for a decision. A pair is put to the judge when the two share a file (the anchor rule alone:
the baseline, counted in the same run) and, with the rule, when they also share a grounded word
(a name or content word both statements say and both quotes carry). A judge that always answers
"replaces" closes every pair it is shown, so the pairs shown are the pairs it can close.
No model is called: the count is what such a judge would be shown.

    .venv/bin/python bench/supersede_judge.py /tmp/click27 --commits 400
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lore.core import git
from lore.history.decisions.store import DecisionRow
from lore.history.decisions.supersede import pairs


def decisions_of(root: Path, limit: int) -> list[DecisionRow]:
    """The newest `limit` first-parent commits with a body, as decision rows, oldest first."""
    out = git.run(
        ["log", "--first-parent", "--no-merges", "--name-only", "--format=%x1e%H%x1f%ct%x1f%s%x1f%b%x1f"],
        root,
    )
    rows: list[DecisionRow] = []
    for n, record in enumerate(out.text.split("\x1e")[1:]):
        sha, at, subject, body, files = record.split("\x1f", 4)
        if not body.strip():
            continue
        rows.append(
            DecisionRow(n, 1, subject, "", "other", tuple(f for f in files.split() if f), "commit", None,
                        n, None, None, sha, None, "maintainer", "committer", subject, 0, len(subject),
                        float(at), "bench", 1.0, 0.0, "first-parent committer", "grounded")
        )  # fmt: skip
        if len(rows) >= limit:
            break
    return sorted(rows, key=lambda r: (r.valid_from, r.id))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a local clone")
    parser.add_argument("--commits", type=int, default=400, help="newest commits with a body to take")
    args = parser.parse_args()
    rows = decisions_of(args.repo, args.commits)
    lineage: dict[int, set[int]] = {}
    before = pairs(rows, lineage, need_words=False)
    after = pairs(rows, lineage)
    print(f"{args.repo.name}: {len(rows)} commits with a body taken as decisions, one scope")
    print(f"pairs an always-'replaces' judge is shown, file anchor only (baseline): {len(before):,}")
    print(f"pairs it is shown with the grounded-word rule: {len(after):,}")
    ratio = len(after) / len(before) if before else 0.0
    print(f"ratio to the baseline: {ratio:.2f}")


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="the file anchor alone, counted in the same run"):
        main()
