"""`lore discover`: conventions a new contributor should follow, read from the code itself.

Two sources. What the tool configuration states (see `discover_config`) is taken as declared.
Everything else is a vote across files: each file gets a label for one aspect (its indentation,
its quote style, how its name is written ...), and a convention is proposed only when one label
holds for at least 90% of at least 5 files. The share and the files that disagree go into the
evidence, so whoever judges the candidate sees how strong it is. A declared setting wins over a
vote on the same aspect.

Nothing here is saved: `discover_conventions` returns candidates (the MCP tool hands them to the
agent to judge); `discover` saves them as pending rules for the user to approve.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lore.core import git
from lore.core.errors import InvalidInput
from lore.rules import service
from lore.rules.intake.candidates import Candidate, Saved, save_candidates
from lore.rules.intake.discover_config import declared_conventions
from lore.rules.models import Project

MIN_FILES = 5
MIN_SHARE = 0.9
SAMPLE = 300  # files read per language; enough for a stable share, fast on big repositories
MAX_BYTES = 200_000
LINE_LIMITS = (79, 80, 88, 100, 110, 120)
THRESHOLD = f"at least {int(MIN_SHARE * 100)}% of at least {MIN_FILES} files"

LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".rb": "ruby",
    ".java": "java",
    ".kt": "kotlin",
    ".cs": "csharp",
    ".php": "php",
    ".swift": "swift",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".hpp": "cpp",
    ".scala": "scala",
}
GLOBS = {
    "python": "**/*.py",
    "javascript": "**/*.{js,jsx,mjs,cjs}",
    "typescript": "**/*.{ts,tsx}",
    "go": "**/*.go",
    "rust": "**/*.rs",
    "ruby": "**/*.rb",
    "java": "**/*.java",
    "kotlin": "**/*.kt",
    "csharp": "**/*.cs",
    "php": "**/*.php",
    "swift": "**/*.swift",
    "c": "**/*.{c,h}",
    "cpp": "**/*.{cpp,cc,hpp}",
    "scala": "**/*.scala",
}
NAMES = {
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "go": "Go",
    "rust": "Rust",
    "ruby": "Ruby",
    "java": "Java",
    "kotlin": "Kotlin",
    "csharp": "C#",
    "php": "PHP",
    "swift": "Swift",
    "c": "C",
    "cpp": "C++",
    "scala": "Scala",
}
JS_FAMILY = ("javascript", "typescript")
SKIP_PARTS = {
    "node_modules",
    "vendor",
    "third_party",
    "dist",
    "build",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    "migrations",
    "generated",
    ".git",
}


@dataclass
class SourceFile:
    rel: str
    language: str
    text: str

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


# -- reading the repository --------------------------------------------------------------------------
def _sample(items: list[str], size: int) -> list[str]:
    if len(items) <= size:
        return items
    step = len(items) / size
    return [items[int(i * step)] for i in range(size)]


def source_files(root: Path, files: list[str]) -> dict[str, list[SourceFile]]:
    by_language: dict[str, list[str]] = {}
    for rel in files:
        path = PurePosixPath(rel)
        language = LANGUAGES.get(path.suffix.lower())
        if not language or SKIP_PARTS & set(path.parts) or ".min." in path.name:
            continue
        by_language.setdefault(language, []).append(rel)
    out: dict[str, list[SourceFile]] = {}
    for language, rels in by_language.items():
        loaded = []
        for rel in _sample(rels, SAMPLE):
            try:
                data = (root / rel).read_bytes()
            except OSError:
                continue
            if len(data) > MAX_BYTES or b"\0" in data[:4096]:
                continue
            text = data.decode("utf-8", "replace")
            if text.strip():
                loaded.append(SourceFile(rel, language, text))
        if loaded:
            out[language] = loaded
    return out


# -- the vote ------------------------------------------------------------------------------------------
@dataclass
class Vote:
    label: str
    agree: list[str]
    voters: list[str]
    disagree: list[str]

    @property
    def share(self) -> float:
        return len(self.agree) / len(self.voters) if self.voters else 0.0

    def evidence(self, convention: str, unit: str = "files") -> dict[str, object]:
        return {
            "convention": convention,
            "kind": "vote",
            "ratio": f"{len(self.agree)}/{len(self.voters)} {unit}",
            "share": round(self.share, 3),
            "threshold": THRESHOLD,
            "examples": self.agree[:3],
            "exceptions": self.disagree[:5],
        }


def vote(files: Iterable[SourceFile], label_of: Callable[[SourceFile], str | None]) -> Vote | None:
    """The winning label when it holds for at least 90% of at least 5 labelled files."""
    labels = {f.rel: label for f in files if (label := label_of(f)) is not None}
    if len(labels) < MIN_FILES:
        return None
    winner, count = Counter(labels.values()).most_common(1)[0]
    if count / len(labels) < MIN_SHARE:
        return None
    agree = [rel for rel, lab in labels.items() if lab == winner]
    return Vote(winner, agree, list(labels), [rel for rel, lab in labels.items() if lab != winner])


# -- labels for one file -----------------------------------------------------------------------------
def indentation(f: SourceFile) -> str | None:
    tabs = spaces = 0
    widths: Counter[int] = Counter()
    previous = 0
    in_block_string = False
    for line in f.lines:
        if f.language == "python" and line.count('"""') % 2 == 1:
            in_block_string = not in_block_string
            continue
        if in_block_string or not line.strip():
            continue
        lead = line[: len(line) - len(line.lstrip())]
        if lead.startswith("\t"):
            tabs += 1
        elif lead:
            spaces += 1
            if line.lstrip().startswith("*"):  # a comment block's aligned stars
                continue
            delta = len(lead) - previous
            if delta in (2, 3, 4, 8):
                widths[delta] += 1
        previous = len(lead) if not lead.startswith("\t") else previous
    if tabs + spaces < 3:
        return None
    if tabs >= 0.8 * (tabs + spaces):
        return "tabs"
    if spaces < 0.8 * (tabs + spaces) or not widths:
        return None
    width, _ = widths.most_common(1)[0]
    return f"{width} spaces"


