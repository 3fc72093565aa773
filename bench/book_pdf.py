"""Benchmark: a PDF beside the EPUB of the same book, with each PDF text engine.

For Pride and Prejudice (about 120,000 words) and Alice's Adventures in Wonderland, each from
../shared/data/books: the EPUB, the PDF read by PDFium (the default) and the PDF read by pypdf
(the fallback), each in its own child process. Per case: seconds to read the file into
chapters, seconds for the whole import into a fresh store (passages, names, vectors; the hash
embedder, so the reader is what differs), the child's peak resident memory (from `wait4`), and
the ratio of each time to the EPUB's, measured in the same run.

Then how well each engine's paragraphs match the EPUB's (the share of the EPUB's paragraphs,
by their first six words, that also start a paragraph in the PDF's text): the gap threshold of
`pdf_engines` was chosen on Pride and Prejudice (dev); Alice is the held-out book.

    .venv/bin/python bench/book_pdf.py [--books DIR] [--runs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "books"
PAIRS = [  # (label, EPUB, PDF, split)
    ("Pride and Prejudice", "pride-and-prejudice-pg1342.epub", "pride-and-prejudice-1342.pdf", "dev"),
    ("Alice's Adventures", "alice-pg11.epub", "alice-11.pdf", "held_out"),
]


def child(path: str, engine: str) -> None:
    """In a child: read the file, then import it into a fresh store; print the timings."""
    from lore.books import library
    from lore.books.read.pdf import read_pdf
    from lore.books.read.readers import read_book

    started = time.perf_counter()
    book = read_pdf(Path(path), engine=engine) if engine != "epub" else read_book(Path(path))
    read_s = time.perf_counter() - started
    os.environ["LORE_PDF_ENGINE"] = engine if engine != "epub" else ""
    started = time.perf_counter()
    added = library.add_book(path)
    import_s = time.perf_counter() - started
    print(
        json.dumps({"read": read_s, "import": import_s, "chapters": len(book.chapters), "words": added.words})
    )


def measure(path: Path, engine: str) -> dict:
    env = {**os.environ, "LORE_HOME": tempfile.mkdtemp(prefix="lore-bench-pdf-"), "LORE_EMBED": "hash"}
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", engine, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the child for {path.name} ({engine}) failed")
    return {**json.loads(out), "peak_mb": usage.ru_maxrss / 1024}


def paragraph_starts(chapters: list) -> list[str]:
    out = []
    for chapter in chapters:
        for para in chapter.text.split("\n\n"):
            words = re.findall(r"\w+", para.lower())[:6]
            if len(words) >= 4:
                out.append(" ".join(words))
    return out


def agreement(folder: Path, epub: str, pdf: str, engine: str) -> tuple[float, float]:
    """(share of the EPUB's paragraph starts found in the PDF, PDF paragraphs / EPUB paragraphs)."""
    from lore.books.read.pdf import read_pdf
    from lore.books.read.readers import read_book

    wanted = paragraph_starts(read_book(folder / epub).chapters)
    got = paragraph_starts(read_pdf(folder / pdf, engine=engine).chapters)
    found = set(got)
    return sum(1 for s in wanted if s in found) / len(wanted), len(got) / len(wanted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", type=Path, default=SHARED)
    parser.add_argument("--runs", type=int, default=1, help="children per case; the best time is kept")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    if args.child:
        child(args.child[1], args.child[0])
        return
    if not args.books.is_dir():
        raise SystemExit(f"no books folder at {args.books}")
    print(
        f"{'book':22} {'case':13} {'chapters':>8} {'read s':>7} {'x EPUB':>7} {'import s':>9} {'x EPUB':>7} {'peak MB':>8}"
    )
    for label, epub, pdf, _ in PAIRS:
        base: dict = {}
        for case, path, engine in [
            ("EPUB", epub, "epub"),
            ("PDF, PDFium", pdf, "pdfium"),
            ("PDF, pypdf", pdf, "pypdf"),
        ]:
            runs = [measure(args.books / path, engine) for _ in range(max(1, args.runs))]
            row = {
                "read": min(r["read"] for r in runs),
                "import": min(r["import"] for r in runs),
                "peak_mb": max(r["peak_mb"] for r in runs),
                "chapters": runs[0]["chapters"],
            }
            base = base or row
            print(
                f"{label:22} {case:13} {row['chapters']:>8} {row['read']:>7.2f} {row['read'] / base['read']:>7.1f}"
                f" {row['import']:>9.2f} {row['import'] / base['import']:>7.2f} {row['peak_mb']:>8.0f}"
            )
    print("\nparagraphs against the EPUB's (share of its paragraph starts found; PDF/EPUB paragraph count)")
    for label, epub, pdf, split in PAIRS:
        for engine in ("pdfium", "pypdf"):
            found, ratio = agreement(args.books, epub, pdf, engine)
            print(f"{label:22} {split:9} {engine:7} {found:.3f}  {ratio:.3f}")


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="the same book's EPUB, read and imported in the same run"):
        main()
