"""Lineage against git: every live file's commits in `lore history file` vs `git log --follow`.

    .venv/bin/python bench/history_lineage.py [REPO] [--limit N] [--show 10]

REPO is a git work tree (default: /tmp/click when it exists). It is ingested into a fresh,
temporary store (the repository itself is only read), then for every file `git ls-files`
lists at HEAD the set of commits `lore history file PATH` shows (through the same service
function the CLI calls) is compared with the set `git log --follow --no-merges --format=%H
-- PATH` prints. The report gives the number of files, the files whose sets differ, the
commits git lists that Lore misses and the commits Lore lists that git does not (target: 0
for both), with the time each side took for all files. `--show` prints that many mismatching
files with their missing and extra commits; `--limit` checks only the first N files.

Where the two disagree by design the report says so: `git log --follow` also follows a copy
where the file first appears (a file split out of another gets that file's whole history;
Lore follows renames, as `-M` finds them), and it follows one name back in date order, so a
branch's edits under the old name that are newer than a rename made on another branch are
lost to it (Lore lists them: "commits Lore adds"). See docs/history.md, "Lineage".
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

DEFAULT = Path("/tmp/click")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, errors="surrogateescape"
    ).stdout


def _git_sets(repo: Path, paths: list[str]) -> tuple[dict[str, set[str]], dict[str, set[str]], float]:
    """Each path's `git log --follow` commits (merges left out: Lore lists no merge commit),
    and those git reached only through a copy (`C` in its `--name-status`: `--follow` looks
    for copies, with --find-copies-harder, where the file first appears)."""
    out: dict[str, set[str]] = {}
    copied: dict[str, set[str]] = {}
    start = time.perf_counter()
    for path in paths:
        text = _git(repo, "log", "--follow", "--no-merges", "--format=%x01%H", "--name-status", "--", path)
        shas: list[str] = []
        behind: set[str] = set()
        through_copy = False
        for block in text.split("\x01")[1:]:
            sha, _, rest = block.partition("\n")
            shas.append(sha)
            if through_copy:
                behind.add(sha)
            if any(line.startswith("C") for line in rest.splitlines()):
                through_copy = True
        out[path], copied[path] = set(shas), behind
    return out, copied, time.perf_counter() - start


# Runs in its own process with a temporary LORE_HOME: ingest, then `file_history` per path.
_LORE = """
import json, sys, time
from pathlib import Path
from lore.history import queries as q
from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo

repo_path, paths = sys.argv[1], json.loads(sys.stdin.read())
t = time.perf_counter()
ingest_git(Path(repo_path))
ingest_s = time.perf_counter() - t
repo = resolve_repo(repo_path)
sets = {}
t = time.perf_counter()
for p in paths:
    story = q.file_history(repo, p)
    sets[p] = [e["sha"] for e in story["entries"] if e["kind"] == "commit"]
print(json.dumps({"ingest_s": ingest_s, "file_s": time.perf_counter() - t, "sets": sets}))
"""


def _lore_sets(repo: Path, paths: list[str]) -> tuple[dict[str, set[str]], float, float]:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "LORE_HOME": home}
        done = subprocess.run(
            [sys.executable, "-c", _LORE, str(repo)],
            input=json.dumps(paths),
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    data = json.loads(done.stdout)
    return {p: set(v) for p, v in data["sets"].items()}, data["ingest_s"], data["file_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--limit", type=int, default=None, help="check only the first N files")
    parser.add_argument("--show", type=int, default=10, help="mismatching files to print")
    args = parser.parse_args()
    repo = args.repo.resolve()
    if not (repo / ".git").exists():
        sys.exit(f"error: {repo} is not a git work tree (clone one, or pass its path)")
    paths = [p for p in _git(repo, "ls-files", "-z").split("\0") if p]
    if args.limit:
        paths = paths[: args.limit]
    commits = int(_git(repo, "rev-list", "--count", "HEAD"))
    lore, ingest_s, lore_s = _lore_sets(repo, paths)
    git, copied, git_s = _git_sets(repo, paths)
    missing = {p: git[p] - lore[p] for p in paths if git[p] - lore[p]}
    extra = {p: lore[p] - git[p] for p in paths if lore[p] - git[p]}
    bad = sorted(set(missing) | set(extra))
    print(f"repository: {repo} ({commits:,} commits, {len(paths):,} live files)")
    print(f"files compared:        {len(paths):,}")
    print(f"files that differ:     {len(bad):,}")
    by_copy = sum(len(v & copied[p]) for p, v in missing.items())
    print(f"commits Lore misses:   {sum(len(v) for v in missing.values()):,}")
    print(f"  of which git reached through a copy:  {by_copy:,}")
    print(f"  the others (target 0):                {sum(len(v) for v in missing.values()) - by_copy:,}")
    print(f"commits Lore adds:     {sum(len(v) for v in extra.values()):,}")
    print(f"commits listed (git):  {sum(len(v) for v in git.values()):,}")
    print(f"git log --follow, all files:      {git_s:8.2f} s")
    print(f"lore history file, all files:     {lore_s:8.2f} s  ({lore_s / git_s:.2f}x git)")
    print(f"lore ingest (once, before those): {ingest_s:8.2f} s")
    for path in bad[: args.show]:
        print(f"\n{path}: git {len(git[path])}, lore {len(lore[path])}")
        for sha in sorted(missing.get(path, ())):
            why = " (through a copy)" if sha in copied[path] else ""
            print(
                f"  missing{why} {_git(repo, 'log', '-1', '--format=%h %ad %s', '--date=short', sha).strip()}"
            )
        for sha in sorted(extra.get(path, ())):
            print(f"  extra   {_git(repo, 'log', '-1', '--format=%h %ad %s', '--date=short', sha).strip()}")


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="`git log --follow --no-merges` for every live file, same run"):
        main()
