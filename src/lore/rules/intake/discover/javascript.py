"""JavaScript and TypeScript: quotes, semicolons, module style and test file names."""

from __future__ import annotations

import re

from lore.rules.intake.candidates import Candidate
from lore.rules.intake.discover.files import (
    GLOBS,
    NAMES,
    SourceFile,
)
from lore.rules.intake.discover.labels import _preference
from lore.rules.intake.discover.vote import _candidate, vote

_JS_STRING = re.compile(r"""(?<![\w\\])('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")""")


def js_quotes(f: SourceFile) -> str | None:
    single = double = 0
    for line in f.lines:
        stripped = line.strip()
        if stripped.startswith(("//", "*", "/*")) or "`" in line:
            continue
        for match in _JS_STRING.finditer(line):
            if match.group(1).startswith("'"):
                single += 1
            else:
                double += 1
    return _preference(single, double, "single", "double")


_STATEMENT_END = re.compile(r"[\w)\]'\"`]$")
_NO_STATEMENT = re.compile(
    r"^(//|\*|/\*|import\s.*\{$|export\s+(default\s+)?(function|class|interface|type)\b|"
    r"(if|for|while|switch|else|try|catch|finally|function|class|interface|type)\b)"
)


def semicolons(f: SourceFile) -> str | None:
    with_semi = without = 0
    for line in f.lines:
        stripped = line.strip()
        if not stripped or _NO_STATEMENT.match(stripped):
            continue
        if stripped.endswith(";"):
            with_semi += 1
        elif _STATEMENT_END.search(stripped) and re.match(
            r"^(const|let|var|return|import|export|\w+\()", stripped
        ):
            without += 1
    return _preference(with_semi, without, "semicolons", "no semicolons")


def js_module_style(f: SourceFile) -> str | None:
    esm = bool(re.search(r"^\s*(import\s.+\sfrom\s|import\s+['\"]|export\s)", f.text, re.M))
    cjs = bool(re.search(r"\brequire\(\s*['\"]|module\.exports\b|^\s*exports\.\w+\s*=", f.text, re.M))
    if esm and cjs:
        return "mixed"
    return "ES modules" if esm else ("CommonJS" if cjs else None)


def js_test_layout(language: str, tests: list[SourceFile]) -> list[Candidate]:
    """How JavaScript/TypeScript test files are named."""
    out: list[Candidate] = []
    name = NAMES[language]

    def js_name(f: SourceFile) -> str | None:
        match = re.search(r"\.(test|spec)\.[cm]?[jt]sx?$", f.rel)
        return f"*.{match.group(1)}.*" if match else None

    v = vote(tests, js_name)
    if v:
        out.append(
            _candidate(
                f"Name {name} test files `{v.label.replace('.*', '.' + ('ts' if language == 'typescript' else 'js'))}`.",
                f"{name} test files",
                [language, "test", "naming"],
                [GLOBS[language]],
                v.evidence("test_naming"),
                "test_naming",
            )
        )
    return out
