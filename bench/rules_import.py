"""Benchmark: importing instruction files (`lore memorize`) and discovering conventions.

Memorize runs on the real rule files in ../shared/data/rules (257 Cursor .mdc and 191 Copilot
instruction files) copied into a fresh git repository and a fresh store. Discover runs on this
repository. The baseline, measured in the same run, is only reading every file's bytes: the
floor any import must pay. The table shows each step's time and its ratio to that floor.

    .venv/bin/python bench/rules_import.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_RULES = ROOT.parent / "shared" / "data" / "rules"


def _timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def _read_all(root: Path, rels: list[str]) -> int:
    return sum(len((root / rel).read_bytes()) for rel in rels)


def main() -> None:
    if not SHARED_RULES.exists():
        print("../shared/data/rules is not present; nothing to measure")
        return
    work = Path(tempfile.mkdtemp(prefix="lore-bench-import-"))
    os.environ["LORE_HOME"] = str(work / "home")
    sys.path.insert(0, str(ROOT / "src"))
    from lore.rules import service
    from lore.rules.intake.discover import discover_conventions, repository_files
    from lore.rules.intake.memorize import instruction_files, memorize, read_instruction_file

    repo = work / "wild"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    shutil.copytree(SHARED_RULES / "cursor/rules", repo / ".cursor/rules")
    shutil.copytree(SHARED_RULES / "copilot/instructions", repo / ".github/instructions")
    rels = instruction_files(repo)

    rows = []
    floor, size = _timed(lambda: _read_all(repo, rels))
    rows.append(("read the files' bytes (baseline)", floor, f"{len(rels)} files, {size / 1e6:.1f} MB"))
    parse, parsed = _timed(lambda: [read_instruction_file(repo, rel) for rel in rels])
    pieces = sum(len(f.candidates) for f in parsed)
    rows.append(("parse + split (no store)", parse, f"{pieces:,} pieces"))
    first, report = _timed(lambda: memorize(repo))
    rows.append(("memorize, first run", first, f"{len(report.saved.added):,} pending rules"))
    again, rerun = _timed(lambda: memorize(repo))
    rows.append(("memorize, re-run", again, f"{len(rerun.saved.added)} new, {rerun.saved.repeats:,} known"))
    total = len(service.list_rules(report.project))

    files = repository_files(ROOT)
    code_floor, code_size = _timed(lambda: _read_all(ROOT, [f for f in files if (ROOT / f).is_file()]))
    found_time, found = _timed(lambda: discover_conventions(ROOT))
    shutil.rmtree(work, ignore_errors=True)

    print(f"{'step':40} {'time':>10} {'x floor':>8}  result")
    for name, seconds, note in rows:
        print(f"{name:40} {seconds * 1000:8.0f} ms {seconds / floor:7.1f}x  {note}")
    print(f"{'(store holds)':40} {'':>10} {'':>8}  {total:,} rules")
    print()
    print(
        f"{'read this repository (baseline)':40} {code_floor * 1000:8.0f} ms {1.0:7.1f}x  "
        f"{len(files)} files, {code_size / 1e6:.1f} MB"
    )
    print(
        f"{'discover_conventions(this repository)':40} {found_time * 1000:8.0f} ms "
        f"{found_time / code_floor:7.1f}x  {len(found)} candidates"
    )


if __name__ == "__main__":
    main()
