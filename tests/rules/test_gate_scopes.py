"""The gate and `lore review lint` judge contradictions over the same overlapping scopes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import make_repo
from lore.rules import service
from lore.rules.gate.decision import conflicting_rule
from lore.rules.lint import contradictions
from lore.rules.scopes import scopes_overlap

# (scope of the active rule, its text, scope of the new rule, its text, whether they clash)
PAIRS = [
    ("**/*.py", "Use spaces for indentation", None, "Use tabs for indentation", True),
    ("**/*.py", "Use spaces for indentation", "src/**", "Use tabs for indentation", True),
    ("**/*.py", "Use spaces for indentation", "**/*.ts", "Use tabs for indentation", False),
    ("src/", "Keep lines under 80 characters", "src/api/", "Keep lines under 120 characters", True),
    ("src/", "Keep lines under 80 characters", "docs/", "Keep lines under 120 characters", False),
    ("**/*.{ts,tsx}", "Use named exports", "web/*.tsx", "Use default exports", True),
    ("web/*.tsx", "Use named exports", "src/*.py", "Use default exports", False),
    ("Dockerfile", "Pin base images by digest", "**/Dockerfile", "Never pin base images by digest", True),
    ("Makefile", "Use tabs for indentation", "**/*.py", "Use spaces for indentation", False),
    (None, "Prefer single quotes", "src/", "Prefer double quotes", True),
    ("src/db/**/*.py", "Use snake_case for columns", "src/db/", "Use camelCase for columns", True),
    ("src/db/**/*.py", "Use snake_case for columns", "src/api/**/*.py", "Use camelCase for columns", False),
    ("src/", "Write docstrings for public functions", None, "Prefer small functions", False),
]


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        ((), ("src/",), True),
        (("**/*.py",), ("src/",), True),
        (("**/*.py",), ("**/*.ts",), False),
        (("src/",), ("docs/",), False),
        (("src/api/",), ("src/",), True),
        (("**/*.{ts,tsx}",), ("web/*.tsx",), True),
        (("Dockerfile",), ("**/Dockerfile",), True),
        (("Makefile",), ("**/*.py",), False),
        (("src/a.py",), ("src/*.py",), True),
        (("src/a.py",), ("src/b.py",), False),
    ],
)
def test_scopes_overlap(a: tuple[str, ...], b: tuple[str, ...], overlap: bool) -> None:
    assert scopes_overlap(a, b) is overlap
    assert scopes_overlap(b, a) is overlap


def test_gate_and_lint_agree_on_every_pair(tmp_path: Path) -> None:
    files = {"src/a.py": "x", "docs/b.md": "x", "web/c.tsx": "x", "Makefile": "x", "Dockerfile": "x"}
    repo = make_repo(tmp_path / "shop", files)
    project, _ = service.register_project(repo)
    for old_scope, old_text, new_scope, new_text, clash in PAIRS:
        old = service.add_rule(project, old_text, scope=old_scope)
        new = service.add_rule(project, new_text, scope=new_scope, status="pending")
        gate = conflicting_rule(new.text, new.scope, [old])
        lint = contradictions([old, new])
        assert (gate is not None) is clash, (old_text, old_scope, new_text, new_scope, gate)
        assert bool(lint) is clash, (old_text, old_scope, new_text, new_scope, lint)
    # the pairs hold both answers, so agreement is not agreement on "never"
    assert {p[-1] for p in PAIRS} == {True, False}
