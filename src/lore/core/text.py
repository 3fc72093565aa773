"""The text pipeline shared by every keyword search in Lore.

Both sides of a match (a rule and a task, a passage and a question) go through the same steps:
lower-casing and identifier splitting, filler words dropped, file extensions glued to a name
ignored (a bare `.py` still means Python), aliases, a rough stem, and topic words that let
words of one area (a "column" and a "migration") meet.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from lore.core.config import TokenizerExtensions

EXTENSIONS = (
    "py pyi js mjs cjs ts tsx jsx go rs java kt kts rb php cs cpp cc c h hpp m swift scala "
    "md mdx mdc json yaml yml toml ini cfg sql html htm css scss sass less sh bash zsh ps1 "
    "vue svelte ex exs erl hs lua dart r jl tf proto graphql gql xml txt lock"
).split()
_EXT = "|".join(sorted(EXTENSIONS, key=len, reverse=True))
_GLUED_EXT = re.compile(rf"(?<=[A-Za-z0-9_\-])\.(?:{_EXT})\b", re.I)
_BARE_EXT = re.compile(rf"(?<![A-Za-z0-9_])\*?\.({_EXT})\b", re.I)
_PIECES = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOPWORDS = frozenset(
    """
    a an the and or but nor of to in on at by for from with without into onto over under as is
    are was were be been being am it its this that these those there here than then so such very
    use uses used using add adds added adding file files make makes made new code please
    we you i our your my me us they them their he she his her can could will would shall should
    must may might do does did done doing have has had having get gets got also just only any all
    each every some no not never always when where which who whom what why how if else about
    via per etc e g eg ie way thing things like want need needs one two
    """.split()
)

ALIASES = {
    "py": "python",
    "js": "javascript",
    "ts": "typescript",
    "tsx": "typescript",
    "jsx": "javascript",
    "db": "database",
    "dbs": "database",
    "repo": "repository",
    "repos": "repository",
    "spec": "test",
    "specs": "test",
    "tests": "test",
    "testing": "test",
    "env": "environment",
    "deps": "dependency",
    "dep": "dependency",
    "pkg": "package",
    "k8s": "kubernetes",
    "msg": "message",
    "err": "error",
    "errs": "error",
    "auth": "authentication",
    "config": "configuration",
    "cfg": "configuration",
    "docs": "documentation",
    "doc": "documentation",
    "impl": "implementation",
    "fn": "function",
    "func": "function",
    "args": "argument",
    "arg": "argument",
    "param": "parameter",
    "params": "parameter",
    "perf": "performance",
    "sec": "security",
    "pr": "pull",
    "prs": "pull",
    "yml": "yaml",
    "rb": "ruby",
    "rs": "rust",
    "md": "markdown",
    "css": "css",
    "sql": "sql",
}

TOPICS: dict[str, tuple[str, ...]] = {
    "data": (
        "database",
        "sql",
        "query",
        "table",
        "column",
        "migration",
        "schema",
        "index",
        "orm",
        "record",
        "row",
        "transaction",
        "postgres",
        "postgresql",
        "mysql",
        "sqlite",
        "mongo",
        "mongodb",
        "redis",
        "repository",
        "entity",
        "prisma",
        "sqlalchemy",
        "foreign",
        "join",
    ),
    "http": (
        "http",
        "https",
        "api",
        "endpoint",
        "request",
        "response",
        "route",
        "router",
        "rest",
        "graphql",
        "url",
        "client",
        "server",
        "header",
        "timeout",
        "fetch",
        "axios",
        "webhook",
        "cors",
        "pagination",
        "status",
        "middleware",
        "grpc",
    ),
    "test": (
        "test",
        "unit",
        "integration",
        "mock",
        "fixture",
        "assert",
        "coverage",
        "pytest",
        "jest",
        "vitest",
        "e2e",
        "snapshot",
        "tdd",
        "stub",
        "playwright",
        "cypress",
    ),
    "log": (
        "log",
        "logging",
        "logger",
        "trace",
        "tracing",
        "metric",
        "observability",
        "monitor",
        "telemetry",
        "debug",
        "print",
        "console",
        "audit",
    ),
    "error": (
        "error",
        "exception",
        "raise",
        "throw",
        "catch",
        "retry",
        "fail",
        "failure",
        "panic",
        "crash",
        "fallback",
        "recover",
        "handler",
    ),
    "ui": (
        "ui",
        "component",
        "react",
        "vue",
        "svelte",
        "angular",
        "layout",
        "button",
        "form",
        "page",
        "view",
        "render",
        "frontend",
        "html",
        "accessibility",
        "a11y",
        "tailwind",
        "modal",
        "widget",
        "screen",
        "css",
        "hook",
        "jsx",
    ),
    "types": (
        "type",
        "typing",
        "typescript",
        "interface",
        "generic",
        "annotation",
        "hint",
        "mypy",
        "null",
        "enum",
        "cast",
        "typed",
        "pyright",
        "struct",
    ),
    "naming": (
        "name",
        "naming",
        "rename",
        "variable",
        "camelcase",
        "snake",
        "pascalcase",
        "prefix",
        "suffix",
        "identifier",
        "kebab",
    ),
    "security": (
        "security",
        "secret",
        "password",
        "token",
        "credential",
        "authentication",
        "authorization",
        "permission",
        "encrypt",
        "encryption",
        "xss",
        "csrf",
        "injection",
        "sanitize",
        "vulnerability",
        "oauth",
        "jwt",
        "key",
        "cve",
    ),
    "config": (
        "configuration",
        "setting",
        "environment",
        "option",
        "flag",
        "yaml",
        "toml",
        "dotenv",
        "feature",
    ),
    "dependency": (
        "dependency",
        "package",
        "library",
        "import",
        "version",
        "npm",
        "pip",
        "yarn",
        "pnpm",
        "install",
        "upgrade",
        "lockfile",
        "module",
        "vendor",
        "poetry",
        "cargo",
    ),
    "docs": (
        "documentation",
        "docstring",
        "comment",
        "readme",
        "changelog",
        "jsdoc",
        "markdown",
        "guide",
        "explain",
        "describe",
    ),
    "validate": (
        "validate",
        "validation",
        "check",
        "verify",
        "sanitize",
        "input",
        "constraint",
        "zod",
        "pydantic",
        "schema",
        "parse",
    ),
    "style": (
        "style",
        "format",
        "formatting",
        "formatter",
        "indent",
        "indentation",
        "tab",
        "space",
        "quote",
        "semicolon",
        "lint",
        "linter",
        "prettier",
        "black",
        "ruff",
        "eslint",
        "line",
        "length",
        "whitespace",
        "brace",
        "width",
    ),
    "git": (
        "git",
        "commit",
        "branch",
        "merge",
        "rebase",
        "pull",
        "push",
        "review",
        "tag",
        "release",
        "changelog",
    ),
}

_SUFFIXES = (
    ("izations", "iz"),
    ("ization", "iz"),
    ("isations", "is"),
    ("isation", "is"),
    ("ations", "at"),
    ("ation", "at"),
    ("ements", ""),
    ("ement", ""),
    ("ings", ""),
    ("ing", ""),
    ("ions", ""),
    ("ion", ""),
    ("ities", ""),
    ("ity", ""),
    ("ness", ""),
    ("ers", ""),
    ("er", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
    ("e", ""),
)
TOPIC_PREFIX = "#"


def stem(word: str) -> str:
    """A rough stem: validate/validation/validating meet, sanitize meets sanitization."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: len(word) - len(suffix)] + replacement
    return word


