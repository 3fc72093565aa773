"""Ingest speed: `lore history ingest` vs PyDriller vs a bare `git log --numstat`, one run.

    .venv/bin/python bench/history_ingest.py [--commits 20000] [--pydriller-prefix 1000]

The repository is synthetic (bench/history_synth.py, built with `git fast-import`, cached in
bench/out/). PyDriller walks commits and their modified files (with line counts); it needs a
few ms per commit, so it is timed on the first N commits and extrapolated, and the table says
so. The floor is git itself: the bare `git log --numstat`, and the exact `git log` command
Lore reads (with --raw and rename detection), both piped to nowhere.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from history_synth import OUT, synth_repo


def _time_cmd(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _lore_ingest(repo: Path) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "LORE_HOME": home}
        code = (
            "import json, sys, time; from pathlib import Path;"
            "from lore.history.ingest_git import ingest_git;"
            "t = time.perf_counter(); r = ingest_git(Path(sys.argv[1]));"
            "print(json.dumps([time.perf_counter() - t, r.commits_added]))"
        )
        out = subprocess.run([sys.executable, "-c", code, str(repo)], env=env, check=True,
                             capture_output=True, text=True).stdout
        seconds, commits = json.loads(out)
        return seconds, commits


def _pydriller(repo: Path, prefix: int) -> tuple[float, int]:
    from pydriller import Repository

    start = time.perf_counter()
    seen = 0
    for commit in Repository(str(repo), order="reverse").traverse_commits():
        for mod in commit.modified_files:
            _ = (mod.new_path or mod.old_path, mod.added_lines, mod.deleted_lines)
        seen += 1
        if seen >= prefix:
            break
    return time.perf_counter() - start, seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--pydriller-prefix", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N for git and Lore")
    args = parser.parse_args()

    repo = synth_repo(args.commits)
    total = int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, check=True,
                               capture_output=True, text=True).stdout)
    from lore.history.gitlog import log_command

    bare = min(_time_cmd(["git", "log", "--numstat", "HEAD"], repo) for _ in range(args.repeat))
    exact = min(_time_cmd(log_command(["HEAD"]), repo) for _ in range(args.repeat))
    runs = [_lore_ingest(repo) for _ in range(args.repeat)]
    lore_s, lore_commits = min(runs)
    try:
        py_s, py_n = _pydriller(repo, args.pydriller_prefix)
        py_full = py_s / py_n * total
    except ImportError:
        py_s = py_n = py_full = None

    rows = [
        ("git log --numstat (bare floor)", total, bare, "measured"),
        ("git log as Lore runs it (-z --raw --numstat -M)", total, exact, "measured"),
        ("lore history ingest (parse + SQLite)", lore_commits, lore_s, "measured"),
    ]
    if py_full is not None:
        rows.append((f"PyDriller, {py_n:,} commits timed", py_n, py_s, "measured"))
        rows.append(("PyDriller, all commits", total, py_full,
                     f"extrapolated from {py_n:,}"))
    print(f"\nrepository: {repo} ({total:,} commits)\n")
    print(f"{'method':<52} {'commits':>8} {'seconds':>9} {'commits/s':>10} {'vs lore':>8}  note")
    for name, n, s, note in rows:
        ratio = s / lore_s if lore_s else float("nan")
        print(f"{name:<52} {n:>8,} {s:>9.2f} {n / s:>10,.0f} {ratio:>7.2f}x  {note}")
    print()
    print(f"lore vs bare git log:   {lore_s / bare:.2f}x the floor (target: within 2x)")
    print(f"lore vs git log as run: {lore_s / exact:.2f}x")
    if py_full is not None:
        print(f"PyDriller vs lore:      {py_full / lore_s:.0f}x slower (target: at least 10x)")
    OUT.mkdir(exist_ok=True)
    (OUT / "history_ingest.json").write_text(json.dumps({
        "commits": total, "bare_git_log_s": bare, "lore_git_log_s": exact, "lore_ingest_s": lore_s,
        "pydriller_prefix": py_n, "pydriller_prefix_s": py_s, "pydriller_full_s_extrapolated":
        py_full}, indent=2))


if __name__ == "__main__":
    main()
