"""Benchmark: what hostile book files cost now that reading is bounded.

Each case runs `read_book` in its own child process and reports wall seconds and the child's
peak resident memory (from `wait4`), beside the baseline measured in the same run: a normal
small EPUB read the same way. The bombs are generated here (the test builders in
tests/support): an EPUB whose one page inflates to 300 MB, one with 12 members of 48 MB, one
whose member lies about its size, and a PDF whose 400 pages share one 71 MB content stream.
Last, a PDF whose 60 pages share a 0.3 MB stream, read by Lore (the stream is extracted once)
against pypdf extracting every page (what Lore did before), in the same run.

    .venv/bin/python bench/book_bombs.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def child(mode: str, path: str) -> None:
    """In a child: read the file (Lore, or pypdf page by page); print the outcome as JSON."""
    started = time.perf_counter()
    if mode == "pypdf-every-page":
        from pypdf import PdfReader

        pages = [page.extract_text() for page in PdfReader(path).pages]
        outcome = f"{len(pages)} pages"
    else:
        from lore.books.read.readers import read_book
        from lore.core.errors import LoreError

        try:
            outcome = f"{len(read_book(Path(path)).chapters)} chapters"
        except LoreError as exc:
            outcome = "refused: " + str(exc).split(": ", 1)[1][:60]
    print(json.dumps({"seconds": time.perf_counter() - started, "outcome": outcome}))


def measure(path: Path, mode: str = "lore") -> dict:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", mode, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "LORE_HOME": tempfile.mkdtemp(prefix="lore-bench-bombs-")},
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the child for {path.name} failed")
    return {**json.loads(out), "peak_mb": usage.ru_maxrss / 1024}


CASES = [
    ("normal EPUB (baseline)", "normal.epub"),
    ("EPUB, one 300 MB page", "page.epub"),
    ("EPUB, 12 x 48 MB", "many.epub"),
    ("EPUB, member lies (200 MB as 4 KB)", "liar.epub"),
    ("PDF, 400 pages share 71 MB", "shared71.pdf"),
]
SHARED_PAGES = 60


def make_files(work: Path) -> None:
    """In a child, so that building the bombs never inflates the parent that the measured
    children are forked from (a forked child's peak memory starts at its parent's)."""
    from support.bombs import epub_with_members, lie_about_size, shared_stream_pdf
    from support.books import make_epub

    make_epub(work / "normal.epub")
    epub_with_members(work / "page.epub", {"OEBPS/chapter-1.xhtml": 300})
    epub_with_members(work / "many.epub", {f"OEBPS/x{i}.xhtml": 48 for i in range(12)})
    epub_with_members(work / "liar.epub", {"OEBPS/chapter-2.xhtml": 200})
    lie_about_size(work / "liar.epub", "OEBPS/chapter-2.xhtml", 4096)
    shared_stream_pdf(work / "shared71.pdf", pages=400, stream_mb=71)
    shared_stream_pdf(work / "shared03.pdf", pages=SHARED_PAGES, stream_mb=0.3)


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="lore-bombs-"))
    subprocess.run([sys.executable, __file__, "--make", str(work)], check=True)
    rows = [(name, work / file, measure(work / file)) for name, file in CASES]
    base = rows[0][2]
    print(f"{'case':38} {'file':>9} {'seconds':>8} {'peak MB':>8} {'x base':>7}  outcome")
    for name, path, r in rows:
        print(
            f"{name:38} {path.stat().st_size / 1024:>7.0f}KB {r['seconds']:>8.2f} {r['peak_mb']:>8.0f}"
            f" {r['peak_mb'] / base['peak_mb']:>7.2f}  {r['outcome']}"
        )
    shared = work / "shared03.pdf"
    lore, every = measure(shared), measure(shared, "pypdf-every-page")
    print(
        f"\nPDF, {SHARED_PAGES} pages share a 0.3 MB stream: Lore {lore['seconds']:.2f} s ({lore['outcome']}),"
        f" every page extracted {every['seconds']:.2f} s: {every['seconds'] / lore['seconds']:.0f}x faster"
    )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "--make":
        make_files(Path(sys.argv[2]))
    else:
        from report import recorded

        with recorded(baseline="a normal small EPUB read the same way, in the same run"):
            main()
