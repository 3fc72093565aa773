"""Which commits change no behaviour: typo and formatting fixes, version bumps and releases,
translations, merges of a branch. A why question asks for the change that made the code what
it is; these touch the same files and words (a typo fix names the path, a release lists every
change) and would push the answer down, so the ranking weighs them less (`weight`).

A commit is judged by its subject alone, by the words a project writes for such work (and the
gitmoji some projects use for them); when the question itself asks about that kind of work
("why was the version bumped?"), nothing is weighed down.
"""

from __future__ import annotations

import re

from lore.core.text import split_words, stem

# (what kind of work, words in a subject that say so); whole words, any case
_KINDS: dict[str, str] = {
    "typo": r"typos?|spelling|misspell\w*|grammar|punctuation|✏️?",
    "format": (
        r"formatting|reformat\w*|format (?:the )?(?:code|files|with)|(?:run|apply|with) black|isort|"
        r"prettier|flake8|lint(?:ing)?|whitespace|pre-commit|pyupgrade|reorder-python-imports|"
        r"(?:relative|sort|sorted) imports|ruff|f-strings?|line-too-long|🎨"
    ),
    "typing": (
        r"typing|type (?:annotations?|hints?|checking|checker|stubs?)|annotations|mypy|pyright|"
        r"static typing"
    ),
    "release": r"changelog|release notes|bump(?:ed)? (?:the )?version|🔖",
    "translation": r"translat\w*|🌐",
    "merge": r"merge (?:pull request|branch|remote-tracking branch)",
}
_PATTERNS = {kind: re.compile(rf"(?<![\w-])(?:{words})(?![\w-])", re.I) for kind, words in _KINDS.items()}
# a subject that is only a release: "Release 8.1.0", "version 2.0", "prepare 1.2", "1.2.3"
_FORMAT = re.compile(r"^\W*format\b(?! option| string)", re.I)
_RELEASE = re.compile(
    r"^\W*(?:(?:release|version|prepare|start version|v)\s*)?\d+(?:\.\w+)+\W*$|^\W*release\b", re.I
)
# how much of its score a commit of each kind keeps; a merge repeats the commits it brings in
WEIGHTS = {"typo": 0.25, "typing": 0.5, "format": 0.25, "release": 0.25, "translation": 0.25, "merge": 0.6}
# the stems by which a question asks about that kind of work itself
_ASKED = {
    "typo": {"typo", "spell", "grammar"},
    "format": {"format", "reformat", "lint", "black", "isort", "whitespace", "ruff", "flake8", "prettier"},
    "typing": {"typing", "annotat", "hint", "mypy", "pyright"},  # not "typed": what a user types
    "release": {"releas", "release", "bump", "version", "changelog"},
    "translation": {"translat", "translation", "language"},
    "merge": {"merg", "merge"},
}


def kind(subject: str) -> str | None:
    """The kind of behaviour-free work a commit subject says it is, or None."""
    if _RELEASE.search(subject):
        return "release"
    if _FORMAT.search(subject):
        return "format"
    for name, pattern in _PATTERNS.items():
        if pattern.search(subject):
            return name
    return None


def asked(question: str) -> set[str]:
    """The kinds of work the question asks about by name (those are not weighed down)."""
    words = split_words(question)
    stems = {stem(w) for w in words} | set(words)
    return {name for name, asked_by in _ASKED.items() if stems & asked_by}


def weight(subject: str, spared: set[str]) -> float:
    """What part of its score a commit with this subject keeps for a why question (1.0 unless
    it is a kind of work in `WEIGHTS` that the question does not ask about)."""
    found = kind(subject)
    if found is None or found in spared:
        return 1.0
    return WEIGHTS[found]
