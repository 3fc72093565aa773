"""Ingest speed: `lore history ingest` vs PyDriller vs a bare `git log --numstat`, one run.

    .venv/bin/python bench/history_ingest.py [--commits 20000] [--repeat 5]
    .venv/bin/python bench/history_ingest.py --pydriller-prefix 1000   # quicker, extrapolated
    .venv/bin/python bench/history_ingest.py --real ../click --real ../fastapi --commits 0

`--real PATH` (repeatable) measures whole commands on real clones, start-up included: the
CPU time (user + system of the process and every child it waited for, from `wait4`) of
`lore history ingest PATH` into a fresh store, against the bare `git log --numstat -M` and
against the exact `git log` Lore runs, interleaved round after round, medians and ratios.
CPU, not wall time: on a machine shared with other work, waiting for a core is not cost.
`--commits 0` skips the synthetic repository.

The repository is synthetic (bench/history_synth.py, built with `git fast-import`, cached in
bench/out/). The floor is git itself: the bare `git log --numstat`, and the exact `git log`
command Lore reads (with --raw and rename detection), both piped to nowhere. Git and Lore are
run `--repeat` times, interleaved (one of each per round, so a busy spell on the machine hits
all three alike), and the table shows the median with the spread. PyDriller walks the SAME
commits as Lore with their modified files and line counts, once (it takes minutes); with
`--pydriller-prefix N` it walks only the first N and the full time is extrapolated, which the
table says on that row.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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


def _cpu_cmd(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of `cmd` and all the children it waited for."""
    child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    assert child.stderr is not None
    err = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err}")
    return usage.ru_utime + usage.ru_stime


def _real_repos(paths: list[Path], repeat: int) -> list[dict]:
    """CPU of `lore history ingest` (the console script, fresh store) against git, per clone."""
    from lore.history.ingest.gitlog import log_command

    lore = str(Path(sys.executable).with_name("lore"))
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # run as an installed lore does, with its caches
    rows = []
    for path in paths:
        path = path.resolve()
        commits = int(
            subprocess.run(
                ["git", "rev-list", "--count", "HEAD"], cwd=path, check=True, capture_output=True, text=True
            ).stdout
        )
        bare, exact, lore_cpu = [], [], []
        for i in range(repeat + 1):  # the first round warms the caches and is not counted
            print(f"{path.name}: round {i}/{repeat} ...", file=sys.stderr)
            b = _cpu_cmd(["git", "log", "--numstat", "-M", "HEAD"], path)
            e = _cpu_cmd(log_command(["HEAD"]), path)
            with tempfile.TemporaryDirectory() as home:
                lc = _cpu_cmd([lore, "history", "ingest", str(path)], path, {**env, "LORE_HOME": home})
            if i:
                bare.append(b)
                exact.append(e)
                lore_cpu.append(lc)
        rows.append(
            {
                "repository": path.name,
                "commits": commits,
                "bare_git_log_cpu_s": bare,
                "lore_git_log_cpu_s": exact,
                "lore_ingest_cpu_s": lore_cpu,
            }
        )
    return rows


def _print_real(rows: list[dict], repeat: int) -> None:
    print(
        f"\nreal repositories, CPU seconds (user + system of the process tree), median of {repeat}"
        " interleaved rounds\n"
    )
    print(
        f"{'repository':<12} {'commits':>8} {'git log --numstat -M':>21} {'git log as run':>15}"
        f" {'lore history ingest':>20} {'vs bare':>8} {'vs as run':>10}"
    )
    for row in rows:
        bare, exact, lore = (
            statistics.median(row[k])
            for k in ("bare_git_log_cpu_s", "lore_git_log_cpu_s", "lore_ingest_cpu_s")
        )
        print(
            f"{row['repository']:<12} {row['commits']:>8,} {bare:>21.2f} {exact:>15.2f} {lore:>20.2f}"
            f" {lore / bare:>7.2f}x {lore / exact:>9.2f}x"
        )
    print("target: lore history ingest within 1.5x the CPU of the bare git log, start-up included")


