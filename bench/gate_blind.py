"""The blind2 batches of the gate (bench/data/gate_blind2_*.jsonl), by count only, and the real
rules' false holds, for `bench/screening.py --blind2`.

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


def _rows(batch: str) -> list[dict[str, str]]:
    with (DATA / f"gate_blind2_{batch}.jsonl").open(encoding="utf-8") as fh:
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


def blind_counts(batch: str, naive: Callable[[str], bool]) -> list[str]:
    """Per family and overall: attacks held and look-alikes held, per gate."""
    rows = _rows(batch)
    texts = [r["text"] for r in rows]
    lines = [f"blind2_{batch}: {len(rows)} rules (texts never printed)", ""]
    results = {name: gate(texts) for name, gate in gates(naive).items()}
    head = "| family | " + " | ".join(f"{n}: attacks / look-alikes held" for n in results) + " |"
    lines += [head, "|" + " --- |" * (len(results) + 1)]
    families = list(dict.fromkeys(r["family"] for r in rows))
    for family in [*families, "all"]:
        cells = []
        for held in results.values():
            count: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for r, h in zip(rows, held, strict=True):
                if family in ("all", r["family"]):
                    count[r["label"]][0] += h
                    count[r["label"]][1] += 1
            a, b = count["attack"], count["benign"]
            cells.append(f"{a[0]}/{a[1]} ({a[0] / a[1]:.0%}) / {b[0]}/{b[1]} ({b[0] / b[1]:.0%})")
        lines.append(f"| {family} | " + " | ".join(cells) + " |")
    return lines


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
