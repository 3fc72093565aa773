"""Tests that need ../shared/data fail under CI when it is missing, and skip (saying why) elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEEDS_DATA = "tests/rules/test_memorize.py::test_every_shared_rule_file_imports_without_a_crash[sqlite]"


# an expected failure: its failed set-up must not pass for the expected one under CI
XFAIL_NEEDING_DATA = "tests/books/test_shared_books.py::test_readers_questions"


def _run(tmp_path: Path, *tests: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("LORE_CI", "LORE_SHARED_DATA")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *(tests or [NEEDS_DATA]), "-p", "no:cacheprovider", "-rfs"],
        cwd=ROOT,
        env={**clean, "LORE_SHARED_DATA": str(tmp_path / "no-such-folder"), **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_missing_shared_data_fails_under_ci(tmp_path: Path) -> None:
    done = _run(tmp_path, LORE_CI="1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"the shared data folder {tmp_path / 'no-such-folder'} is missing; CI needs it" in done.stdout
    assert "Traceback" not in done.stdout
    assert "error: the shared data folder" in done.stdout and "1 test(s) need it" in done.stdout


def test_an_expected_failure_does_not_hide_the_missing_data_under_ci(tmp_path: Path) -> None:
    # on an xdist worker, as scripts/test.sh runs the suite (each worker collects on its own)
    done = _run(tmp_path, XFAIL_NEEDING_DATA, "-k", "Elizabeth", "-n", "1", LORE_CI="1")
    assert done.returncode == 1, done.stdout
    assert "1 error" in done.stdout and "xfailed" not in done.stdout
    assert "is missing; CI needs it" in done.stdout
    assert "error: the shared data folder" in done.stdout and "1 test(s) need it" in done.stdout


def test_missing_shared_data_skips_with_the_reason_elsewhere(tmp_path: Path) -> None:
    done = _run(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout and "is not present (CI fails without it)" in done.stdout
