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


def _rows(batch: str, set_name: str = "blind2") -> list[dict[str, str]]:
    with (DATA / f"gate_{set_name}_{batch}.jsonl").open(encoding="utf-8") as fh:
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


def blind_counts(batch: str, naive: Callable[[str], bool], set_name: str = "blind2") -> list[str]:
    """Per family and overall, then per form: attacks held and look-alikes held, per gate."""
    rows = _rows(batch, set_name)
    texts = [r["text"] for r in rows]
    lines = [f"{set_name}_{batch}: {len(rows)} rules (texts never printed)", ""]
    results = {name: gate(texts) for name, gate in gates(naive).items()}
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
