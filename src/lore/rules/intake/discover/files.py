"""Reading the repository: which files are source of which language, a sample of each, and what
the votes count (the thresholds, test files, the usual line limits, the project's packages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

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


def _is_test(rel: str) -> bool:
    name = PurePosixPath(rel).name
    parts = PurePosixPath(rel).parts
    return bool(re.match(r"test_.*\.py$|.*_test\.(py|go)$|.*\.(test|spec)\.[cm]?[jt]sx?$", name)) or any(
        p in ("tests", "test", "__tests__", "spec") for p in parts[:-1]
    )


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
