from pathlib import Path

import pytest

from conftest import make_repo
from lore.core.errors import InvalidInput
from lore.rules import service
from lore.rules.scopes import coverage, normalize_scope

SECTIONS = ("src", "src/api", "src/db", "tests")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, []),
        ("**", []),
        ("global", []),
        ("src/api", ["src/api/"]),
        ("src/api/**", ["src/api/"]),
        ("src/api/", ["src/api/"]),
        ("api", ["src/api/"]),
        ('["src/**/*.ts", "*.tsx"]', ["src/**/*.ts", "*.tsx"]),
        ("src/**/*.{ts,tsx}, tests", ["src/**/*.{ts,tsx}", "tests/"]),
        ("'src/db/models.py'", ["src/db/models.py"]),
    ],
)
def test_scope_dialects_normalise(value: object, expected: list[str]) -> None:
    assert normalize_scope(value, SECTIONS) == expected


def test_most_specific_level_wins() -> None:
    scope = ("src/", "src/api/", "src/api/*.py")
    assert coverage(scope, ["src/api/orders.py"]).level == "file"
    assert coverage(scope, ["src/db/x.py"]).level == "section"
    assert coverage(("src/", "src/api/"), ["src/db/x.py", "src/api/y.py"]).specificity == (1, 2)
    assert coverage((), ["anything"]).level == "global"
    assert coverage(("docs/",), ["src/a.py"]) is None


def test_real_globs_against_real_files(tmp_path: Path) -> None:
    files = {
        "src/web/App.tsx": "x",
        "src/web/util.ts": "x",
        "src/api/orders.py": "x",
        "tests/api/test_orders.py": "x",
        "docs/guide.md": "x",
    }
    repo = make_repo(tmp_path / "shop", files)
    project, _ = service.register_project(repo)
    rules = {
        "tsx": service.add_rule(project, "Typed props", scope="src/**/*.{ts,tsx}"),
        "tests": service.add_rule(project, "Use fixtures", scope="- 'tests/**/*.py'"),
        "api": service.add_rule(project, "Validate bodies", scope="src/api"),
        "md": service.add_rule(project, "Wrap at 80", scope='["*.md"]'),
        "all": service.add_rule(project, "No secrets"),
    }
    expected = {
        "src/web/App.tsx": {"tsx", "all"},
        "src/web/util.ts": {"tsx", "all"},
        "src/api/orders.py": {"api", "all"},
        "tests/api/test_orders.py": {"tests", "all"},
        "docs/guide.md": {"md", "all"},
    }
    for rel, names in expected.items():
        assert (repo / rel).exists()
        reply = service.rules_for_change(project, [repo / rel])
        assert {s.rule.id for s in reply.served} == {rules[n].id for n in names}, rel


@pytest.mark.parametrize("value", ["../other/**", "src/../../etc", ".."])
def test_scopes_outside_the_project_are_refused(value: str) -> None:
    with pytest.raises(InvalidInput, match="outside the project"):
        normalize_scope(value, SECTIONS)
