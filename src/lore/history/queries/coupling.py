"""Logical coupling: which files change together, as code-maat computes it, each file's changes
followed through its renames.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations
from typing import Any

from lore.history.queries.base import Filters, since_time
from lore.history.queries.files import file_entry, file_rows
from lore.history.queries.nodes import resolve_file
from lore.history.repos import Repo


def coupling(
    repo: Repo,
    *,
    min_revs: int = 5,
    min_shared: int = 5,
    min_degree: float = 30.0,
    max_changeset: int = 30,
    n: int = 20,
    since: str | None = None,
    filters: Filters | None = None,
    file: str | None = None,
) -> dict[str, Any]:
    """Logical coupling as code-maat computes it.

    For each pair of files changed in the same commits: `shared` commits, and `degree` =
    shared / mean(revisions of each) as a percentage. Commits touching more than
    `max_changeset` files are left out (a sweeping commit couples everything to everything),
    as are files with fewer than `min_revs` revisions. `file` keeps only the pairs of one file
    (code-maat's per-entity view); `filters` drop bots' commits and files outside the globs.
    """
    filters = filters or Filters()
    start = since_time(repo, since)
    files = file_rows(repo)
    names: dict[int, dict[str, Any]] = {}
    by_commit: dict[int, set[int]] = defaultdict(set)
    for i, f in enumerate(files):
        names[i] = file_entry(f)
        if not filters.keeps_path(f.path):
            continue
        for e in f.events:
            if (start is None or e.at >= start) and filters.keeps_author(e):
                by_commit[e.commit_id].add(i)
    focus: int | None = None
    if file is not None:
        node = resolve_file(repo, file)
        focus = next((i for i, f in enumerate(files) if f.key == ("tip", node.key)), -1)
    revs: Counter[int] = Counter()
    shared: Counter[tuple[int, int]] = Counter()
    skipped = 0
    for members in by_commit.values():
        if len(members) > max_changeset:
            skipped += 1
            continue
        revs.update(members)
        for a, b in combinations(sorted(members), 2):
            shared[(a, b)] += 1
    pairs = []
    for (a, b), count in shared.items():
        if focus is not None and focus not in (a, b):
            continue
        if count < min_shared or revs[a] < min_revs or revs[b] < min_revs:
            continue
        degree = 100.0 * count / ((revs[a] + revs[b]) / 2)
        if degree < min_degree:
            continue
        if focus is not None and b == focus:
            a, b = b, a
        pairs.append(
            {
                "entity": names[a]["path"],
                "coupled": names[b]["path"],
                "coupled_deleted": names[b]["deleted"],
                "degree": round(degree),
                "shared": count,
                "average_revs": round((revs[a] + revs[b]) / 2, 1),
            }
        )
    pairs.sort(key=lambda p: (-p["degree"], -p["shared"], p["entity"], p["coupled"]))
    return {
        "file": None if focus is None else names[focus]["path"] if focus >= 0 else file,
        "commits_considered": len(by_commit) - skipped,
        "commits_skipped_as_large": skipped,
        "thresholds": {
            "min_revs": min_revs,
            "min_shared": min_shared,
            "min_degree": min_degree,
            "max_changeset": max_changeset,
        },
        "pairs": pairs[:n],
    }
