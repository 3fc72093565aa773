"""Benchmark: how long `lore` commands take to start, against `python -c "import typer"`.

Every command is a fresh process, as when a person or an agent types it. The floor is the
same Python importing Typer and nothing else, measured in the same run and interleaved with
the commands (round after round), so machine noise hits all of them alike. Wall time and CPU
time (user + system of the child, from `wait4`) are the medians over the rounds.

    .venv/bin/python bench/cli_startup.py [--rounds 9] [--compare /path/to/other/src]

`--compare` also times the same commands with another source tree first on the path (for
instance a checkout of `main`: `git archive main src | tar -x -C /tmp/main`), to show a before
and after in one run.

The children run as an installed `lore` does, with Python's bytecode cache: a
`PYTHONDONTWRITEBYTECODE` in the environment (some sandboxes set it) is dropped for them, or
every run would compile Lore's own modules again (70 ms of CPU, in neither tree's code). The
first, uncounted round writes the caches, in both trees.

Targets (issue 10): `lore --help` within 2x of the floor's wall time; `lore review resolve`
under 0.35 s of CPU. `resolve` runs in both selection modes (`hybrid`, the default, and `spec`),
and the last table gives each command's CPU against `lore --version` (the console script and
nothing else) measured in the same rounds, a ratio that a busy machine moves far less than the
seconds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HELP_TARGET = 2.0  # x the floor's wall time
RESOLVE_CPU_TARGET = 0.35  # seconds


def run_once(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `cmd`, which must succeed."""
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({child.returncode}): {child.stderr.read().decode()}")
    child.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def medians(values: list[tuple[float, float]]) -> tuple[float, float]:
    """(median wall, median CPU) of (wall, CPU) samples."""
    return statistics.median(v[0] for v in values), statistics.median(v[1] for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--compare", type=Path, help="Another source tree to time the same commands with.")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="lore-cli-bench-"))
    env = {**os.environ, "LORE_HOME": str(work / "home"), "COLUMNS": "100"}
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # see the module's docstring
    os.environ["LORE_HOME"] = env["LORE_HOME"]
    from lore.rules.demo import ensure_demo_project

    project = ensure_demo_project(work / "shop")
    lore = shutil.which("lore", path=str(Path(sys.executable).parent)) or "lore"
    resolve = [lore, "review", "--name", project.name, "resolve", "src/api/orders.py"]
    resolve += ["--task", "add pagination to the orders endpoint"]
    commands = {
        'python -c "import typer" (floor)': [sys.executable, "-c", "import typer"],
        "lore --version": [lore, "--version"],
        "lore --help": [lore, "--help"],
        "lore version": [lore, "version"],
        "lore review resolve": [*resolve, "--mode", "hybrid"],
        "lore review resolve --mode spec": [*resolve, "--mode", "spec"],
        # a task with a word no earlier run has seen: the tokenizer must be read (see WordIds)
        "resolve, a new word": [*resolve[:-1], "add pagination to the orders {new}", "--mode", "hybrid"],
        "lore books list": [lore, "books", "list"],
    }
    trees = {"this tree": env}
    if args.compare:
        trees[f"{args.compare}"] = {**env, "PYTHONPATH": str(args.compare.resolve())}

    samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for tree_env in trees.values():  # warm the file and bytecode caches once; not counted
        for cmd in commands.values():
            run_once([part.replace("{new}", "warm") for part in cmd], project.path, tree_env)
    for round_no in range(args.rounds):
        for tree, tree_env in trees.items():
            for name, cmd in commands.items():
                if tree != "this tree" and name.endswith("(floor)"):
                    continue
                cmd = [part.replace("{new}", f"zq{round_no}{len(tree)}x") for part in cmd]
                samples.setdefault((tree, name), []).append(run_once(cmd, project.path, tree_env))

    floor_wall, floor_cpu = medians(samples[("this tree", next(iter(commands)))])
    print(f"\nStart-up of a fresh process, median of {args.rounds} interleaved rounds\n")
    print(
        f"{'tree':>12} | {'command':>32} | {'wall s':>7} | {'cpu s':>7} | {'wall ratio':>10} | {'cpu ratio':>9}"
    )
    print(f"{'-' * 12}-+-{'-' * 32}-+-{'-' * 7}-+-{'-' * 7}-+-{'-' * 10}-+-{'-' * 9}")
    found: dict[tuple[str, str], tuple[float, float]] = {}
    for (tree, name), values in samples.items():
        wall, cpu = found[(tree, name)] = medians(values)
        label = "this" if tree == "this tree" else "compare"
        print(
            f"{label:>12} | {name:>32} | {wall:7.3f} | {cpu:7.3f} | "
            f"{wall / floor_wall:9.2f}x | {cpu / floor_cpu:8.2f}x"
        )
    help_ratio = found[("this tree", "lore --help")][0] / floor_wall
    resolve_cpu = found[("this tree", "lore review resolve")][1]
    print(
        f"\ntargets: --help {help_ratio:.2f}x the floor (want <= {HELP_TARGET}x): "
        f"{'met' if help_ratio <= HELP_TARGET else 'MISSED'}; review resolve {resolve_cpu:.3f} s CPU "
        f"(want < {RESOLVE_CPU_TARGET} s): {'met' if resolve_cpu < RESOLVE_CPU_TARGET else 'MISSED'}"
    )
    version_cpu = found[("this tree", "lore --version")][1]
    print(f"\nCPU against `lore --version` ({version_cpu:.3f} s), same rounds:")
    for name in commands:
        if not name.endswith("(floor)") and name != "lore --version":
            print(f"  {name:>32}: {found[('this tree', name)][1] / version_cpu:6.1f}x")
    if args.compare:
        print("\nagainst the compared tree (its time / this tree's time):")
        for name in commands:
            other = found.get((str(args.compare), name))
            if other:
                mine = found[("this tree", name)]
                print(
                    f"  {name:>32}: wall {other[0] / mine[0]:5.1f}x, cpu {other[1] / mine[1]:5.1f}x faster now"
                )
    load = os.getloadavg()
    print(
        f"\nload average during the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores"
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline='`python -c "import typer"`, interleaved with the commands in the same run'):
        main()