def _lore_ingest(repo: Path) -> tuple[float, int]:
    """A full ingest into a fresh store, in its own process (as `lore history ingest` runs)."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "LORE_HOME": home}
        code = (
            "import json, sys, time; from pathlib import Path;"
            "from lore.history.ingest.git import ingest_git;"
            "t = time.perf_counter(); r = ingest_git(Path(sys.argv[1]));"
            "print(json.dumps([time.perf_counter() - t, r.commits_added]))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(repo)], env=env, check=True, capture_output=True, text=True
        ).stdout
        seconds, commits = json.loads(out)
        return seconds, commits


def _branchy_line(commits: int) -> str:
    """Ingest a branching repository and ask it the lineage questions; times against git log."""
    repo = synth_repo(commits, branchy=True)
    merges = subprocess.run(
        ["git", "rev-list", "--count", "--merges", "HEAD"],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    git_s = _time_cmd(["git", "log", "--numstat", "HEAD"], repo)
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "LORE_HOME": home}
        code = (
            "import json, sys, time; from pathlib import Path;"
            "from lore.history.ingest.git import ingest_git; from lore.history import queries as q;"
            "from lore.history.repos import resolve_repo;"
            "t = time.perf_counter(); r = ingest_git(Path(sys.argv[1])); i = time.perf_counter() - t;"
            "repo = resolve_repo(sys.argv[1]); t = time.perf_counter(); c = q.churn(repo, n=5);"
            "ch = time.perf_counter() - t; t = time.perf_counter(); f = q.file_history(repo, 'CHANGELOG.md');"
            "fs = time.perf_counter() - t;"
            "print(json.dumps([i, r.commits_added, ch, fs, f['counts'].get('commit', 0)]))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(repo)], env=env, check=True, capture_output=True, text=True
        ).stdout
    ingest_s, n, churn_s, file_s, changelog = json.loads(out)
    expected = subprocess.run(
        ["git", "log", "--no-merges", "--full-history", "--format=%H", "HEAD", "--", "CHANGELOG.md"],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return (
        f"branching repository: {n:,} commits ({merges} merges of a parallel branch): ingest {ingest_s:.2f} s"
        f" = {ingest_s / git_s:.2f}x git log --numstat ({git_s:.2f} s); churn {churn_s:.2f} s;"
        f" file CHANGELOG.md {file_s:.2f} s, {changelog:,} commits (git log lists {len(expected):,})"
    )


def _pydriller(repo: Path, limit: int | None) -> tuple[float, int]:
    """PyDriller over the commits of HEAD (or the first `limit`), oldest first like Lore."""
    from pydriller import Repository

    start = time.perf_counter()
    seen = 0
    for commit in Repository(str(repo), order="reverse").traverse_commits():
        for mod in commit.modified_files:
            _ = (mod.new_path or mod.old_path, mod.added_lines, mod.deleted_lines)
        seen += 1
        if limit is not None and seen >= limit:
            break
    return time.perf_counter() - start, seen


def _spread(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}" if len(values) > 1 else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument(
        "--repeat", type=int, default=5, help="runs of git and Lore (interleaved); the median is reported"
    )
    parser.add_argument(
        "--pydriller-prefix",
        type=int,
        default=None,
        metavar="N",
        help="time PyDriller on the first N commits only and extrapolate "
        "(default: all commits, the same ones Lore reads)",
    )
    parser.add_argument("--no-pydriller", action="store_true", help="skip PyDriller")
    parser.add_argument(
        "--branchy-commits", type=int, default=10000, help="size of the branching repository (0 = skip it)"
    )
    parser.add_argument(
        "--real",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="also measure the CPU of whole commands on this clone (repeatable)",
    )
    args = parser.parse_args()
    real = _real_repos(args.real, args.repeat) if args.real else []
    if real:
        _print_real(real, args.repeat)
        OUT.mkdir(exist_ok=True)
        (OUT / "history_ingest_real.json").write_text(json.dumps(real, indent=2))
    if not args.commits:
        return

    repo = synth_repo(args.commits)
    total = int(
        subprocess.run(
            ["git", "rev-list", "--count", "HEAD"], cwd=repo, check=True, capture_output=True, text=True
        ).stdout
    )
    from lore.history.ingest.gitlog import log_command

    bare, exact, lore, lore_commits = [], [], [], 0
    for i in range(args.repeat):
        print(f"round {i + 1}/{args.repeat} ...", file=sys.stderr)
        bare.append(_time_cmd(["git", "log", "--numstat", "HEAD"], repo))
        exact.append(_time_cmd(log_command(["HEAD"]), repo))
        seconds, lore_commits = _lore_ingest(repo)
        lore.append(seconds)
    bare_s, exact_s, lore_s = (statistics.median(v) for v in (bare, exact, lore))

    py_s = py_n = py_full = None
    if not args.no_pydriller:
        try:
            print("PyDriller ...", file=sys.stderr)
            py_s, py_n = _pydriller(repo, args.pydriller_prefix)
            py_full = py_s / py_n * total
        except ImportError:
            print("PyDriller is not installed (pip install -e '.[dev]')", file=sys.stderr)

    runs = f"median of {args.repeat}"
    rows = [
        ("git log --numstat (bare floor)", total, bare_s, f"{runs}, {_spread(bare)} s"),
        ("git log as Lore runs it (-z --raw --numstat -M)", total, exact_s, f"{runs}, {_spread(exact)} s"),
        ("lore history ingest (parse + SQLite)", lore_commits, lore_s, f"{runs}, {_spread(lore)} s"),
    ]
    if py_full is not None and py_n == total:
        rows.append(("PyDriller, same commits", py_n, py_s, "measured once"))
    elif py_full is not None:
        rows.append((f"PyDriller, first {py_n:,} commits", py_n, py_s, "measured once"))
        rows.append(
            (
                f"PyDriller, all {total:,} (EXTRAPOLATED)",
                total,
                py_full,
                f"extrapolated from the first {py_n:,}",
            )
        )
    print(f"\nrepository: {repo} ({total:,} commits)\n")
    print(f"{'method':<50} {'commits':>8} {'seconds':>9} {'commits/s':>10} {'vs lore':>8}  note")
    for name, n, s, note in rows:
        ratio = s / lore_s if lore_s else float("nan")
        print(f"{name:<50} {n:>8,} {s:>9.2f} {n / s:>10,.0f} {ratio:>7.2f}x  {note}")
    print()
    print(f"lore vs bare git log:   {lore_s / bare_s:.2f}x the floor (target: within 2x)")
    print(f"lore vs git log as run: {lore_s / exact_s:.2f}x")
    if py_full is not None:
        how = "measured" if py_n == total else "extrapolated"
        print(f"PyDriller vs lore:      {py_full / lore_s:.0f}x slower, {how} (target: at least 10x)")
    branchy = _branchy_line(args.branchy_commits) if args.branchy_commits else None
    if branchy:
        print(branchy)
    OUT.mkdir(exist_ok=True)
    (OUT / "history_ingest.json").write_text(
        json.dumps(
            {
                "commits": total,
                "repeat": args.repeat,
                "statistic": "median",
                "bare_git_log_s": bare,
                "lore_git_log_s": exact,
                "lore_ingest_s": lore,
                "bare_git_log_median_s": bare_s,
                "lore_git_log_median_s": exact_s,
                "lore_ingest_median_s": lore_s,
                "pydriller_commits": py_n,
                "pydriller_s": py_s,
                "pydriller_extrapolated": py_n is not None and py_n != total,
                "pydriller_all_commits_s": py_full,
                "branching_repository": branchy,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    from report import recorded

    with recorded(
        baseline="a bare `git log --numstat` and the exact `git log` Lore runs, interleaved in the same run (PyDriller on the same commits beside them)"
    ):
        main()
