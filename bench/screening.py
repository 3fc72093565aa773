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

    .venv/bin/python bench/screening.py [--examples 3] [--skip-pairs]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from attacks import ATTACKS, FORMS
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3, help="held examples shown per family")
    parser.add_argument("--skip-pairs", action="store_true", help="skip the same-file pair study")
    parser.add_argument("--set-only", action="store_true", help="only the labelled evasion set")
    args = parser.parse_args()
    if args.set_only:
        labelled_set(True)
        return
    files = load_rules()
    start = time.perf_counter()
    screening._compiled()
    compile_ms = (time.perf_counter() - start) * 1000
    benign_ok = benign(files, args.examples)
    attacks_ok = attacks()
    speed(files, not args.skip_pairs, compile_ms)
    set_ok = labelled_set(args.examples > 0)
    print(
        f"targets: benign under 1% per family (web addresses aside): {'met' if benign_ok else 'NOT MET'}; "
        f"every attack caught: {'met' if attacks_ok else 'NOT MET'}; "
        f"labelled dev half all caught, none held: {'met' if set_ok else 'NOT MET'}"
    )


if __name__ == "__main__":
    main()
