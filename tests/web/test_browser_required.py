"""Without Chromium the browser tests skip on a developer's machine, saying why, and fail in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ONE_BROWSER_TEST = str(TESTS / "web" / "test_browser.py") + "::test_add_rule_is_active_at_once"


def _pytest(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "LORE_REQUIRE_BROWSER")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", ONE_BROWSER_TEST, "-p", "no:cacheprovider", "-q"],
        cwd=TESTS.parent,
        env={**clean, "LORE_CHROMIUM": str(tmp_path / "no-chromium"), **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_missing_chromium_skips_with_the_reason_on_a_developer_machine(tmp_path: Path) -> None:
    run = _pytest(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 browser test(s) skipped: browser tests need Debian's chromium" in run.stdout


def test_missing_chromium_fails_in_ci(tmp_path: Path) -> None:
    for env in ({"LORE_REQUIRE_BROWSER": "1"}, {"CI": "true"}):
        run = _pytest(tmp_path, **env)
        assert run.returncode == 1, run.stdout + run.stderr
        assert "CI requires them" in run.stdout and "browser test(s) skipped" not in run.stdout
