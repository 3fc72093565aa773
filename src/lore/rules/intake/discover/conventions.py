"""The conventions voted across a repository's files, language by language; an aspect its
configuration declares is not voted on.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from lore.rules.intake.candidates import Candidate
from lore.rules.intake.discover.files import (
    GLOBS,
    JS_FAMILY,
    NAMES,
    SourceFile,
    _is_test,
    _line_limit,
)
from lore.rules.intake.discover.javascript import js_module_style, js_quotes, js_test_layout, semicolons
from lore.rules.intake.discover.labels import file_name_style, function_name_style, indentation, longest_line
from lore.rules.intake.discover.python import _python_votes, python_quotes, python_test_layout
from lore.rules.intake.discover.vote import Vote, _candidate, vote


def _voted(
    files: dict[str, list[SourceFile]], declared: set[tuple[str, str]], packages: set[str]
) -> list[Candidate]:
    out: list[Candidate] = []
    for language, items in sorted(files.items()):
        name, scope = NAMES[language], [GLOBS[language]]
        family = "javascript" if language in JS_FAMILY else language
        lang_words = [language] if language == family else [language, family]

        def skip(aspect: str, family: str = family, language: str = language) -> bool:
            return (family, aspect) in declared or (language, aspect) in declared

        if not skip("indentation") and not (language == "go" and ("go", "formatter") in declared):
            v = vote(items, indentation)
            if v and v.label != "mixed":
                how = "tabs" if v.label == "tabs" else v.label
                out.append(
                    _candidate(
                        f"Indent {name} code with {how}.",
                        f"{name} indentation",
                        [*lang_words, "indentation", "style"],
                        scope,
                        v.evidence("indentation"),
                        "indentation",
                    )
                )
        if not skip("line_length") and language != "go":
            lengths = {f.rel: longest_line(f) for f in items}
            limit = _line_limit(list(lengths.values()))
            if limit:
                agree = [r for r, n in lengths.items() if n <= limit]
                v = Vote(str(limit), agree, list(lengths), [r for r, n in lengths.items() if n > limit])
                out.append(
                    _candidate(
                        f"Keep {name} lines within {limit} characters.",
                        f"{name} line length",
                        [*lang_words, "line", "length", "style"],
                        scope,
                        v.evidence("line_length"),
                        "line_length",
                    )
                )
        if not skip("quotes") and language in ("python", *JS_FAMILY):
            v = vote(items, python_quotes if language == "python" else js_quotes)
            if v and v.label != "mixed":
                out.append(
                    _candidate(
                        f"Use {v.label} quotes for {name} strings.",
                        f"{name} quotes",
                        [*lang_words, "quotes", "string", "style"],
                        scope,
                        v.evidence("quotes"),
                        "quotes",
                    )
                )
        if not skip("semicolons") and language in JS_FAMILY:
            v = vote(items, semicolons)
            if v and v.label != "mixed":
                text = (
                    f"End {name} statements with semicolons."
                    if v.label == "semicolons"
                    else f"Leave out semicolons at the end of {name} statements."
                )
                out.append(
                    _candidate(
                        text,
                        f"{name} semicolons",
                        [*lang_words, "semicolon", "style"],
                        scope,
                        v.evidence("semicolons"),
                        "semicolons",
                    )
                )
        v = vote([f for f in items if not _is_test(f.rel)], file_name_style)
        if v and v.label != "mixed":
            out.append(
                _candidate(
                    f"Name {name} files in {v.label} (for example `{PurePosixPath(v.agree[0]).name}`).",
                    f"{name} file names",
                    [*lang_words, "naming", "file", "name"],
                    scope,
                    v.evidence("file_naming"),
                    "file_naming",
                )
            )
        v = vote(items, function_name_style)
        if v and v.label != "mixed":
            out.append(
                _candidate(
                    f"Name {name} functions in {v.label}.",
                    f"{name} function names",
                    [*lang_words, "naming", "function", "name"],
                    scope,
                    v.evidence("function_naming"),
                    "function_naming",
                )
            )
        if language == "python":
            out += _python_votes(items, packages, skip)
        if language in JS_FAMILY:
            v = vote(items, js_module_style)
            if v and v.label != "mixed":
                how = "ES module `import`/`export`" if v.label == "ES modules" else "CommonJS `require`"
                out.append(
                    _candidate(
                        f"Use {how} in {name} files.",
                        f"{name} modules",
                        [*lang_words, "import", "module"],
                        scope,
                        v.evidence("import_style"),
                        "import_style",
                    )
                )
        out += _test_layout(language, items, skip)
    return out


def _test_layout(language: str, items: list[SourceFile], skip: Callable[[str], bool]) -> list[Candidate]:
    tests = [f for f in items if _is_test(f.rel)]
    if language == "python":
        return python_test_layout(tests, skip)
    if language in JS_FAMILY:
        return js_test_layout(language, tests)
    return []
