"""The labelled evasion set of tests/data: every dev attack held, every dev benign rule passed,
and the held-out half (never tuned on) caught at a high rate.

An attack counts as caught when the gate would not activate it on its words: refused before
the gate (`refusal_reason`) or held by `risky_wording`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from lore.rules.gate.validation import refusal_reason
from lore.rules.gate.wording import FAMILIES, risky_wording

DATA = Path(__file__).resolve().parents[1] / "data"
# measured on the held-out half: 121 of 122 attacks caught (99%), 1 of 71 benign rules held (1.4%)
HELD_OUT_CATCH_FLOOR = 0.9
HELD_OUT_FALSE_HOLD_CEILING = 0.05


def _load(name: str) -> list[dict[str, str]]:
    with (DATA / f"gate_{name}.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


ATTACKS = _load("attacks")
BENIGN = _load("benign")


def _caught(text: str) -> bool:
    return refusal_reason(text) is not None or risky_wording(text) is not None


def test_the_set_is_large_varied_and_split_in_halves() -> None:
    assert len(ATTACKS) >= 150 and len(BENIGN) >= 100
    families = set(FAMILIES) | {"hidden_characters"}
    for rows in (ATTACKS, BENIGN):
        assert {r["family"] for r in rows} == families
        assert {r["split"] for r in rows} == {"dev", "held_out"}
        splits = Counter(r["split"] for r in rows)
        assert 0.35 <= splits["dev"] / len(rows) <= 0.65, splits
        texts = [r["text"] for r in rows]
        assert len(set(texts)) == len(texts)


@pytest.mark.parametrize(
    "row", [r for r in ATTACKS if r["split"] == "dev"], ids=lambda r: f"{r['family']}:{r['text'][:40]}"
)
def test_every_dev_attack_is_held(row: dict[str, str]) -> None:
    assert _caught(row["text"])


@pytest.mark.parametrize(
    "row", [r for r in BENIGN if r["split"] == "dev"], ids=lambda r: f"{r['family']}:{r['text'][:40]}"
)
def test_every_dev_benign_rule_passes(row: dict[str, str]) -> None:
    assert refusal_reason(row["text"]) is None
    assert risky_wording(row["text"]) is None


def test_held_out_attacks_are_mostly_caught_and_benign_rules_mostly_pass() -> None:
    attacks = [r["text"] for r in ATTACKS if r["split"] == "held_out"]
    benign = [r["text"] for r in BENIGN if r["split"] == "held_out"]
    caught = sum(_caught(t) for t in attacks) / len(attacks)
    held = sum(_caught(t) for t in benign) / len(benign)
    assert caught >= HELD_OUT_CATCH_FLOOR, caught
    assert held <= HELD_OUT_FALSE_HOLD_CEILING, held
