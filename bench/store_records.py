"""What typed records cost: store reads against the same SQL fetched as driver rows, one run.

    .venv/bin/python bench/store_records.py [--commits 3000] [--repeat 20]

The store methods return frozen dataclasses or tuples instead of `sqlite3.Row`; this measures
that conversion on the biggest reads of an ingested synthetic repository (bench/history_synth.py):
the baseline is the very SQL the method runs, fetched as rows (`fetchall()`), in the same
process and store. Ratio = store method time / baseline time (1.00x = free).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from history_synth import synth_repo


def timed(fn: Callable[[], Any], repeat: int) -> float:
    """Median milliseconds of `repeat` calls (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    repo_path = synth_repo(args.commits)
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-records-")

    from lore.history import store as sql
    from lore.history.ingest.git import ingest_git
    from lore.history.repos import resolve_repo

    report = ingest_git(repo_path)
    repo = resolve_repo(report.repo)
    db = sql.open_history()
    conn = db.store.connect()  # the baseline reads the same tables as driver rows
    since = float("-inf")
    changes_sql = (
        "SELECT ch.commit_id, ch.file_id, f.key, ch.added, ch.removed, ch.at,"
        " (SELECT e.src FROM history_edges e INDEXED BY history_edges_dst WHERE e.dst ="
        "  ch.commit_id AND e.rel = 'AUTHORED' LIMIT 1)"
        " FROM history_changes ch JOIN history_nodes f ON f.id = ch.file_id"
        " WHERE f.repo_id = ? AND ch.at >= ? ORDER BY ch.at, ch.commit_id, f.key"
    )
    commit_ids = [
        r[0] for r in conn.execute("SELECT node_id FROM history_commits WHERE repo_id = ?", (repo.id,))
    ]
    details_sql = (
        "SELECT node_id, sha, author_name, author_email, is_bot, pr_number, files, added, removed"
        f" FROM history_commits WHERE node_id IN ({', '.join('?' for _ in commit_ids)})"
    )
    cases = [
        (
            f"changes ({len(db.changes(repo.id)):,} rows)",
            lambda: db.changes(repo.id),
            lambda: conn.execute(changes_sql, (repo.id, since)).fetchall(),
        ),
        (
            f"commit_details ({len(commit_ids):,} records)",
            lambda: db.commit_details(commit_ids),
            lambda: {r["node_id"]: r for r in conn.execute(details_sql, commit_ids)},
        ),
        (
            "find_files_by_suffix (5 records)",
            lambda: db.find_files_by_suffix(repo.id, "file05.py"),
            lambda: conn.execute(
                "SELECT * FROM history_nodes WHERE repo_id = ? AND kind = 'file'"
                " AND (key = ? OR key LIKE ? ESCAPE '\\') ORDER BY at DESC, key LIMIT 5",
                (repo.id, "file05.py", "%/file05.py"),
            ).fetchall(),
        ),
    ]
    print(f"{report.commits_added:,} commits ingested; median of {args.repeat} calls each, wall-clock ms\n")
    print(f"{'read':<36} {'rows (baseline)':>16} {'records (store)':>16} {'ratio':>7}")
    for name, store_call, raw_call in cases:
        raw = timed(raw_call, args.repeat)
        typed = timed(store_call, args.repeat)
        print(f"{name:<36} {raw:>16.2f} {typed:>16.2f} {typed / raw:>6.2f}x")


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="the same SQL fetched as driver rows, same process and store"):
        main()
