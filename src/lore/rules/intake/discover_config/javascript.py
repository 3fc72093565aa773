"""JavaScript and TypeScript configuration: Prettier, ESLint, the test runner, `tsconfig.json`."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from lore.rules.intake.discover_config.base import (
    JS_GLOB,
    TS_GLOB,
    Declared,
    _jsonc,
    _line_length,
    _read,
)
from lore.rules.intake.frontmatter import parse_header


def javascript_config(root: Path, files: set[str]) -> list[Declared]:
    """What a JavaScript/TypeScript project's configuration declares: Prettier and its settings,
    ESLint, the test runner and TypeScript's strict mode, each finding naming its file and setting."""
    package: dict[str, Any] = {}
    if "package.json" in files:
        try:
            package = json.loads(_read(root, "package.json") or "{}")
        except json.JSONDecodeError:
            package = {}
    deps = {**(package.get("dependencies") or {}), **(package.get("devDependencies") or {})}
    return [
        *_prettier(root, files, package, deps),
        *_eslint(files, package),
        *_test_runner(package, deps),
        *_typescript(root, files),
    ]


def _prettier(root: Path, files: set[str], package: dict[str, Any], deps: dict[str, Any]) -> list[Declared]:
    """Prettier from its own file or `package.json`: the formatter, quotes, semicolons, line
    length and indentation."""
    found: list[Declared] = []
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
    return found


def _eslint(files: set[str], package: dict[str, Any]) -> list[Declared]:
    """ESLint, from its config file or `eslintConfig` in `package.json`."""
    found: list[Declared] = []
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
    return found


def _test_runner(package: dict[str, Any], deps: dict[str, Any]) -> list[Declared]:
    """The test runner among the dependencies, and `npm test`'s script."""
    found: list[Declared] = []
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
    return found


def _typescript(root: Path, files: set[str]) -> list[Declared]:
    """TypeScript's strict mode in `tsconfig.json`."""
    found: list[Declared] = []
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
