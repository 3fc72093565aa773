"""Benchmark: importing instruction files (`lore memorize`) and discovering conventions.

Memorize runs on the real rule files in ../shared/data/rules (257 Cursor .mdc and 191 Copilot
instruction files) copied into a fresh git repository and a fresh store. Discover runs on this
repository. The baseline, measured in the same run, is only reading every file's bytes: the
floor any import must pay. The table shows each step's time and its ratio to that floor.

Then what the splitter keeps: rules per file for seven real files (four Cursor, three Copilot)
against the blocks they hold (every paragraph, list item, table and code block: what a splitter
that judged nothing would store), the share left out over every file, and an estimate of
precision from a hand-labelled sample (bench/data/rules_import_labels.json: texts drawn at random
from the real files, each judged by reading it). Last, approving 172 imported rules in one
transaction against approving them one at a time, both in this run.

    .venv/bin/python bench/rules_import.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_RULES = ROOT.parent / "shared" / "data" / "rules"
LABELS = ROOT / "bench" / "data" / "rules_import_labels.json"
SEVEN = (
    "cursor/rules/angular-typescript-cursorrules-prompt-file.mdc",
    "cursor/rules/python-312-fastapi-best-practices-cursorrules-prom.mdc",
    "cursor/rules/ai-agent-specialist.mdc",
    "cursor/rules/nextjs-seo-dev-cursorrules-prompt-file.mdc",
    "copilot/instructions/github-actions-ci-cd-best-practices.instructions.md",
    "copilot/instructions/a11y.instructions.md",
    "copilot/instructions/go.instructions.md",
)
BULK = 172


def _split(rel: str):
    from lore.rules.intake.frontmatter import split_front_matter
    from lore.rules.intake.splitting import split_markdown

    front = split_front_matter((SHARED_RULES / rel).read_text(encoding="utf-8"))
    return split_markdown(front.body, first_line=front.body_line)


def _blocks(split) -> int:
    """Pieces before judging: kept ones and whole pieces left out (not sentences taken out)."""
    return len(split.pieces) + sum(not p.sentence for p in split.left_out)


def judging() -> None:
    """Rules per file before and after judging, the share left out, and precision on the labels."""
    from lore.rules.intake.candidates import normalize_text

    print(f"{'file':72} {'blocks':>7} {'rules':>6}")
    for rel in SEVEN:
        split = _split(rel)
        print(f"{rel:72} {_blocks(split):7d} {len(split.pieces):6d}")
    rels = sorted(
        p.relative_to(SHARED_RULES).as_posix()
        for p in [*SHARED_RULES.glob("cursor/rules/*.mdc"), *SHARED_RULES.glob("copilot/instructions/*.md")]
    )
    splits = {rel: _split(rel) for rel in rels}
    blocks = sum(_blocks(s) for s in splits.values())
    kept = sum(len(s.pieces) for s in splits.values())
    reasons: dict[str, int] = {}
    for s in splits.values():
        for p in s.left_out:
            reasons[p.reason] = reasons.get(p.reason, 0) + 1
    print(
        f"all {len(rels)} files: {blocks:,} blocks -> {kept:,} rules "
        f"({1 - kept / blocks:.0%} left out; most rules from one file: "
        f"{max(len(s.pieces) for s in splits.values())})"
    )
    print(
        "  left out by reason: "
        + ", ".join(f"{n:,} {why}" for why, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
    )
    labels = json.loads(LABELS.read_text(encoding="utf-8"))["items"]
    counts = {"kept_good": 0, "kept_bad": 0, "left_good": 0, "left_bad": 0, "changed": 0}
    for item in labels:
        split = splits[item["file"]]
        key = normalize_text(item["text"])
        if any(normalize_text(p.text) == key for p in split.pieces):
            counts["kept_good" if item["keep"] else "kept_bad"] += 1
        elif any(normalize_text(p.text) == key for p in split.left_out):
            counts["left_bad" if item["keep"] else "left_good"] += 1
        else:
            counts["changed"] += 1  # the splitter now cuts this text differently: not judged
    judged_kept = counts["kept_good"] + counts["kept_bad"]
    judged_left = counts["left_good"] + counts["left_bad"]
    print(
        f"hand-labelled sample ({len(labels)} texts, {counts['changed']} now cut differently): "
        f"precision of what is kept {counts['kept_good']}/{judged_kept} "
        f"= {counts['kept_good'] / max(judged_kept, 1):.0%}; "
        f"left out but a reviewer would keep {counts['left_bad']}/{judged_left} "
        f"= {counts['left_bad'] / max(judged_left, 1):.0%}"
    )


def bulk_approval(project) -> None:
    """Approving BULK pending rules one at a time (the baseline) and in one transaction."""
    from lore.rules import service

    pending = service.list_rules(project, status="pending")
    if len(pending) < 2 * BULK:
        print(f"(fewer than {2 * BULK} pending rules; bulk approval not measured)")
        return
    one_by_one, _ = _timed(lambda: [service.approve(r) for r in pending[:BULK]])
    at_once, done = _timed(lambda: service.apply_many("approve", pending[BULK : 2 * BULK]))
    print(
        f"approve {BULK} rules one at a time (baseline) {one_by_one * 1000:8.0f} ms; "
        f"in one transaction {at_once * 1000:8.0f} ms ({at_once / one_by_one:.2f}x, {len(done)} approved)"
    )


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
    from lore.core.git import ls_files
    from lore.rules import service
    from lore.rules.intake.discover import discover_conventions
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
    held = sum(bool(r.held) for r in service.list_rules(report.project, status="pending"))

    files = ls_files(ROOT)
    code_floor, code_size = _timed(lambda: _read_all(ROOT, [f for f in files if (ROOT / f).is_file()]))
    found_time, found = _timed(lambda: discover_conventions(ROOT))
    print()
    bulk_approval(report.project)
    shutil.rmtree(work, ignore_errors=True)

    print(f"{'step':40} {'time':>10} {'x floor':>8}  result")
    for name, seconds, note in rows:
        print(f"{name:40} {seconds * 1000:8.0f} ms {seconds / floor:7.1f}x  {note}")
    print(f"{'(store holds)':40} {'':>10} {'':>8}  {total:,} rules, {held} held for their wording")
    print()
    print(
        f"{'read this repository (baseline)':40} {code_floor * 1000:8.0f} ms {1.0:7.1f}x  "
        f"{len(files)} files, {code_size / 1e6:.1f} MB"
    )
    print(
        f"{'discover_conventions(this repository)':40} {found_time * 1000:8.0f} ms "
        f"{found_time / code_floor:7.1f}x  {len(found)} candidates"
    )
    print()
    judging()


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="reading every file's bytes, same run"):
        main()
