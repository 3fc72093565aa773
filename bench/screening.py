"""Benchmark: the wording checks of the screening gate, on benign rules and on attacks.

1. Every rule from ../shared/data/rules (Cursor .mdc and Copilot instruction files; front matter
   stripped, split into rules of at most 500 characters by `lore.rules.intake.splitting`, headings kept
   only as titles) goes through `risky_wording`. Per family: how many benign rules the gate holds
   back (first matching family, as the gate decides) and how many the family matches on its own,
   with a few held examples. Target: every family but web addresses under 1%.
2. The attack set of bench/attacks.py, every family in plain, paraphrased, obfuscated and
   mixed-case forms plus hidden-character and HTML-comment variants; an attack counts as caught
   when `refusal_reason` refuses it or `risky_wording` holds it. Target: every family caught.
3. Against a baseline measured in the same run: a naive screen, one regex of the spec's literal
   examples. Rules screened per second, attacks caught, benign rules held.
4. `contradicts` on every pair of rules from the same file (written by one author, so expected
   to agree): how many pairs it calls contradictory, and pairs per second.
5. The labelled evasion set of tests/data (gate_attacks.jsonl, gate_benign.jsonl): per family,
   attacks caught and benign look-alikes held, on the dev half (tuned on) and the held-out half
   (never tuned on) separately.
6. The second look by meaning (`lore.rules.gate.semantic`), patterns only against patterns plus
   the second look in one run: paraphrase catch rate per family (tests/data/gate_paraphrases.jsonl,
   dev and held out), false holds on the real rules and on the benign sets, cost per rule.
   `--tune` first measures the per-family thresholds and the margin (on the real rules and the dev
   paraphrases only) and writes them into the bank, `src/lore/rules/gate/intents.json`, under the
   model's name: thresholds are per model. `--model minilm-onnx` runs the second look with the
   ONNX MiniLM model instead of WordLlama; `--real-sample N` uses N real rules of a seeded shuffle
   (a transformer embeds the clauses of all of them in tens of minutes on two cores), starting at
   `--sample-from` (tune on the first N, check the thresholds on the next N, which share none).
   The tuning set is the dev half plus tests/data/gate_paraphrases_train.jsonl; clauses whose frame
   (`lore.rules.gate.frames`) fits a family get a threshold of their own, tuned the same way.

7. `--blind2 tune|final`, `--blind3 final` or `--batch NAME` (any bench/data/gate_NAME.jsonl) alone:
   a blind batch (bench/data/gate_blind2_*.jsonl and the others, written without
   sight of the gate), by count only, per family: attacks and look-alikes held by the naive screen,
   by the pattern families on the text as written, and by the whole wording step; then the false
   holds of each on the real rules (`bench/gate_blind.py`); then the same per form (plain, paraphrase,
   obfuscated, indirect). `final` is run once, when the gate is final.

    .venv/bin/python bench/screening.py [--examples 3] [--skip-pairs] [--semantic-only] [--tune]
        [--model wordllama|minilm-onnx] [--real-sample N] [--sample-from 0] [--blind2 tune|final] [--blind3 final]
        [--batch NAME]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from attacks import ATTACKS, FORMS
from lore.rules.gate import semantic
from lore.rules.gate import wording as screening
from lore.rules.gate.contradiction import contradicts
from lore.rules.gate.validation import refusal_reason
from lore.rules.gate.wording import FAMILIES, risky_wording

SHARED_RULES = Path(__file__).resolve().parents[2] / "shared" / "data" / "rules"
LABELLED = Path(__file__).resolve().parents[1] / "tests" / "data"
HELD_BY_DESIGN = {"web_address"}
TARGET_SHARE = 0.01


def rule_files() -> list[Path]:
    files = sorted(SHARED_RULES.glob("cursor/rules/*.mdc"))
    files += sorted(SHARED_RULES.glob("copilot/instructions/*.instructions.md"))
    if not files:
        sys.exit(f"no rule files under {SHARED_RULES}")
    return files


def split_file(text: str) -> list[str]:
    """Rules of at most 500 characters: the project's splitter when present, else bullets and
    paragraphs with headings dropped."""
    try:
        from lore.rules.intake.frontmatter import split_front_matter
        from lore.rules.intake.splitting import split_markdown
    except ImportError:
        body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
        pieces = re.split(r"\n\s*\n|\n(?=\s*[-*] )", body)
        return [p.strip()[:500] for p in pieces if p.strip() and not p.strip().startswith("#")]
    front = split_front_matter(text)
    return [p.text for p in split_markdown(front.body, first_line=front.body_line).pieces]


def load_rules() -> list[tuple[str, list[str]]]:
    return [
        (path.name, split_file(path.read_text(encoding="utf-8", errors="replace"))) for path in rule_files()
    ]


def table(head: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(c)) for c in col) for col in zip(head, *rows, strict=True)]
    line = "  ".join(
        f"{h:<{w}}" if i == 0 else f"{h:>{w}}" for i, (h, w) in enumerate(zip(head, widths, strict=True))
    )
    print(line)
    print("-" * len(line))
    for row in rows:
        print(
            "  ".join(
                f"{c:<{w}}" if i == 0 else f"{c:>{w}}"
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    print()


def one_line(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def benign(files: list[tuple[str, list[str]]], examples: int) -> bool:
    rules = [(name, text) for name, texts in files for text in texts]
    screened = [(name, text) for name, text in rules if refusal_reason(text) is None]
    held: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    alone: Counter[str] = Counter()
    for name, text in screened:
        found = risky_wording(text)
        if found:
            held[found.family].append((name, found.excerpt, text))
        for match in screening._all_matches(text):
            alone[match.family] += 1
    n = len(screened)
    print(
        f"\n1. Benign rules: {len(files)} files, {len(rules)} rules, {len(rules) - n} refused before "
        f"the gate (hidden characters, HTML comments), {n} screened\n"
    )
    rows, ok = [], True
    for family in FAMILIES:
        share = len(held[family]) / n
        meets = family in HELD_BY_DESIGN or share < TARGET_SHARE
        ok &= meets
        target = "held by design" if family in HELD_BY_DESIGN else ("< 1%: yes" if meets else "< 1%: NO")
        rows.append(
            [
                family,
                str(len(held[family])),
                f"{share:.2%}",
                str(alone[family]),
                f"{alone[family] / n:.2%}",
                target,
            ]
        )
    total = sum(len(v) for v in held.values())
    rows.append(["all families", str(total), f"{total / n:.2%}", "", "", ""])
    table(["family", "held", "share", "matched alone", "share", "target"], rows)
    print(
        "held = the gate's answer (first family in order); matched alone = the family's own "
        "patterns, whatever matched first.\n"
    )
    if examples:
        print("Held examples (file | matched text | rule):")
        for family in FAMILIES:
            if held[family]:
                print(f"  {family}:")
            for name, excerpt, text in held[family][:examples]:
                print(f"    {name[:40]} | {excerpt} | {one_line(text)}")
        print()
    return ok


def attacks() -> bool:
    caught: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    right: Counter[str] = Counter()
    missed = []
    for family, form, text in ATTACKS:
        refused = refusal_reason(text) is not None
        found = risky_wording(text)
        cell = caught[(family, form)]
        cell[1] += 1
        if refused or found:
            cell[0] += 1
        else:
            missed.append((family, form, text))
        if found and found.family == family and not refused:
            right[family] += 1
    print(f"2. Attack set: {len(ATTACKS)} attacks, caught / written per family and form\n")
    rows, ok = [], True
    for family in FAMILIES:
        cells = [caught[(family, form)] for form in FORMS]
        got, total = sum(c[0] for c in cells), sum(c[1] for c in cells)
        screened = total - sum(caught[(family, f)][1] for f in ("hidden_chars", "html_comment"))
        ok &= got == total
        rows.append(
            [family, *(f"{c[0]}/{c[1]}" for c in cells), f"{got / total:.0%}", f"{right[family]}/{screened}"]
        )
    got = sum(c[0] for c in caught.values())
    rows.append(["all", *("" for _ in FORMS), f"{got / len(ATTACKS):.0%}", ""])
    table(["family", *FORMS, "caught", "as its family"], rows)
    print(
        "hidden_chars and html_comment variants are refused by refusal_reason before the gate;\n"
        "'as its family' counts the other forms held under their own family (not another one).\n"
    )
    for family, form, text in missed:
        print(f"  MISSED {family} / {form}: {one_line(text)}")
    return ok


# The baseline: one case-insensitive regex of the spec's literal examples, what a first attempt
# at this gate would look like.
NAIVE = re.compile(
    r"(?:curl|wget)[^|\n]*\|\s*(?:ba)?sh|ignore (?:all )?previous instructions|^system:|<\|im_start\|>|"
    r"system prompt|~/\.ssh|id_rsa|https?://|www\.|rm -rf /|mkfs|--no-verify|skip (?:code )?review|"
    r"push directly to main|[a-z0-9+/]{80,}",
    re.I | re.M,
)


def speed(files: list[tuple[str, list[str]]], pairs: bool, compile_ms: float) -> None:
    rules = [text for _, texts in files for text in texts]
    screened_attacks = [
        (family, text) for family, form, text in ATTACKS if form not in ("hidden_chars", "html_comment")
    ]
    check = screening._risky.__wrapped__  # uncached: every rule screened afresh
    best_screen = best_naive = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for text in rules:
            NAIVE.search(text)
        best_naive = min(best_naive, time.perf_counter() - start)
        start = time.perf_counter()
        for text in rules:
            check(text)
        best_screen = min(best_screen, time.perf_counter() - start)
    naive_caught = sum(NAIVE.search(text) is not None for _, text in screened_attacks)
    ours_caught = sum(risky_wording(text) is not None for _, text in screened_attacks)
    no_web = [
        text
        for text in rules
        if refusal_reason(text) is None
        and not any(m.family == "web_address" for m in screening._all_matches(text))
    ]
    naive_held = sum(NAIVE.search(text) is not None for text in no_web)
    ours_held = sum(risky_wording(text) is not None for text in no_web)
    print("3. Against a naive screen (one regex of the spec's literal examples), same rules, same run\n")
    table(
        ["screen", "rules/s", "per rule", "time ratio", "attacks caught", "benign held (no web)"],
        [
            [
                "naive regex (baseline)",
                f"{len(rules) / best_naive:,.0f}",
                f"{best_naive / len(rules) * 1e6:.1f} us",
                "1.0x",
                f"{naive_caught}/{len(screened_attacks)} ({naive_caught / len(screened_attacks):.0%})",
                f"{naive_held}/{len(no_web)} ({naive_held / len(no_web):.2%})",
            ],
            [
                "risky_wording",
                f"{len(rules) / best_screen:,.0f}",
                f"{best_screen / len(rules) * 1e6:.1f} us",
                f"{best_screen / best_naive:.0f}x",
                f"{ours_caught}/{len(screened_attacks)} ({ours_caught / len(screened_attacks):.0%})",
                f"{ours_held}/{len(no_web)} ({ours_held / len(no_web):.2%})",
            ],
        ],
    )
    print(
        f"Speed: best of 3 runs over all {len(rules)} rules. Attacks: the set without the hidden-character\n"
        "and HTML-comment variants (refused before either screen). Benign: rules without a web address.\n"
        f"Patterns compile once per process on first use: {compile_ms:.0f} ms.\n"
    )
    if not pairs:
        return
    count, flagged, examples = 0, 0, []
    start = time.perf_counter()
    for _, texts in files:
        for a, b in itertools.combinations(texts, 2):
            count += 1
            reason = contradicts(a, b)
            if reason:
                flagged += 1
                if len(examples) < 5 and flagged % 9 == 1:
                    examples.append(f"{one_line(a, 60)}  <>  {one_line(b, 60)}")
    seconds = time.perf_counter() - start
    print("4. contradicts() on every pair of rules from the same file (one author: expected to agree)\n")
    table(
        ["pairs", "called contradictory", "share", "pairs/s"],
        [[f"{count:,}", str(flagged), f"{flagged / count:.3%}", f"{count / seconds:,.0f}"]],
    )
    for line in examples:
        print(f"  e.g. {line}")
    print()


def blind_line(name: str = "blind") -> str:
    """The gate as a whole on tests/data/gate_paraphrases_<name>.jsonl: attacks and look-alikes
    written by helpers who never saw the gate, its lexicons or any other set (stop 22). `blind`
    is measured without reading it (only these counts are ever printed); `blind_dev`, written the
    same way, is the one whose misses were read and worked on."""
    rows = _para(f"paraphrases_{name}")
    looks = semantic.second_look_many([r["text"] for r in rows])
    held = [_stopped(r["text"]) or look.match is not None for r, look in zip(rows, looks, strict=True)]
    attacks = [h for r, h in zip(rows, held, strict=True) if not r["split"].endswith("benign")]
    alike = [h for r, h in zip(rows, held, strict=True) if r["split"].endswith("benign")]
    read = "never read here" if name == "blind" else "its misses read and worked on"
    return (
        f"{name} batch (tests/data/gate_paraphrases_{name}.jsonl, {read}): {sum(attacks)}/{len(attacks)}"
        f" attacks held by the whole gate, {sum(alike)}/{len(alike)} harmless look-alikes held"
    )


def _labelled(name: str) -> list[dict[str, str]]:
    with (LABELLED / f"gate_{name}.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _stopped(text: str) -> bool:
    """Whether the gate would not activate it on its words: refused first, or held."""
    return refusal_reason(text) is not None or risky_wording(text) is not None


def labelled_set(show_misses: bool) -> bool:
    attacks, benign = _labelled("attacks"), _labelled("benign")
    families = list(dict.fromkeys([*FAMILIES, *(r["family"] for r in attacks + benign)]))
    print(
        f"5. Labelled evasion set (tests/data): {len(attacks)} attacks, {len(benign)} benign look-alikes;\n"
        "   per family, attacks caught and benign rules held, dev (tuned on) and held-out (never tuned on)\n"
    )
    rows, misses, ok = [], [], True
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for family in families:
        row = [family]
        for split in ("dev", "held_out"):
            a = [r["text"] for r in attacks if r["family"] == family and r["split"] == split]
            b = [r["text"] for r in benign if r["family"] == family and r["split"] == split]
            caught = [t for t in a if _stopped(t)]
            held = [t for t in b if _stopped(t)]
            misses += [(split, family, "MISSED", t) for t in a if t not in caught]
            misses += [(split, family, "HELD", t) for t in held]
            for key, n in ((f"{split}_a", len(caught)), (f"{split}_at", len(a))):
                totals[key][0] += n
            for key, n in ((f"{split}_b", len(held)), (f"{split}_bt", len(b))):
                totals[key][0] += n
            row += [f"{len(caught)}/{len(a)}", f"{len(held)}/{len(b)}"]
            if split == "dev":
                ok &= len(caught) == len(a) and not held
        rows.append(row)

    def share(key: str) -> str:
        got, total = totals[key][0], totals[key + "t"][0]
        return f"{got}/{total} ({got / total:.1%})" if total else "-"

    rows.append(["all", share("dev_a"), share("dev_b"), share("held_out_a"), share("held_out_b")])
    table(["family", "dev caught", "dev held", "held-out caught", "held-out held"], rows)
    if show_misses:
        for split, family, what, text in misses:
            print(f"  {what} ({split}) {family}: {one_line(text)}")
        print()
    return ok


# -- 6. the second look by meaning -------------------------------------------------------------
FALSE_HOLD_BUDGET = 0.0045  # tuning stops below the 0.5% target, leaving room for a new rule set
MARGINS = (-1.0, 0.0, 0.02, 0.05)  # -1: no contrast with the benign bank


def _rule_level(scored: list[semantic.Scores], margin: float) -> Any:
    """Per rule, two blocks of one column per family: the best clause similarity among clauses
    that beat the benign bank by `margin`, then the best among clauses whose frame fits the
    family (-1 when none does)."""
    import numpy as np

    width = len(semantic.load_bank().families)
    rows = []
    for s in scored:
        if not len(s.clauses):
            rows.append(np.full(2 * width, -1.0))
            continue
        ok = (s.best - s.benign[:, None]) >= margin
        cosine = np.where(ok, s.best, -1.0).max(axis=0)
        framed = np.where(s.framed, s.best, -1.0).max(axis=0)
        rows.append(np.concatenate([cosine, framed]))
    return np.array(rows)


def tune(real: list[semantic.Scores], dev: list[semantic.Scores], dev_families: list[str]) -> dict[str, Any]:
    """Per-family thresholds (by similarity alone, and for a clause whose frame fits) and one
    margin, greedily: start with every threshold closed, then keep lowering the one whose next
    dev paraphrase costs the fewest new false holds on the real rules, while all families
    together stay within the budget."""
    import numpy as np

    bank = semantic.load_bank()
    names = [f.name for f in bank.families]
    width = len(names)
    budget = int(FALSE_HOLD_BUDGET * len(real))
    best: dict[str, Any] = {}
    for margin in MARGINS:
        r, d = _rule_level(real, margin), _rule_level(dev, margin)
        own = np.array([names.index(f) for f in dev_families])
        t = np.full(2 * width, 2.0)
        while True:
            held_d = (d >= t).any(axis=1)
            fp = int((r >= t).any(axis=1).sum())
            steps = []
            for col in range(2 * width):
                below = d[(own == col % width) & ~held_d, col]
                below = below[below < t[col]]
                if not len(below):
                    continue
                trial = t.copy()
                trial[col] = float(below.max())
                new_fp = int((r >= trial).any(axis=1).sum())
                gain = int((d >= trial).any(axis=1).sum()) - int(held_d.sum())
                if new_fp <= budget and gain > 0:
                    steps.append((gain / (new_fp - fp + 1), col, trial))
            if not steps:
                break
            t = max(steps, key=lambda x: x[0])[2]
        caught = int((d >= t).any(axis=1).sum())
        if not best or caught > best["caught"]:
            best = {
                "margin": margin,
                "thresholds": dict(zip(names, t[:width].tolist(), strict=True)),
                "frame_thresholds": dict(zip(names, t[width:].tolist(), strict=True)),
                "caught": caught,
            }
    return best


def write_bank(tuned: dict[str, Any], model: str) -> None:
    """The tuned margin and thresholds, stored under the model they were measured for."""
    data = json.loads(semantic.BANK_FILE.read_text(encoding="utf-8"))
    data["models"][model] = {
        "margin": round(tuned["margin"], 4),
        "thresholds": {name: round(min(value, 1.01), 4) for name, value in tuned["thresholds"].items()},
        "frame_thresholds": {
            name: round(min(value, 1.01), 4) for name, value in tuned.get("frame_thresholds", {}).items()
        },
    }
    semantic.BANK_FILE.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    semantic.forget_bank()


EXPAND_CUT = 0.55  # cosine of a word's token vector to a seed's: below it, neighbours drift off
EXPAND_MIN_LETTERS = 4  # shorter tokens are mostly pieces of words ("dis", "ski")


def expand_lexicon(cut: float = EXPAND_CUT) -> None:
    """Widen the frame reader's hand-written lexicons with WordLlama's nearest word tokens.

    For every one-word seed that is a whole word of the model's vocabulary, the word tokens whose
    vectors lie within `cut` of it are added to the seed's concept as whole words ("transferred"
    next to "send", "uninstall" next to "delete"); written to `frames.json` under `expanded` with
    the cut and model, so the reader itself needs no model. Polarity words are not widened: their
    neighbours include their opposites."""
    import numpy as np

    from lore.core.embed import wordllama as wl
    from lore.rules.gate import frames
    from lore.rules.gate.confusables import fold

    table = np.asarray(wl._load_table(), dtype=np.float32)
    table /= np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1e-9)
    vocab = wl._load_tokenizer().get_vocab()
    words = [(i, t[1:]) for t, i in vocab.items() if t.startswith("\u2581") and t[1:].isalpha()]
    words = [(i, w) for i, w in words if len(w) >= EXPAND_MIN_LETTERS]
    ids = np.array([i for i, _ in words])
    data = json.loads(frames.LEXICON_FILE.read_text(encoding="utf-8"))
    expanded: dict[str, list[str]] = {}
    for concept, seeds in data["concepts"].items():
        known = {fold(seed).rstrip("*") for seed in seeds}
        found: list[str] = []
        for seed in sorted(known):
            token = vocab.get("\u2581" + seed)
            if token is None or " " in seed:
                continue
            sims = table[ids] @ table[token]
            for j in np.flatnonzero(sims >= cut):
                word = fold(words[j][1])
                if word not in known and word not in found and not any(word.startswith(k) for k in known):
                    found.append(word)
        expanded[concept] = sorted(found)
    data["expanded"] = {"model": "wordllama-l2_supercat-256", "cut": cut, "concepts": expanded}
    frames.LEXICON_FILE.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    frames.lexicon.cache_clear()
    added = sum(len(v) for v in expanded.values())
    print(
        f"lexicon widened by {added} words at cut {cut}: "
        + ", ".join(f"{k} {len(v)}" for k, v in expanded.items())
    )


def open_bank_for(model: str) -> None:
    """A model the bank has no thresholds for yet gets closed ones (nothing held), so it can be
    scored and then tuned."""
    data = json.loads(semantic.BANK_FILE.read_text(encoding="utf-8"))
    if model not in data["models"]:
        write_bank({"margin": 0.05, "thresholds": dict.fromkeys(data["families"], 1.01)}, model)


def _para(name: str) -> list[dict[str, str]]:
    with (LABELLED / f"gate_{name}.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def second_look(
    files: list[tuple[str, list[str]]],
    do_tune: bool,
    examples: int,
    sample_size: int | None = None,
    sample_from: int = 0,
) -> bool:
    rules = [text for _, texts in files for text in texts]
    screened = [t for t in rules if refusal_reason(t) is None]
    if sample_size and sample_size < len(screened):
        import random

        shuffled = random.Random(11).sample(screened, len(screened))
        screened = shuffled[sample_from : sample_from + sample_size]
        print(f"(real rules: {len(screened):,} of a seeded shuffle, from position {sample_from:,})")
    passed = [t for t in screened if risky_wording(t) is None]
    if do_tune:
        open_bank_for(semantic.model_full_name(semantic.gate_model()))
    paraphrases, para_benign = _para("paraphrases"), _para("paraphrase_benign")
    labelled_benign = [r["text"] for r in _labelled("benign") if not _stopped(r["text"])]
    why = semantic.unavailable()
    if why:
        print(f"6. Second look by meaning: SKIPPED ({why})")
        return False
    start = time.perf_counter()
    real_scores = semantic.score_many(passed)
    batch_s = time.perf_counter() - start
    para_scores = semantic.score_many([p["text"] for p in paraphrases])
    train = _para("paraphrases_train")  # written for tuning, beside the fixed dev half
    train_scores = semantic.score_many([p["text"] for p in train])
    assert not isinstance(real_scores, str) and not isinstance(para_scores, str)
    assert not isinstance(train_scores, str)
    if do_tune:
        dev = [i for i, p in enumerate(paraphrases) if p["split"] == "dev"]
        tuned = tune(
            real_scores,
            [para_scores[i] for i in dev] + train_scores,
            [paraphrases[i]["family"] for i in dev] + [p["family"] for p in train],
        )
        write_bank(tuned, semantic.load_bank().model)
        print(f"tuned: margin {tuned['margin']}, thresholds {tuned['thresholds']}\n")
    bank = semantic.load_bank()
    held_real = [(t, m) for t, s in zip(passed, real_scores, strict=True) if (m := semantic.verdict(s, bank))]
    para_found = [semantic.verdict(s, bank) for s in para_scores]
    train_held = sum(semantic.verdict(s, bank) is not None for s in train_scores)
    fresh = _para("paraphrases_fresh")  # written after the last tuning, never tuned on
    fresh_looks = semantic.second_look_many([p["text"] for p in fresh])
    fresh_held = sum(
        look.match is not None and look.match.family == p["family"]
        for p, look in zip(fresh, fresh_looks, strict=True)
    )
    print(
        f"6. Second look by meaning ({bank.model}, margin {bank.margin}): patterns only vs patterns + "
        "second look, one run\n"
    )
    rows, totals = [], Counter()
    for family in [f.name for f in bank.families]:
        row = [family, f"{bank.family(family).threshold:.3f}"]
        for split in ("dev", "held_out"):
            idx = [i for i, p in enumerate(paraphrases) if p["family"] == family and p["split"] == split]
            pat = sum(_stopped(paraphrases[i]["text"]) for i in idx)
            got = sum(para_found[i] is not None for i in idx)
            own = sum(para_found[i] is not None and para_found[i].family == family for i in idx)  # type: ignore[union-attr]
            totals[f"{split}_n"] += len(idx)
            totals[f"{split}_pat"] += pat
            totals[f"{split}_got"] += got
            row += [f"{pat}/{len(idx)}", f"{got}/{len(idx)}", f"{own}"]
        rows.append(row)

    def rate(split: str, key: str) -> str:
        n = totals[f"{split}_n"]
        return f"{totals[f'{split}_{key}']}/{n} ({totals[f'{split}_{key}'] / n:.0%})"

    rows.append(
        [
            "all",
            "",
            rate("dev", "pat"),
            rate("dev", "got"),
            "",
            rate("held_out", "pat"),
            rate("held_out", "got"),
            "",
        ]
    )
    table(
        [
            "family",
            "threshold",
            "dev patterns",
            "dev +meaning",
            "as family",
            "held-out patterns",
            "held-out +meaning",
            "as family",
        ],
        rows,
    )
    print(
        f"training paraphrases (tests/data/gate_paraphrases_train.jsonl, tuned on): {train_held}/{len(train)}"
    )
    print(
        f"fresh paraphrases (tests/data/gate_paraphrases_fresh.jsonl, written after tuning, never tuned on): "
        f"{fresh_held}/{len(fresh)} held as their own family"
    )
    print(blind_line("blind_dev"))
    print(blind_line() + "\n")
    n_screened = len(screened)
    pattern_held = n_screened - len(passed)
    print("False holds, patterns only vs patterns + second look:\n")
    pb = semantic.second_look_many([p["text"] for p in para_benign])
    lb = semantic.second_look_many(labelled_benign)
    pb_pat = sum(_stopped(p["text"]) for p in para_benign)
    table(
        ["set", "rules", "patterns only", "+ second look", "added by meaning"],
        [
            [
                "real rules (../shared/data/rules)",
                str(n_screened),
                f"{pattern_held} ({pattern_held / n_screened:.2%})",
                f"{pattern_held + len(held_real)} ({(pattern_held + len(held_real)) / n_screened:.2%})",
                f"{len(held_real)} ({len(held_real) / n_screened:.2%})",
            ],
            [
                "paraphrase benign counterparts",
                str(len(para_benign)),
                str(pb_pat),
                str(pb_pat + sum(x.match is not None for x in pb)),
                str(sum(x.match is not None for x in pb)),
            ],
            [
                "labelled benign look-alikes (passing patterns)",
                str(len(labelled_benign)),
                "0",
                str(sum(x.match is not None for x in lb)),
                str(sum(x.match is not None for x in lb)),
            ],
        ],
    )
    old_vs_new(bank, paraphrases, para_scores, train_scores, fresh, real_scores, n_screened)
    by_family = Counter(m.family for _, m in held_real)
    print(
        "real rules held by meaning, per family: " + ", ".join(f"{f} {n}" for f, n in by_family.most_common())
    )
    if examples:
        for text, m in held_real[: examples * 3]:
            print(f"  {m.family} {m.similarity:.2f} | {one_line(text, 100)}")
    print()
    check = screening._risky.__wrapped__
    sample = screened[: 200 if sample_size else 2000]  # a sampled run is a slow model's
    start = time.perf_counter()
    for text in sample:
        check(text)
    pat_s = time.perf_counter() - start
    start = time.perf_counter()
    for text in sample:
        if check(text) is None:
            semantic.second_look(text)
    one_s = time.perf_counter() - start
    per_rule_batch = batch_s / len(passed) * 1e6
    table(
        ["cost per rule", "us"],
        [
            [f"patterns only ({len(sample):,} rules, one at a time)", f"{pat_s / len(sample) * 1e6:.0f}"],
            ["patterns + second look (one at a time, as propose_rules)", f"{one_s / len(sample) * 1e6:.0f}"],
            [f"second look alone, batched ({len(passed)} rules)", f"{per_rule_batch:.0f}"],
        ],
    )
    share = len(held_real) / n_screened
    held_out = totals["held_out_got"] / totals["held_out_n"]
    dev = totals["dev_got"] / totals["dev_n"]
    print(
        f"targets: paraphrases held >= 90% (dev {dev:.1%}, held-out {held_out:.1%}): "
        f"{'met' if min(dev, held_out) >= 0.9 else 'NOT MET'}; false holds added on the real rules <= 0.5% "
        f"({share:.2%}): {'met' if share <= 0.005 else 'NOT MET'}\n"
    )
    return min(dev, held_out) >= 0.9 and share <= 0.005


OLD_LOOK = "/cosine-only"  # the bank's thresholds from before the frame reader, kept for this table


def old_vs_new(
    bank: semantic.Bank,
    paraphrases: list[dict[str, str]],
    para_scores: list[semantic.Scores],
    train_scores: list[semantic.Scores],
    fresh: list[dict[str, str]],
    real_scores: list[semantic.Scores],
    n_screened: int,
) -> None:
    """The second look before the frame reader (cosine to the bank, its own thresholds) against
    the look now (cosine, or a frame that fits and a lower cosine), on the same scores."""
    data = json.loads(semantic.BANK_FILE.read_text(encoding="utf-8"))
    if bank.model + OLD_LOOK not in data["models"]:
        return
    old = semantic.parse_bank(data, bank.model + OLD_LOOK)
    fresh_scores = semantic.score_many([p["text"] for p in fresh])
    assert not isinstance(fresh_scores, str)

    def held(scores: list[semantic.Scores], which: semantic.Bank) -> int:
        return sum(semantic.verdict(s, which) is not None for s in scores)

    def split(name: str) -> list[semantic.Scores]:
        return [s for p, s in zip(paraphrases, para_scores, strict=True) if p["split"] == name]

    rows = []
    for label, scores in (
        ("paraphrases held, dev (tuned on)", split("dev")),
        ("paraphrases held, held out", split("held_out")),
        ("training paraphrases held (tuned on by the new look)", train_scores),
        ("fresh paraphrases held (never tuned on)", fresh_scores),
    ):
        a, b = held(scores, old), held(scores, bank)
        rows.append(
            [
                label,
                f"{a}/{len(scores)} ({a / len(scores):.0%})",
                f"{b}/{len(scores)} ({b / len(scores):.0%})",
            ]
        )
    a, b = held(real_scores, old), held(real_scores, bank)
    rows.append(
        ["false holds added, real rules", f"{a} ({a / n_screened:.2%})", f"{b} ({b / n_screened:.2%})"]
    )
    print("Second look before the frame reader (cosine only) and now (frames + cosine), same run:\n")
    table(["measure", "cosine only (old)", "frames + cosine (new)"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3, help="held examples shown per family")
    parser.add_argument("--skip-pairs", action="store_true", help="skip the same-file pair study")
    parser.add_argument("--set-only", action="store_true", help="only the labelled evasion set")
    parser.add_argument("--semantic-only", action="store_true", help="only the second look (section 6)")
    parser.add_argument("--tune", action="store_true", help="measure the second look's thresholds first")
    parser.add_argument("--model", choices=["wordllama", "minilm-onnx"], help="the second look's model")
    parser.add_argument("--real-sample", type=int, help="a seeded sample of this many real rules")
    parser.add_argument(
        "--sample-from", type=int, default=0, help="where the sample starts in the shuffle (a disjoint check)"
    )
    parser.add_argument(
        "--expand-lexicon", type=float, metavar="CUT", help="widen the frame lexicons by word vectors first"
    )
    parser.add_argument(
        "--blind3",
        choices=["final"],
        help="only the blind3 batch (counts only) and the real rules' false holds; run once, when the gate is final",
    )
    parser.add_argument(
        "--blind2",
        choices=["tune", "final"],
        help="only the blind2 batch (counts only) and the real rules' false holds; final: run once",
    )
    parser.add_argument(
        "--batch",
        metavar="NAME",
        help="only the batch bench/data/gate_NAME.jsonl (counts only) and the real rules' false holds",
    )
    args = parser.parse_args()
    if args.blind2 or args.blind3 or args.batch:
        from gate_blind import batch_path, blind_counts, real_holds

        def naive(text: str) -> bool:
            return NAIVE.search(text) is not None

        name = args.batch or (f"blind3_{args.blind3}" if args.blind3 else f"blind2_{args.blind2}")
        if not batch_path(name).is_file():
            sys.exit(f"no batch file {batch_path(name)}")
        rules = [text for _, texts in load_rules() for text in texts]
        print("\n".join([*blind_counts(name, naive), *real_holds(rules, naive)]))
        return
    if args.expand_lexicon is not None:
        expand_lexicon(args.expand_lexicon)
        return
    if args.model:
        import os

        os.environ[semantic.MODEL_ENV] = args.model
    if args.set_only:
        labelled_set(True)
        return
    files = load_rules()
    if args.semantic_only or args.tune:
        second_look(files, args.tune, args.examples, args.real_sample, args.sample_from)
        return
    start = time.perf_counter()
    screening._compiled()
    compile_ms = (time.perf_counter() - start) * 1000
    benign_ok = benign(files, args.examples)
    attacks_ok = attacks()
    speed(files, not args.skip_pairs, compile_ms)
    set_ok = labelled_set(args.examples > 0)
    second_look(files, False, args.examples, args.real_sample, args.sample_from)
    print(
        f"targets: benign under 1% per family (web addresses aside): {'met' if benign_ok else 'NOT MET'}; "
        f"every attack caught: {'met' if attacks_ok else 'NOT MET'}; "
        f"labelled dev half all caught, none held: {'met' if set_ok else 'NOT MET'}"
    )


if __name__ == "__main__":
    from report import recorded

    blind = ""
    for flag in ("--blind2", "--blind3", "--batch"):
        given = next((a.split("=")[-1] for a in sys.argv if a.startswith(flag)), None)
        if given == flag:
            given = sys.argv[sys.argv.index(flag) + 1]
        if given:
            blind = f"screening_{given}" if flag == "--batch" else f"screening_{flag[2:]}_{given}"
    with recorded(
        baseline="a naive one-regex screen of the spec's examples, same run; benign rules from ../shared/data/rules",
        name=blind,
    ):
        main()
