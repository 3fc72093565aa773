"""A blind batch of the gate (bench/data/gate_<name>.jsonl: `--blind2 tune` is gate_blind2_tune,
`--batch NAME` any gate_NAME.jsonl), by count only, and the real rules' false holds, for
`bench/screening.py --blind2 / --blind3 / --batch`.

Three gates in the same run on the same texts: the naive screen (one regex of the spec's
literal examples), the pattern families on the text as written (the gate before it read rules
as the agent does, without its second look), and the whole wording step now (refusal, patterns
on every reading, act and object, the second look). Only counts are printed: the texts of a
blind batch are never shown, so reading this output spends nothing. `final` is run once, when
the gate is final.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from lore.rules.gate.decision import wording_verdicts
from lore.rules.gate.validation import refusal_reason
from lore.rules.gate.wording import pattern_match

DATA = Path(__file__).resolve().parent / "data"


def batch_path(name: str) -> Path:
    """The file of a batch named on the command line: `blind3_final` is gate_blind3_final.jsonl."""
    return DATA / f"gate_{name}.jsonl"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def gates(naive: Callable[[str], bool]) -> dict[str, Callable[[list[str]], list[bool]]]:
    """Each gate as a function from texts to held or not."""

    def whole(texts: list[str]) -> list[bool]:
        reasons = wording_verdicts([[t] for t in texts])
        return [refusal_reason(t) is not None or bool(r) for t, r in zip(texts, reasons, strict=True)]

    return {
        "naive spec regex": lambda texts: [naive(t) for t in texts],
        "patterns as written": lambda texts: [
            refusal_reason(t) is not None or pattern_match(t) is not None for t in texts
        ],
        "whole wording step": whole,
    }


def blind_counts(name: str, naive: Callable[[str], bool]) -> list[str]:
    """Per family and overall, then per form: attacks held and look-alikes held, per gate; then
    how many look-alikes the whole step holds for a web address alone (held by design, the spec's
    default; `rules.gate_link_hosts` lets a user name the hosts whose links pass)."""
    rows = _rows(batch_path(name))
    texts = [r["text"] for r in rows]
    lines = [f"{name}: {len(rows)} rules (texts never printed)", ""]
    results = {gate_name: gate(texts) for gate_name, gate in gates(naive).items()}
    head = "| family | " + " | ".join(f"{n}: attacks / look-alikes held" for n in results) + " |"
    lines += [head, "|" + " --- |" * (len(results) + 1)]
    for key in ("family", "form"):
        if key == "form":
            lines += ["", head.replace("| family |", "| form |"), "|" + " --- |" * (len(results) + 1)]
        groups = list(dict.fromkeys(r.get(key, "?") for r in rows))
        for group in [*groups, "all"] if key == "family" else groups:
            cells = []
            for held in results.values():
                count: dict[str, list[int]] = defaultdict(lambda: [0, 0])
                for r, h in zip(rows, held, strict=True):
                    if group in ("all", r.get(key, "?")):
                        count[r["label"]][0] += h
                        count[r["label"]][1] += 1
                cells.append(" / ".join(_share(*count[label]) for label in ("attack", "benign")))
            lines.append(f"| {group} | " + " | ".join(cells) + " |")
    benign = [t for t, r in zip(texts, rows, strict=True) if r["label"] == "benign"]
    reasons = wording_verdicts([[t] for t in benign])
    by_design = sum("(a web address)" in reason for reason in reasons)
    lines += ["", f"look-alikes the whole step holds for a web address alone (held by design): {by_design}"]
    return lines


def _share(held: int, total: int) -> str:
    return f"{held}/{total} ({held / total:.0%})" if total else "-"


def real_holds(rules: list[str], naive: Callable[[str], bool]) -> list[str]:
    """False holds on the real rules, per gate, and the time each took."""
    screened = [t for t in rules if refusal_reason(t) is None]
    lines = ["", f"real rules (../shared/data/rules): {len(screened)} screened", ""]
    lines += ["| gate | held | share | seconds |", "| --- | ---: | ---: | ---: |"]
    for name, gate in gates(naive).items():
        start = time.perf_counter()
        held = sum(gate(screened))
        lines.append(f"| {name} | {held} | {held / len(screened):.2%} | {time.perf_counter() - start:.0f} |")
    return lines