def split_words(text: str) -> list[str]:
    """Lower-cased words with identifiers split and glued file extensions removed."""
    text = _GLUED_EXT.sub(" ", text)
    text = _BARE_EXT.sub(r" \1 ", text)
    words: list[str] = []
    for piece in _PIECES.findall(text):
        words.extend(part.lower() for part in _CAMEL.findall(piece))
    return words


@dataclass(frozen=True)
class Tokenizer:
    """The pipeline with its vocabularies, built once per settings."""

    aliases: dict[str, str] = field(default_factory=lambda: dict(ALIASES))
    stopwords: frozenset[str] = STOPWORDS
    topic_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fingerprint: str = ""

    def tokens(self, text: str, topics: bool = True) -> list[str]:
        """Terms for BM25: stems, plus one `#topic` term per topic a word belongs to."""
        out: list[str] = []
        for word in split_words(text):
            if word in self.stopwords:
                continue
            word = self.aliases.get(word, word)
            if word in self.stopwords:
                continue
            term = stem(word)
            out.append(term)
            if topics:
                out.extend(TOPIC_PREFIX + t for t in self.topic_of.get(term, ()))
        return out


def build_tokenizer(ext: TokenizerExtensions | None = None) -> Tokenizer:
    ext = ext or TokenizerExtensions()
    return _build(
        json.dumps(
            [ext.aliases, {k: list(v) for k, v in ext.topics.items()}, list(ext.stopwords)], sort_keys=True
        )
    )


@lru_cache(maxsize=8)
def _build(spec: str) -> Tokenizer:
    aliases_ext, topics_ext, stop_ext = json.loads(spec)
    aliases = {**ALIASES, **aliases_ext}
    stopwords = STOPWORDS | frozenset(stop_ext)
    topics: dict[str, set[str]] = {k: set(v) for k, v in TOPICS.items()}
    for name, words in topics_ext.items():
        topics.setdefault(name, set()).update(w.lower() for w in words)
    topic_of: dict[str, set[str]] = {}
    for name, words in topics.items():
        for word in words:
            term = stem(aliases.get(word.lower(), word.lower()))
            topic_of.setdefault(term, set()).add(name)
    fingerprint = hashlib.sha1(spec.encode()).hexdigest()[:12]
    return Tokenizer(
        aliases=aliases,
        stopwords=stopwords,
        topic_of={k: tuple(sorted(v)) for k, v in topic_of.items()},
        fingerprint=fingerprint,
    )


def estimate_tokens(text: str) -> int:
    """Model tokens, estimated as characters / 4 (rounded up)."""
    return (len(text) + 3) // 4
