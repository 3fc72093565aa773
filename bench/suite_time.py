"""Benchmark: the test suite's wall time in one process against two xdist workers.

`scripts/test.sh` runs the suite with `-n 2`. Whether that pays depends on the machine: the
workers overlap the suite's waits (subprocesses starting, servers answering) and its CPU work,
but each one imports Lore and builds the session fixtures again. This script runs both ways in
the same session, interleaved round after round so that other load on the machine hits them
alike, and prints the medians with the ratio to the one-process baseline.

    .venv/bin/python bench/suite_time.py [--rounds 2] [--workers 2] [-- extra pytest arguments]

Wall time is the elapsed time; CPU is user + system of pytest and every process it started
(from `wait4`). A run that fails is reported and not counted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_suite(workers: int, extra: list[str]) -> tuple[float, float, str] | None:
    """(wall seconds, CPU seconds, pytest's last line) of one run, or None when it failed."""
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", str(workers), *extra]
    with tempfile.TemporaryFile("w+") as out:
        started = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(child.pid, 0)  # usage covers the workers pytest waited for
        wall = time.perf_counter() - started
        out.seek(0)
        lines = out.read().strip().splitlines()
    last = lines[-1] if lines else ""
    if os.waitstatus_to_exitcode(status) != 0:
        print(f"  -n {workers}: failed ({last})", flush=True)
        return None
    return wall, usage.ru_utime + usage.ru_stime, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("extra", nargs="*", help="arguments passed on to pytest (after --)")
    args = parser.parse_args()
    modes = [0, args.workers]
    results: dict[int, list[tuple[float, float]]] = {m: [] for m in modes}
    for round_ in range(1, args.rounds + 1):
        for workers in modes:
            done = run_suite(workers, args.extra)
            if done is not None:
                wall, cpu, last = done
                results[workers].append((wall, cpu))
                print(
                    f"  round {round_}, -n {workers}: {wall:6.1f} s wall, {cpu:6.1f} s CPU  ({last})",
                    flush=True,
                )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    base = statistics.median(w for w, _ in results[0]) if results[0] else float("nan")
    print(f"\nmedian of {args.rounds} interleaved round(s), {os.cpu_count()} CPUs, load average {load:.1f}")
    print("| mode | wall | CPU | wall / one process |")
    print("|---|---:|---:|---:|")
    for workers in modes:
        if not results[workers]:
            print(f"| -n {workers} | failed | | |")
            continue
        wall = statistics.median(w for w, _ in results[workers])
        cpu = statistics.median(c for _, c in results[workers])
        label = "one process (-n 0)" if workers == 0 else f"{workers} workers (-n {workers})"
        print(f"| {label} | {wall:.1f} s | {cpu:.1f} s | {wall / base:.2f}x |")


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="the suite in one process (`-n 0`), interleaved in the same run"):
        main()
