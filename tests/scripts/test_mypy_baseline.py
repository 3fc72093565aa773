"""scripts/mypy_baseline.py: a file may keep its errors, never gain one; the baseline only shrinks."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from support.scripts import load_script


def _project(root: Path, body: str) -> Path:
    """A tiny package with its own mypy configuration, checked for real."""
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[tool.mypy]\npython_version = "3.11"\nfiles = ["pkg"]\ncache_dir = ".mypy-cache"\n'
    )
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "a.py").write_text(textwrap.dedent(body))
    return root


TWO_ERRORS = """
def f() -> int:
    return "one"


def g() -> str:
    return 2
"""
ONE_ERROR = """
def f() -> int:
    return "one"
"""
CLEAN = """
def f() -> int:
    return 1
"""


def test_more_errors_fail_fewer_pass_and_update_only_lowers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = load_script("mypy_baseline")
    root = _project(tmp_path / "proj", ONE_ERROR)
    baseline = tmp_path / "baseline.json"
    assert tool.main(["--root", str(root), "--baseline", str(baseline), "--init"]) == 0
    assert json.loads(baseline.read_text())["files"] == {"pkg/a.py": 1}

    (root / "pkg" / "a.py").write_text(TWO_ERRORS)
    assert tool.main(["--root", str(root), "--baseline", str(baseline)]) == 1
    out = capsys.readouterr().out
    assert "pkg/a.py: 2 errors (baseline 1)" in out and 'Incompatible return value type (got "int"' in out
    assert tool.main(["--root", str(root), "--baseline", str(baseline), "--update"]) == 1  # never raised
    assert json.loads(baseline.read_text())["files"] == {"pkg/a.py": 1}

    (root / "pkg" / "a.py").write_text(CLEAN)
    assert tool.main(["--root", str(root), "--baseline", str(baseline)]) == 0
    assert "--update" in capsys.readouterr().out
    assert tool.main(["--root", str(root), "--baseline", str(baseline), "--update"]) == 0
    assert json.loads(baseline.read_text())["files"] == {}


def test_a_new_file_may_have_no_error() -> None:
    tool = load_script("mypy_baseline")
    assert tool.worse_files({"new.py": 1, "old.py": 2}, {"old.py": 2}) == {"new.py": (0, 1)}
    assert tool.lowered({"old.py": 1, "new.py": 5}, {"old.py": 2, "gone.py": 3}) == {"old.py": 1}
    output = "a.py:3: error: x  [misc]\na.py:4: note: y\nb/c.py:1:5: error: z  [arg-type]\nFound 2 errors\n"
    assert tool.count_errors(output) == {"a.py": 1, "b/c.py": 1}
