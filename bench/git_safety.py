"""What the safe way of running git costs: `lore.core.git` against bare git, one run.

    .venv/bin/python bench/git_safety.py [--files 5000] [--repeat 7]

A synthetic repository (tracked files plus untracked ones, in a temp folder) is listed with a
bare `git ls-files -z --cached --others --exclude-standard` and with `core.git.ls_files` (the
same command with the safe `-c` options and environment, decoded and sorted); a bare
`git rev-parse --is-inside-work-tree` is the floor for one git process, against which the trust
check (`check_with_git`: five small git calls and a look at the git folder, no network) is
shown. Rounds are interleaved so a busy spell on the shared machine hits every row alike; the
table shows medians with the ratio to its baseline.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lore.core import git
from lore.rules.gate.trust import check_with_git


def _repo(root: Path, files: int) -> Path:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}

    def run(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)

    root.mkdir(parents=True)
    run("init", "-q", "-b", "main")
    run("config", "user.email", "bench@example.com")
    run("config", "user.name", "Bench")
    for n in range(files):
        folder = root / "src" / f"pkg{n % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n}.py").write_text(f"X = {n}\n")
    run("add", "-A")
    run("commit", "-qm", "files")
    for n in range(files // 5):
        (root / "src" / f"pkg{n % 50}" / f"new{n}.py").write_text("Y = 1\n")
    return root


def _time(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000, help="tracked files (plus a fifth untracked)")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved rounds (median shown)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gitconfig = Path(tmp) / "global.gitconfig"
        gitconfig.write_text("[user]\n\temail = bench@example.com\n")
        os.environ["GIT_CONFIG_GLOBAL"] = str(gitconfig)
        repo = _repo(Path(tmp) / "repo", args.files)
        bare_ls = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
        bare_one = ["git", "rev-parse", "--is-inside-work-tree"]
        rows: dict[str, list[float]] = {k: [] for k in ("bare_ls", "lore_ls", "bare_one", "trust")}
        listed = len(git.ls_files(repo))
        for i in range(args.repeat):
            print(f"round {i + 1}/{args.repeat} ...", file=sys.stderr)
            rows["bare_ls"].append(_time(lambda: subprocess.run(bare_ls, cwd=repo, capture_output=True)))
            rows["lore_ls"].append(_time(lambda: git.ls_files(repo)))
            rows["bare_one"].append(_time(lambda: subprocess.run(bare_one, cwd=repo, capture_output=True)))
            rows["trust"].append(_time(lambda: check_with_git(repo)))
        med = {k: statistics.median(v) for k, v in rows.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n{listed:,} files listed; median of {args.repeat} rounds; load average {load:.1f}\n")
    print(f"| {'what':<58} | {'ms':>8} | {'ratio':>6} |")
    print(f"|{'-' * 60}|{'-' * 10}|{'-' * 8}|")
    table = (
        ("bare `git ls-files` (baseline)", med["bare_ls"], med["bare_ls"]),
        ("`core.git.ls_files` (safe options, decoded, sorted)", med["lore_ls"], med["bare_ls"]),
        ("bare `git rev-parse` (baseline: one git process)", med["bare_one"], med["bare_one"]),
        ("trust check `check_with_git` (no cache, no network)", med["trust"], med["bare_one"]),
    )
    for name, seconds, base in table:
        print(f"| {name:<58} | {seconds * 1000:>8.1f} | {seconds / base:>5.2f}x |")


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="a bare `git ls-files` and one bare `git rev-parse`, interleaved in the same run"):
        main()
