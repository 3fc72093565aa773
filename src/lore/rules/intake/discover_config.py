"""Conventions a repository declares in its tool configuration.

A formatter or linter setting is a convention stated outright, so it needs no vote across files:
`pyproject.toml` ([tool.ruff], [tool.black], [tool.isort], [tool.mypy], [tool.pytest]),
`setup.cfg`/`.flake8`, Prettier and ESLint files, `package.json`, `tsconfig.json`,
`.editorconfig`, `rustfmt.toml`, `Cargo.toml`, `go.mod`, golangci-lint and pre-commit.
Each finding names the file and the setting it came from.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.rules.intake.frontmatter import parse_header

JS_GLOB = "**/*.{js,jsx,ts,tsx,mjs,cjs}"
TS_GLOB = "**/*.{ts,tsx}"


@dataclass
class Declared:
    """A convention found in a config file; `aspect` lets a file vote defer to it."""

    text: str
    title: str
    triggers: list[str]
    scope: list[str]
    file: str
    setting: str
    aspect: tuple[str, str] = ("", "")  # (language, what): ("python", "line_length")
    extra: dict[str, Any] = field(default_factory=dict)

    def evidence(self) -> dict[str, Any]:
        return {
            "convention": self.aspect[1] or "tool",
            "kind": "config",
            "file": self.file,
            "setting": self.setting,
            "ratio": f"declared in {self.file}",
        }


def _read(root: Path, rel: str) -> str | None:
    try:
        return (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _toml(root: Path, rel: str) -> dict[str, Any] | None:
    text = _read(root, rel)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _jsonc(text: str) -> Any:
    """JSON with comments and trailing commas (tsconfig, .eslintrc, .prettierrc)."""
    text = re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "", text, flags=re.S)
    text = re.sub(r",(\s*[}\]])", r"\1", text)
    return json.loads(text)


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


def _line_length(language: str, limit: int, rel: str, setting: str, scope: list[str]) -> Declared:
    name = language.capitalize() if language != "javascript" else "JavaScript/TypeScript"
    return Declared(
        f"Keep {name} lines within {limit} characters ({setting}).",
        f"{name} line length",
        [language, "line", "length", "style"],
        scope,
        rel,
        f"{setting} = {limit}",
        (language, "line_length"),
    )


def javascript_config(root: Path, files: set[str]) -> list[Declared]:
    found: list[Declared] = []
    package: dict[str, Any] = {}
    if "package.json" in files:
        try:
            package = json.loads(_read(root, "package.json") or "{}")
        except json.JSONDecodeError:
            package = {}
    deps = {**(package.get("dependencies") or {}), **(package.get("devDependencies") or {})}
    prettier_file = next(
        (
            f
            for f in sorted(files)
            if re.fullmatch(
                r"\.prettierrc(\.(json|ya?ml|json5|toml))?"
                r"|prettier\.config\.[cm]?js|\.prettierrc\.[cm]?js",
                f,
            )
        ),
        None,
    )
    settings: dict[str, Any] = {}
    if prettier_file:
        settings = _prettier_settings(root, prettier_file)
    elif isinstance(package.get("prettier"), dict):
        prettier_file, settings = "package.json", package["prettier"]
    if prettier_file or "prettier" in deps:
        where = prettier_file or "package.json"
        found.append(
            Declared(
                "Format JavaScript/TypeScript with Prettier; do not hand-format against it.",
                "JS/TS formatter",
                ["javascript", "typescript", "format", "prettier"],
                [JS_GLOB],
                where,
                "prettier",
                ("javascript", "formatter"),
            )
        )
        if "singleQuote" in settings:
            quote = "single" if settings["singleQuote"] in (True, "true") else "double"
            found.append(
                Declared(
                    f"Use {quote} quotes in JavaScript/TypeScript (Prettier singleQuote).",
                    "JS/TS quotes",
                    ["javascript", "typescript", "quotes", "style"],
                    [JS_GLOB],
                    where,
                    f"singleQuote = {settings['singleQuote']}",
                    ("javascript", "quotes"),
                )
            )
        if "semi" in settings:
            semi = settings["semi"] in (True, "true")
            found.append(
                Declared(
                    "End JavaScript/TypeScript statements with semicolons."
                    if semi
                    else "Leave out semicolons at the end of JavaScript/TypeScript statements.",
                    "JS/TS semicolons",
                    ["javascript", "typescript", "semicolon", "style"],
                    [JS_GLOB],
                    where,
                    f"semi = {settings['semi']}",
                    ("javascript", "semicolons"),
                )
            )
        if str(settings.get("printWidth", "")).isdigit():
            found.append(
                _line_length(
                    "javascript", int(settings["printWidth"]), where, "prettier printWidth", [JS_GLOB]
                )
            )
        if "useTabs" in settings or "tabWidth" in settings:
            tabs = settings.get("useTabs") in (True, "true")
            width = settings.get("tabWidth", 2)
            found.append(
                Declared(
                    "Indent JavaScript/TypeScript with tabs (Prettier useTabs)."
                    if tabs
                    else f"Indent JavaScript/TypeScript with {width} spaces (Prettier tabWidth).",
                    "JS/TS indentation",
                    ["javascript", "typescript", "indentation", "style"],
                    [JS_GLOB],
                    where,
                    f"useTabs = {tabs}, tabWidth = {width}",
                    ("javascript", "indentation"),
                )
            )
    eslint = next(
        (
            f
            for f in sorted(files)
            if re.fullmatch(
                r"\.eslintrc(\.(json|ya?ml|js|cjs))?|"
                r"eslint\.config\.[cm]?[jt]s",
                f,
            )
        ),
        None,
    )
    if eslint or "eslintConfig" in package:
        found.append(
            Declared(
                "Lint JavaScript/TypeScript with ESLint and fix its findings before committing.",
                "JS/TS linter",
                ["javascript", "typescript", "lint", "eslint"],
                [JS_GLOB],
                eslint or "package.json",
                "eslint",
                ("javascript", "linter"),
            )
        )
    runner = next((r for r in ("vitest", "jest", "mocha", "ava") if r in deps), None)
    test_script = str((package.get("scripts") or {}).get("test", ""))
    if runner:
        found.append(
            Declared(
                f"Write JavaScript/TypeScript tests for {runner}"
                + (f" and run them with `npm test` ({test_script})." if test_script else "."),
                "JS/TS tests",
                ["javascript", "typescript", "test", runner],
                [JS_GLOB],
                "package.json",
                f"devDependencies.{runner}",
                ("javascript", "test_runner"),
            )
        )
    if "tsconfig.json" in files:
        try:
            tsconfig = _jsonc(_read(root, "tsconfig.json") or "{}")
        except (json.JSONDecodeError, ValueError):
            tsconfig = {}
        if isinstance(tsconfig, dict) and (tsconfig.get("compilerOptions") or {}).get("strict") is True:
            found.append(
                Declared(
                    "TypeScript runs in strict mode; keep types precise and do not silence "
                    "errors with `any`.",
                    "TypeScript strict",
                    ["typescript", "types", "strict"],
                    [TS_GLOB],
                    "tsconfig.json",
                    "compilerOptions.strict = true",
                    ("typescript", "types"),
                )
            )
    return found


def _prettier_settings(root: Path, rel: str) -> dict[str, Any]:
    text = _read(root, rel) or ""
    if rel.endswith((".js", ".cjs", ".mjs")):
        return {
            m.group(1): m.group(2).strip("'\"")
            for m in re.finditer(r"(\w+)\s*:\s*(true|false|\d+|'[^']*'|\"[^\"]*\")", text)
        }
    if rel.endswith(".toml"):
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return {}
    try:
        data = _jsonc(text)
        return data if isinstance(data, dict) else {}
    except (json.JSONDecodeError, ValueError):
        values, _ = parse_header(text.splitlines())  # YAML form: key: value lines
        return values


def editorconfig(root: Path, files: set[str]) -> list[Declared]:
    text = _read(root, ".editorconfig") if ".editorconfig" in files else None
    if not text:
        return []
    found: list[Declared] = []
    section = None
    settings: dict[str, dict[str, str]] = {}
    for raw in text.splitlines():
        line = (
            raw.split(";", 1)[0].split("#", 1)[0].strip() if not raw.strip().startswith("[") else raw.strip()
        )
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            settings.setdefault(section, {})
        elif "=" in line and section is not None:
            key, value = (p.strip().lower() for p in line.split("=", 1))
            settings[section][key] = value
    for pattern, values in settings.items():
        parts = []
        style, size = values.get("indent_style"), values.get("indent_size")
        if style == "tab":
            parts.append("indent with tabs")
        elif style == "space" and size and size.isdigit():
            parts.append(f"indent with {size} spaces")
        if values.get("max_line_length", "").isdigit():
            parts.append(f"keep lines within {values['max_line_length']} characters")
        if values.get("end_of_line") in ("lf", "crlf"):
            parts.append(f"use {values['end_of_line'].upper()} line endings")
        if values.get("insert_final_newline") == "true":
            parts.append("end files with a newline")
        if values.get("trim_trailing_whitespace") == "true":
            parts.append("trim trailing whitespace")
        if not parts:
            continue
        scope = [] if pattern in ("*", "**") else [pattern if "/" in pattern else f"**/{pattern}"]
        where = "all files" if not scope else f"`{pattern}` files"
        found.append(
            Declared(
                f"For {where}: " + ", ".join(parts) + " (.editorconfig).",
                f"Editor settings {pattern}",
                ["indentation", "style", "editorconfig"],
                scope,
                ".editorconfig",
                f"[{pattern}] " + ", ".join(f"{k} = {v}" for k, v in values.items()),
                ("editorconfig", pattern),
            )
        )
    return found


def rust_go_config(root: Path, files: set[str]) -> list[Declared]:
    found: list[Declared] = []
    rustfmt = next((f for f in ("rustfmt.toml", ".rustfmt.toml") if f in files), None)
    if "Cargo.toml" in files or rustfmt:
        settings = _toml(root, rustfmt) if rustfmt else {}
        detail = f" (max_width = {settings['max_width']})" if settings and "max_width" in settings else ""
        found.append(
            Declared(
                f"Format Rust with `cargo fmt`{detail}, lint with `cargo clippy`, and run "
                "`cargo test` before committing.",
                "Rust tooling",
                ["rust", "format", "lint", "test"],
                ["**/*.rs"],
                rustfmt or "Cargo.toml",
                "rustfmt" if rustfmt else "Cargo.toml",
                ("rust", "formatter"),
            )
        )
    if "go.mod" in files:
        found.append(
            Declared(
                "Format Go with gofmt (tabs for indentation) and run `go vet` and `go test ./...` "
                "before committing.",
                "Go tooling",
                ["go", "format", "gofmt", "test"],
                ["**/*.go"],
                "go.mod",
                "go module",
                ("go", "formatter"),
            )
        )
        lint = next((f for f in (".golangci.yml", ".golangci.yaml", ".golangci.toml") if f in files), None)
        if lint:
            found.append(
                Declared(
                    "Lint Go with golangci-lint and keep it clean.",
                    "Go linter",
                    ["go", "lint", "golangci"],
                    ["**/*.go"],
                    lint,
                    "golangci-lint",
                    ("go", "linter"),
                )
            )
    if ".pre-commit-config.yaml" in files:
        hooks = re.findall(r"^\s*-\s*id:\s*([\w.-]+)", _read(root, ".pre-commit-config.yaml") or "", re.M)
        if hooks:
            shown = ", ".join(hooks[:6]) + (", ..." if len(hooks) > 6 else "")
            found.append(
                Declared(
                    f"Run the pre-commit hooks ({shown}) before committing: `pre-commit run`.",
                    "Pre-commit hooks",
                    ["git", "commit", "lint", "format"],
                    [],
                    ".pre-commit-config.yaml",
                    "hooks: " + shown,
                    ("any", "pre_commit"),
                )
            )
    return found


READERS: tuple[Callable[[Path, set[str]], list[Declared]], ...] = (
    python_config,
    javascript_config,
    editorconfig,
    rust_go_config,
)


def declared_conventions(root: Path, files: set[str]) -> list[Declared]:
    """Everything the repository's config files state, in a stable order."""
    out: list[Declared] = []
    for reader in READERS:
        out.extend(reader(root, files))
    return out
