import pytest

from lore.core.globs import glob_matches, parse_patterns


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('["src/**/*.ts", "*.tsx"]', ["src/**/*.ts", "*.tsx"]),
        ("['a/*.py', 'b/**']", ["a/*.py", "b/**"]),
        ("src/**/*.ts, *.tsx", ["src/**/*.ts", "*.tsx"]),
        ('"**/*.{ts,tsx}"', ["**/*.{ts,tsx}"]),
        ("**/*.{ts,tsx}, lib/*.js", ["**/*.{ts,tsx}", "lib/*.js"]),
        ("- src/*.py\n- 'tests/**'", ["src/*.py", "tests/**"]),
        (["./src/a.py", "/docs/**", "src/a.py"], ["src/a.py", "docs/**"]),
        ("", []),
        (None, []),
    ],
)
def test_every_dialect_parses(value: object, expected: list[str]) -> None:
    assert parse_patterns(value) == expected


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a/b/c.py", True),
        ("*.py", "c.pyc", False),
        ("src/**/*.ts", "src/x.ts", True),
        ("src/**/*.ts", "src/a/b/x.ts", True),
        ("src/**/*.ts", "lib/src/x.ts", False),
        ("**/*.{ts,tsx}", "a/b.tsx", True),
        ("**/*.{ts,tsx}", "a/b.js", False),
        ("src/api/**", "src/api/x/y.py", True),
        ("src/api/**", "src/apix/y.py", False),
        ("src/*.py", "src/a/b.py", False),
        ("test_?.py", "tests/test_a.py", True),
        ("[ab].md", "b.md", True),
        ("docs/", "docs/x/y.md", True),
    ],
)
def test_glob_matching(pattern: str, path: str, matches: bool) -> None:
    assert glob_matches(pattern, path) is matches