def longest_line(f: SourceFile) -> int:
    return max((len(line) for line in f.lines if "http://" not in line and "https://" not in line), default=0)


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


def _preference(a: int, b: int, a_label: str, b_label: str, minimum: int = 3) -> str | None:
    total = a + b
    if total < minimum:
        return None
    if a >= 0.8 * total:
        return a_label
    if b >= 0.8 * total:
        return b_label
    return "mixed"


def name_style(name: str) -> str | None:
    """snake_case, kebab-case, camelCase or PascalCase; None for one-word names that fit several."""
    name = name.strip("_")
    if not name or not re.search(r"[A-Za-z]", name):
        return None
    if "_" in name and name == name.lower():
        return "snake_case"
    if "-" in name and name == name.lower():
        return "kebab-case"
    if re.fullmatch(r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+", name):
        return "camelCase"
    if re.fullmatch(r"(?:[A-Z][a-z0-9]+){2,}", name):
        return "PascalCase"
    if re.fullmatch(r"[A-Z0-9_]+", name) and "_" in name:
        return "UPPER_CASE"
    return None


def file_name_style(f: SourceFile) -> str | None:
    stem = PurePosixPath(f.rel).name.split(".")[0]
    if stem in ("index", "main", "__init__", "__main__", "setup", "conftest", "mod", "lib"):
        return None
    stem = re.sub(r"^(test_)|(_test|\.test|\.spec)$", "", stem)
    return name_style(stem)


_PY_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\s*\(", re.M)
_JS_FUNC = re.compile(
    r"(?:^|\s)function\s*\*?\s*(\w+)\s*\(|(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?"
    r"(?:\([^)]*\)|\w+)\s*=>",
    re.M,
)


def function_name_style(f: SourceFile) -> str | None:
    if f.language == "python":
        names = [n for n in _PY_DEF.findall(f.text) if not n.startswith("__")]
    elif f.language in JS_FAMILY:
        names = [a or b for a, b in _JS_FUNC.findall(f.text)]
    else:
        return None
    styles = Counter(s for n in names if (s := name_style(n)) and s != "UPPER_CASE")
    if sum(styles.values()) < 2:
        return None
    style, count = styles.most_common(1)[0]
    return style if count >= 0.8 * sum(styles.values()) else "mixed"


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


def js_module_style(f: SourceFile) -> str | None:
    esm = bool(re.search(r"^\s*(import\s.+\sfrom\s|import\s+['\"]|export\s)", f.text, re.M))
    cjs = bool(re.search(r"\brequire\(\s*['\"]|module\.exports\b|^\s*exports\.\w+\s*=", f.text, re.M))
    if esm and cjs:
        return "mixed"
    return "ES modules" if esm else ("CommonJS" if cjs else None)


# -- conventions ---------------------------------------------------------------------------------------
def _candidate(
    text: str, title: str, triggers: list[str], scope: list[str], evidence: dict[str, object], kind: str
) -> Candidate:
    return Candidate(text=text, title=title, triggers=triggers, scope=scope, evidence=[evidence], kind=kind)


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


def _is_test(rel: str) -> bool:
    name = PurePosixPath(rel).name
    parts = PurePosixPath(rel).parts
    return bool(re.match(r"test_.*\.py$|.*_test\.(py|go)$|.*\.(test|spec)\.[cm]?[jt]sx?$", name)) or any(
        p in ("tests", "test", "__tests__", "spec") for p in parts[:-1]
    )


def _test_layout(language: str, items: list[SourceFile], skip: Callable[[str], bool]) -> list[Candidate]:
    out: list[Candidate] = []
    tests = [f for f in items if _is_test(f.rel)]
    name = NAMES[language]
    if language == "python":

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
                [where.label]
                if where and where.label.endswith("/")
                else [naming.label.replace("*", "**/*", 1)]
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
    elif language in JS_FAMILY:

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


def _line_limit(lengths: list[int]) -> int | None:
    """The smallest usual limit that 90% of files keep, when files actually come near it."""
    if len(lengths) < MIN_FILES:
        return None
    for limit in LINE_LIMITS:
        within = sum(1 for n in lengths if n <= limit)
        if within / len(lengths) >= MIN_SHARE:
            near = sum(1 for n in lengths if limit - 15 < n <= limit)
            return limit if near >= max(2, len(lengths) // 10) else None
    return None


def _packages(root: Path, files: list[str]) -> set[str]:
    """Top-level Python packages of the repository (folders with `__init__.py`, `src/` layout too)."""
    out = set()
    for rel in files:
        parts = PurePosixPath(rel).parts
        if parts[-1] == "__init__.py":
            if len(parts) == 2:
                out.add(parts[0])
            elif len(parts) == 3 and parts[0] == "src":
                out.add(parts[1])
    return out


# -- entry points ---------------------------------------------------------------------------------------
def _root(path_or_project: str | Path | Project) -> Path:
    if isinstance(path_or_project, Project):
        return path_or_project.path
    target = Path(path_or_project).expanduser().resolve()
    if not target.exists():
        raise InvalidInput(f"{path_or_project} does not exist")
    project = service.project_for_path(target)
    return project.path if project else target if target.is_dir() else target.parent


def discover_conventions(path_or_project: str | Path | Project) -> list[Candidate]:
    """Candidate conventions of a repository with their evidence; nothing is saved."""
    root = _root(path_or_project)
    files = git.ls_files(root)
    file_set = set(files)
    declared = declared_conventions(root, file_set)
    out = [
        Candidate(
            d.text, d.title, list(d.triggers), list(d.scope), [d.evidence()], kind=d.aspect[1] or "tool"
        )
        for d in declared
    ]
    aspects = {d.aspect for d in declared}
    out += _voted(source_files(root, files), aspects, _packages(root, files))
    return out


def discover(path: str | Path) -> tuple[Project, list[Candidate], Saved]:
    """Register the repository, find its conventions and save them as pending rules."""
    project, _ = service.register_project(path)
    candidates = discover_conventions(project)
    saved = save_candidates(project, candidates, status="pending", source="discover")
    return project, candidates, saved
