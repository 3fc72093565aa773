"""Benchmark: does `lore books characters` list the people and places a reader would name?

Labels: `tests/data/book_characters.json` (main characters, places and groups of four shared
books, with the names the text uses for them and the chapter where the text first names them).
For each book, at three reading positions (a third, two thirds, the end), the top-20 list of
`characters` is scored against the labelled entities the reader has met by then:

- precision: listed entries whose shown name is one of a labelled entity's names (case, spacing
  and a leading "the" aside), counting each labelled entity once (the second "Gregson" of three
  is a miss, so is "London Lydia");
  The precision is over the list actually shown: `characters` lists only names with enough
  evidence, so early in a book it may hold fewer than 20; a reader judges the entries they see,
  and a list padded to 20 with names seen once would only score (and read) worse;
- recall: labelled entities found, over min(20, labelled entities met so far), so a short list
  pays for what it leaves out;
- kind: among the found entries, the share whose kind (person/place/group) is the labelled one.

Dev books tune the name finder; held-out books are only measured. The deterministic path always
runs; the model path runs when a model is configured (`lore model setup`), else it says skipped.
`--previous SRC` also measures another version of Lore in the same run (its `src` folder, e.g.
from `git worktree add /tmp/lore_old <commit>`) and prints its figures beside these.

`--labels FILE` scores another label file of the same shape (a fresh blind set); `--split NAME`
runs only the books of one split (tuning reads `--split dev` alone, so held-out misses are never
printed). Under each position it prints the listed entries no labelled entity owns and the
labelled entities met by then that the list leaves out.

    .venv/bin/python bench/books_characters.py [--books DIR] [--labels FILE] [--split NAME]
        [--previous SRC] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "books"
LABELS = ROOT / "tests" / "data" / "book_characters.json"
TOP = 20


def norm(name: str) -> str:
    """A name as compared: case, spacing, apostrophe styles and a leading "the" do not matter
    ("Queen" is the labelled "the Queen", "Mouse" the labelled "the Mouse")."""
    words = name.replace("’", "'").split()
    if len(words) > 1 and words[0].casefold() == "the":
        words = words[1:]
    return " ".join(words).casefold()


def caps_of(chapters: int) -> list[int]:
    return sorted({max(1, round(chapters / 3)), max(1, round(2 * chapters / 3)), chapters})


def score(listed: list[dict[str, Any]], labelled: list[dict[str, Any]], cap: int) -> dict[str, Any]:
    """Precision, recall and kind agreement of one top-N list against the entities met by `cap`."""
    met = [e for e in labelled if e["first_chapter"] <= cap]
    owner: dict[str, int] = {}
    for i, e in enumerate(met):
        for n in [e["name"], *e["aliases"]]:
            owner.setdefault(norm(n), i)
    found: set[int] = set()
    hits, kinds_right, wrong = 0, 0, []
    for entry in listed:
        i = owner.get(norm(entry["name"]))
        if i is None or i in found:
            wrong.append(entry["name"])
            continue
        found.add(i)
        hits += 1
        kinds_right += entry["kind"] == met[i]["kind"] or (
            entry["kind"] == "character" and met[i]["kind"] == "person"
        )
    wanted = min(TOP, len(met))
    return {
        "cap": cap,
        "listed": len(listed),
        "met": len(met),
        "precision": hits / len(listed) if listed else 0.0,
        "recall": len(found) / wanted if wanted else 1.0,
        "kind": kinds_right / hits if hits else 0.0,
        "misses": wrong,
        "missed": [e["name"] for i, e in enumerate(met) if i not in found],
    }


def model_state() -> str | None:
    """None when a model is configured for extraction; else why the model path is skipped."""
    from lore.core.llm import BOOKS_EXTRACT, ModelClient

    try:
        ModelClient(task=BOOKS_EXTRACT).spec()
    except Exception as exc:  # NeedsModel, or a configuration error: either way, no model run
        return str(exc).splitlines()[0]
    return None


def run(
    folder: Path, with_model: bool, labels_file: Path = LABELS, split: str | None = None
) -> dict[str, Any]:
    from lore.books import entities, library

    labels = json.loads(labels_file.read_text(encoding="utf-8"))
    out: dict[str, Any] = {"books": []}
    for spec in labels["books"]:
        if split is not None and spec["split"] != split:
            continue
        book = library.add_book(folder / spec["file"])
        rows = []
        paths = ["names"] + (["model"] if with_model else [])
        if with_model:
            from lore.books.model.extract import extract_book

            extract_book(book.id)
        for path in paths:
            for cap in caps_of(book.chapters):
                library.set_progress(book.id, cap)
                _, listed = entities.characters(book.id, limit=TOP, source=path)
                rows.append({"path": path, **score([e.as_dict() for e in listed], spec["entities"], cap)})
        out["books"].append({"title": spec["title"], "split": spec["split"], "rows": rows})
    return out


def summary(result: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Mean precision, recall and kind over every (book, cap) of a split and path, and the lowest
    precision and recall at any one position (the target holds at each position)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for book in result["books"]:
        for row in book["rows"]:
            groups.setdefault(f"{row['path']}/{book['split']}", []).append(row)
    return {
        key: {
            **{m: round(sum(r[m] for r in rows) / len(rows), 3) for m in ("precision", "recall", "kind")},
            "lowest precision": round(min(r["precision"] for r in rows), 3),
            "lowest recall": round(min(r["recall"] for r in rows), 3),
        }
        for key, rows in sorted(groups.items())
    }


def previous(src: Path, books: Path, labels: Path, split: str | None) -> dict[str, Any]:
    """The same bench run by another version of Lore (its `src` first on the path)."""
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env["LORE_BENCH_NO_RECORD"] = "1"
    chosen = ["--split", split] if split is not None else []
    out = subprocess.run(
        [sys.executable, __file__, "--books", str(books), "--labels", str(labels), *chosen, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, Any] = json.loads(out[out.index("{") :])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", type=Path, default=SHARED)
    parser.add_argument("--labels", type=Path, default=LABELS, help="the label file scored against")
    parser.add_argument("--split", help="only the books of this split (dev, held_out)")
    parser.add_argument("--previous", type=Path, help="another version's src folder, measured too")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.books.is_dir():
        sys.exit(f"no shared books at {args.books}")
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-bench-chars-")
    os.environ.setdefault("LORE_EMBED", "hash")  # names do not depend on the embedder
    skipped = model_state()
    result = run(args.books, with_model=skipped is None, labels_file=args.labels, split=args.split)
    result["summary"] = summary(result)
    result["model"] = "measured" if skipped is None else f"skipped: {skipped}"
    if args.previous is not None:
        result["previous"] = {
            "src": str(args.previous),
            "summary": previous(args.previous, args.books, args.labels, args.split)["summary"],
        }
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for book in result["books"]:
        print(f"{book['title']} ({book['split']})")
        for r in book["rows"]:
            misses = ", ".join(r["misses"][:6])
            print(
                f"  {r['path']:5} cap {r['cap']:>2}: precision {r['precision']:.2f} recall {r['recall']:.2f}"
                f" kind {r['kind']:.2f} ({r['met']} met)  not labelled/duplicates: {misses}"
            )
            if r["missed"]:
                print(f"{'':14}labelled, not listed: {', '.join(r['missed'][:6])}")
    for key, figures in result["summary"].items():
        print(f"{key:16} " + " ".join(f"{m} {v:.3f}" for m, v in figures.items()))
    if "previous" in result:
        print(f"previous version ({result['previous']['src']}), same books, same run:")
        for key, figures in result["previous"]["summary"].items():
            print(f"{key:16} " + " ".join(f"{m} {v:.3f}" for m, v in figures.items()))
    print(f"model path: {result['model']}")


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="the labelled entities of tests/data/book_characters.json"):
        main()
