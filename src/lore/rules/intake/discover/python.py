"""Python: its quotes, type hints, `from __future__` import, import style and test layout."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable
from pathlib import PurePosixPath

from lore.rules.intake.candidates import Candidate
from lore.rules.intake.discover.files import (
    GLOBS,
    SourceFile,
)
from lore.rules.intake.discover.labels import _preference
from lore.rules.intake.discover.vote import _candidate, vote


def python_quotes(f: SourceFile) -> str | None:
    single = double = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(f.text).readline):
            if tok.type != tokenize.STRING:
                continue
            body = tok.string.lstrip("rbuRBUfF")
            if body.startswith(('"""', "'''")):
                continue
            if body.startswith("'") and '"' not in body:
                single += 1
            elif body.startswith('"') and "'" not in body:
                double += 1
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return _preference(single, double, "single", "double")


def python_return_annotations(f: SourceFile) -> str | None:
    signatures = re.findall(r"^\s*(?:async\s+)?def\s+\w+\s*\((.*?)\)\s*(->)?[^:\n]*:", f.text, re.M | re.S)
    if len(signatures) < 2:
        return None
    annotated = sum(1 for _, arrow in signatures if arrow)
    return _preference(annotated, len(signatures) - annotated, "annotated", "unannotated", minimum=2)


def future_annotations(f: SourceFile) -> str | None:
    if PurePosixPath(f.rel).name == "__init__.py" or len(f.lines) < 5:
        return None
    return "yes" if "from __future__ import annotations" in f.text else "no"


def python_import_style(packages: set[str]) -> Callable[[SourceFile], str | None]:
    own = (
        re.compile(r"^\s*(?:from|import)\s+(" + "|".join(map(re.escape, sorted(packages))) + r")\b", re.M)
        if packages
        else None
    )
    relative = re.compile(r"^\s*from\s+\.+\w*\s+import\b", re.M)

    def label(f: SourceFile) -> str | None:
        has_rel = bool(relative.search(f.text))
        has_abs = bool(own and own.search(f.text))
        if has_rel and has_abs:
            return "mixed"
        if has_rel:
            return "relative"
        if has_abs:
            return "absolute"
        return None

    return label


def _python_votes(
    items: list[SourceFile], packages: set[str], skip: Callable[[str], bool]
) -> list[Candidate]:
    out: list[Candidate] = []
    scope = [GLOBS["python"]]
    v = vote(items, future_annotations)
    if v and v.label == "yes":
        out.append(
            _candidate(
                "Start Python modules with `from __future__ import annotations`.",
                "Python future import",
                ["python", "import", "annotations"],
                scope,
                v.evidence("future_annotations"),
                "future_annotations",
            )
        )
    v = vote(items, python_return_annotations)
    if v and v.label == "annotated" and not skip("types"):
        out.append(
            _candidate(
                "Give every Python function type annotations, including the return type.",
                "Python type hints",
                ["python", "types", "annotations"],
                scope,
                v.evidence("type_hints"),
                "type_hints",
            )
        )
    v = vote(items, python_import_style(packages))
    if v and v.label != "mixed":
        pkg = sorted(packages)[0] if len(packages) == 1 else "pkg"
        text = (
            f"Import from the project's own packages with absolute imports (`from {pkg}.module import "
            "name`), not relative ones."
            if v.label == "absolute"
            else "Import from sibling modules with relative imports (`from .mod import x`)."
        )
        out.append(
            _candidate(
                text,
                "Python imports",
                ["python", "import"],
                scope,
                v.evidence("import_style"),
                "import_style",
            )
        )
    return out


def python_test_layout(tests: list[SourceFile], skip: Callable[[str], bool]) -> list[Candidate]:
    """How Python tests are named and placed, and whether they use pytest or unittest."""
    out: list[Candidate] = []

    def py_name(f: SourceFile) -> str | None:
        base = PurePosixPath(f.rel).name
        if base.startswith("test_"):
            return "test_*.py"
        if base.endswith("_test.py"):
            return "*_test.py"
        # helpers (conftest, fakes) are not test files; a file with tests under another name is
        return "other" if re.search(r"^\s*(async\s+)?def test_\w+\(", f.text, re.M) else None

    def place(f: SourceFile) -> str | None:
        top = PurePosixPath(f.rel).parts[0]
        return f"{top}/" if top in ("tests", "test") else "next to the code"

    naming, where = vote(tests, py_name), vote(tests, place)
    if naming and naming.label != "other":
        folder = f" in `{where.label}`" if where and where.label.endswith("/") else ""
        scope = (
            [where.label] if where and where.label.endswith("/") else [naming.label.replace("*", "**/*", 1)]
        )
        out.append(
            _candidate(
                f"Put Python tests{folder} in files named `{naming.label}`.",
                "Python test layout",
                ["python", "test", "layout", "naming"],
                scope,
                naming.evidence("test_layout"),
                "test_layout",
            )
        )
    if not skip("test_runner"):

        def runner(f: SourceFile) -> str | None:
            if PurePosixPath(f.rel).name in ("conftest.py", "__init__.py"):
                return None
            if "unittest.TestCase" in f.text or re.search(
                r"^\s*class \w+\((unittest\.)?TestCase\)", f.text, re.M
            ):
                return "unittest"
            return "pytest" if re.search(r"^\s*(async\s+)?def test_\w+\(", f.text, re.M) else None

        v = vote(tests, runner)
        if v:
            text = (
                "Write Python tests as plain pytest functions with `assert`, and run `pytest`."
                if v.label == "pytest"
                else "Write Python tests as unittest.TestCase classes."
            )
            out.append(
                _candidate(
                    text,
                    "Python test style",
                    ["python", "test", v.label],
                    [GLOBS["python"]],
                    v.evidence("test_runner"),
                    "test_runner",
                )
            )
    return out
