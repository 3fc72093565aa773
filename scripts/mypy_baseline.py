#!/usr/bin/env python3
"""Run mypy and hold every file to its error count in scripts/mypy-baseline.json.

Why a baseline: the code base predates type checking, so demanding zero errors at once would
mean either a huge risky change or no check at all. Instead each file may keep the errors it has
today and no more; a file not in the baseline may have none. When a file improves, `--update`
lowers its count, so the baseline only ever shrinks and fixed errors cannot creep back.

Usage: python scripts/mypy_baseline.py [--update] [--root DIR] [--baseline FILE]
Exit 0 when no file is worse than its baseline, 1 when one is, 2 when mypy itself failed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "scripts" / "mypy-baseline.json"
_ERROR = re.compile(r"^(?P<path>[^:\n]+\.pyi?):\d+(?::\d+)?: error: ", re.M)


def run_mypy(root: Path) -> tuple[int, str]:
    """mypy's exit code and output, run in `root` with the configuration found there."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-color-output", "--no-error-summary", "--hide-error-context"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def count_errors(output: str) -> dict[str, int]:
    """Errors per file (posix paths as mypy prints them); notes and summaries are not errors."""
    return dict(Counter(m.group("path").replace("\\", "/") for m in _ERROR.finditer(output)))


def worse_files(current: dict[str, int], baseline: dict[str, int]) -> dict[str, tuple[int, int]]:
    """{file: (allowed, now)} for every file with more errors than its baseline allows."""
    return {
        path: (baseline.get(path, 0), count)
        for path, count in sorted(current.items())
        if count > baseline.get(path, 0)
    }


def lowered(current: dict[str, int], baseline: dict[str, int]) -> dict[str, int]:
    """The baseline with each count lowered to today's where today's is smaller; never raised,
    never a new file; files at zero leave it."""
    out = {path: min(allowed, current.get(path, 0)) for path, allowed in baseline.items()}
    return {path: count for path, count in sorted(out.items()) if count > 0}


def load(path: Path) -> dict[str, int]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): int(v) for k, v in data.get("files", {}).items()}


def save(path: Path, counts: dict[str, int]) -> None:
    body = {
        "about": "mypy errors allowed per file; only ever lowered (scripts/mypy_baseline.py --update)",
        "total": sum(counts.values()),
        "files": dict(sorted(counts.items())),
    }
    path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="lower the baseline to today's counts")
    parser.add_argument("--root", type=Path, default=ROOT, help="where to run mypy (default: the repo)")
    parser.add_argument("--baseline", type=Path, default=BASELINE, help="the baseline file")
    parser.add_argument("--init", action="store_true", help="write a first baseline (no file yet)")
    args = parser.parse_args(argv)

    code, output = run_mypy(args.root)
    current = count_errors(output)
    if code not in (0, 1) or (code == 1 and not current):
        sys.stderr.write(f"mypy did not run (exit {code}):\n{output}")
        return 2
    if args.init:
        if args.baseline.exists():
            sys.stderr.write(f"{args.baseline} exists; use --update, which only lowers counts\n")
            return 2
        save(args.baseline, current)
        print(f"mypy baseline written: {sum(current.values())} errors in {len(current)} files")
        return 0
    baseline = load(args.baseline)
    worse = worse_files(current, baseline)
    smaller = lowered(current, baseline)
    if worse:
        print("mypy: more errors than the baseline allows:")
        for path, (allowed, now) in worse.items():
            print(f"  {path}: {now} errors (baseline {allowed})")
        print("Fix them (the messages are below); the baseline never grows.")
        for line in output.splitlines():
            match = _ERROR.match(line)
            if match and match.group("path") in worse:
                print("  " + line)
        return 1
    if args.update:
        if smaller != baseline:
            save(args.baseline, smaller)
            print(f"mypy baseline lowered: {sum(baseline.values())} -> {sum(smaller.values())} errors")
        else:
            print("mypy baseline already matches today's counts")
        return 0
    total = sum(current.values())
    print(f"mypy: {total} errors, none beyond the baseline ({sum(baseline.values())} allowed)")
    if smaller != baseline:
        gain = sum(baseline.values()) - sum(smaller.values())
        print(f"  {gain} fewer than the baseline: run `python scripts/mypy_baseline.py --update` to lower it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
