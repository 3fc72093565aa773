"""Python's tool configuration: Ruff, Black, isort, mypy, pytest and flake8."""

from __future__ import annotations

import configparser
from pathlib import Path
from typing import Any

from lore.rules.intake.discover_config.base import (
    Declared,
    _line_length,
    _read,
    _toml,
)


def python_config(root: Path, files: set[str]) -> list[Declared]:
    """What a Python project's tool configuration declares: Ruff, Black, isort, mypy, pytest and
    flake8, each finding naming its file and setting."""
    tool = _pyproject_tools(root, files)
    return [
        *_ruff(root, files, tool),
        *_black(tool),
        *_isort(tool),
        *_mypy(tool, files),
        *_pytest(tool, files),
        *_flake8(root, files),
    ]


def _py() -> list[str]:
    return ["**/*.py"]


def _pyproject_tools(root: Path, files: set[str]) -> dict[str, Any]:
    """The `[tool]` table of `pyproject.toml` (empty when there is none)."""
    pyproject = _toml(root, "pyproject.toml") if "pyproject.toml" in files else None
    return (pyproject or {}).get("tool", {})


def _ruff(root: Path, files: set[str], tool: dict[str, Any]) -> list[Declared]:
    """Ruff from `[tool.ruff]`, else `ruff.toml` or `.ruff.toml`: the linter, its line length and
    its quote style."""
    ruff = (
        tool.get("ruff")
        or (_toml(root, "ruff.toml") if "ruff.toml" in files else None)
        or (_toml(root, ".ruff.toml") if ".ruff.toml" in files else None)
    )
    if ruff is None:
        return []
    ruff_file = (
        "pyproject.toml" if tool.get("ruff") else ("ruff.toml" if "ruff.toml" in files else ".ruff.toml")
    )
    formats = isinstance(ruff.get("format"), dict)
    found = [
        Declared(
            "Lint Python with Ruff (`ruff check`"
            + (", `ruff format`" if formats else "")
            + ") and keep it clean before committing.",
            "Python linter",
            ["python", "lint", "ruff"],
            _py(),
            ruff_file,
            "[tool.ruff]",
            ("python", "linter"),
        )
    ]
    if isinstance(ruff.get("line-length"), int):
        found.append(_line_length("python", ruff["line-length"], ruff_file, "ruff line-length", _py()))
    quote = (ruff.get("format") or {}).get("quote-style")
    if quote in ("single", "double"):
        found.append(
            Declared(
                f"Use {quote} quotes for Python strings (Ruff format quote-style).",
                "Python quotes",
                ["python", "quotes", "style"],
                _py(),
                ruff_file,
                f"format.quote-style = {quote}",
                ("python", "quotes"),
            )
        )
    return found


def _black(tool: dict[str, Any]) -> list[Declared]:
    """Black from `[tool.black]`: the formatter, its line length, and double quotes unless string
    normalisation is off."""
    black = tool.get("black")
    if black is None:
        return []
    found = [
        Declared(
            "Format Python with Black; do not hand-format against it.",
            "Python formatter",
            ["python", "format", "black"],
            _py(),
            "pyproject.toml",
            "[tool.black]",
            ("python", "formatter"),
        )
    ]
    if isinstance(black.get("line-length"), int):
        found.append(
            _line_length("python", black["line-length"], "pyproject.toml", "black line-length", _py())
        )
    if not black.get("skip-string-normalization"):
        found.append(
            Declared(
                "Use double quotes for Python strings (Black normalises them).",
                "Python quotes",
                ["python", "quotes", "style"],
                _py(),
                "pyproject.toml",
                "black string normalisation",
                ("python", "quotes"),
            )
        )
    return found


def _isort(tool: dict[str, Any]) -> list[Declared]:
    """isort from `[tool.isort]`, with its profile when one is named."""
    if tool.get("isort") is None:
        return []
    profile = tool["isort"].get("profile")
    return [
        Declared(
            "Sort Python imports with isort" + (f" (profile {profile})." if profile else "."),
            "Python imports",
            ["python", "imports", "isort"],
            _py(),
            "pyproject.toml",
            "[tool.isort]",
            ("python", "import_order"),
        )
    ]


def _mypy(tool: dict[str, Any], files: set[str]) -> list[Declared]:
    """mypy from `[tool.mypy]` or `mypy.ini`, strict or not."""
    if tool.get("mypy") is None and "mypy.ini" not in files:
        return []
    strict = bool((tool.get("mypy") or {}).get("strict"))
    return [
        Declared(
            "Type-check Python with mypy"
            + (" in strict mode" if strict else "")
            + "; new code must pass it.",
            "Python type checking",
            ["python", "types", "mypy"],
            _py(),
            "pyproject.toml" if tool.get("mypy") is not None else "mypy.ini",
            "[tool.mypy]" + (" strict = true" if strict else ""),
            ("python", "types"),
        )
    ]


def _pytest(tool: dict[str, Any], files: set[str]) -> list[Declared]:
    """pytest from `[tool.pytest.ini_options]` or `pytest.ini`, with its test folders."""
    pytest_cfg = tool.get("pytest", {}).get("ini_options") if isinstance(tool.get("pytest"), dict) else None
    if pytest_cfg is None and "pytest.ini" not in files:
        return []
    paths = (pytest_cfg or {}).get("testpaths")
    folders = paths if isinstance(paths, list) else [paths] if paths else []
    where = " in " + ", ".join(f"`{str(p).rstrip('/')}/`" for p in folders) if folders else ""
    return [
        Declared(
            f"Write tests for pytest{where} and run them with `pytest`.",
            "Python tests",
            ["python", "test", "pytest"],
            _py(),
            "pyproject.toml" if pytest_cfg is not None else "pytest.ini",
            "[tool.pytest.ini_options]" if pytest_cfg is not None else "pytest.ini",
            ("python", "test_runner"),
        )
    ]


def _flake8(root: Path, files: set[str]) -> list[Declared]:
    """flake8 from a `[flake8]` section of `setup.cfg`, `.flake8` or `tox.ini`, with its line length."""
    found: list[Declared] = []
    for rel in ("setup.cfg", ".flake8", "tox.ini"):
        if rel not in files:
            continue
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(_read(root, rel) or "")
        except configparser.Error:
            continue
        if not parser.has_section("flake8"):
            continue
        found.append(
            Declared(
                "Lint Python with flake8 and keep it clean.",
                "Python linter",
                ["python", "lint", "flake8"],
                _py(),
                rel,
                "[flake8]",
                ("python", "linter"),
            )
        )
        value = parser.get("flake8", "max-line-length", fallback=None)
        if value and value.strip().isdigit():
            found.append(_line_length("python", int(value), rel, "flake8 max-line-length", _py()))
    return found
