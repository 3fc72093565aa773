"""Identifiers through the pickaxe: which commit brought in each name a question may use.

A question that names an identifier (`frobnicate_widget`, `HTTPException`, `click.echo`,
`--no-color`) asks about the change that introduced it, and that change's message often does not
say the name: "Rework the drawing loop" adds `frobnicate_widget`. `git log -S NAME` would find
it, one name and one walk of the history at a time; here the ingest reads the added lines of
every diff once (`scan`: one streamed `git log -p`), notes for each identifier the commit that
first added it, the one that added it most, and every commit that added or removed a line naming
it, and stores them (`symbols_store`), so a question reads a few rows
(`pickaxe.symbol_provider`). A change made inside a definition touches the name it defines too,
read from the hunk's header (the `def`, `class` or `function` line git shows above it): the
commit that added a branch to `is_body_allowed_for_status_code` may not name the function on
any line it wrote, yet it changed what the function does.

What counts as an identifier is its form, the same in a diff and in a question: snake_case
(an inner underscore), CamelCase (a lower letter before a capital, or a capital run before a
lower letter), dotted names (`a.b`, not `self.x`), and option flags (`--foo-bar`). A plain word
(`anyio`) is left to the keyword arm, which already counts it. Prose and data files (Markdown,
reStructuredText, text, HTML, SVG, JSON, lock files) are not read: they are most of a documented
project's diff and name what the code added first. Lines longer than `LONGEST` (minified or
generated text) are skipped. git runs through `core.git`, so no hook, external diff or textconv
filter a repository names can run.
"""

from __future__ import annotations

import io
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lore.core import git
from lore.core.errors import InvalidInput
from lore.history.repos import Repo
from lore.history.why.store import open_why
from lore.history.why.symbols_store import SymbolRow, SymbolStore

LONGEST = 400  # bytes of an added line read; longer ones are minified or generated
SKIPPED = ("md", "rst", "txt", "html", "svg", "json", "lock", "po", "csv", "min.js", "min.css")
_CHUNK = 1 << 16

# a token of a diff or a question: an option flag, or a word or a dotted chain of words
_TOKEN = r"--[a-z][a-z0-9-]*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_TOKEN_B = re.compile(_TOKEN.encode())
_TOKEN_S = re.compile(_TOKEN)
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")  # a lower letter before a capital, or HTTPEx
_ADDED = re.compile(rb"^\+(?!\+\+ )(.{1,%d})$" % LONGEST, re.M)
_REMOVED = re.compile(rb"^-(?!-- )(.{1,%d})$" % LONGEST, re.M)
# a hunk's header: the line git shows above it, the enclosing definition the change was made in
_HUNK = re.compile(rb"^@@ [^@\n]* @@ ?(.{1,%d})$" % LONGEST, re.M)
_DEFINED = re.compile(
    rb"\b(?:def|class|function|func|fn|sub|module|interface|struct|trait)\s+([A-Za-z_][A-Za-z0-9_]*)"
)
_LONGEST_NAME = 100
_OWN = ("self", "cls")  # a chain from these names an attribute, not a module's name


def _shaped(word: str) -> bool:
    """Whether a word is an identifier by its form: snake_case or CamelCase."""
    return "_" in word.strip("_") or _CAMEL.search(word) is not None


def names_of(token: str) -> list[str]:
    """The identifiers a token (`_TOKEN`) stands for, lowercased: a flag; a dotted chain (unless
    it starts at self or cls) and each of its words shaped like an identifier; a word so shaped."""
    if token.startswith("--"):
        return [token] if len(token) > 3 else []
    if "." not in token:
        return [token.lower()] if _shaped(token) else []
    words = token.split(".")
    out = [] if words[0] in _OWN else [token.lower()]
    out += [w.lower() for w in words if _shaped(w)]
    return out


def named_in(question: str) -> list[str]:
    """The identifiers a question names, lowercased, in order, each once."""
    return list(dict.fromkeys(name for token in _TOKEN_S.findall(question) for name in names_of(token)))


def log_arguments(revs: Sequence[str]) -> list[str]:
    """The `git log` that shows each commit's added lines, oldest first (after `git`)."""
    return [
        "log",
        "-p",
        "-U0",
        "-M",
        "--reverse",
        "--topo-order",
        "--no-color",
        "--format=%x1e%H",
        *revs,
        "--",
        ".",
        *(f":(exclude)*.{ext}" for ext in SKIPPED),
    ]


def _records(root: Path, revs: Sequence[str]) -> Iterator[bytes]:
    """Each commit's record of the log (its sha, a newline, its diff), as git writes them."""
    with tempfile.TemporaryFile() as errors:
        proc = git.stream(log_arguments(revs), root, errors)
        out = proc.stdout
        assert isinstance(out, io.BufferedReader)
        rest = b""
        try:
            while data := out.read1(_CHUNK):
                parts = (rest + data).split(b"\x1e")
                rest = parts.pop()
                yield from (p for p in parts if p)
            if rest:
                yield rest
        finally:
            out.close()
            code = proc.wait()
            errors.seek(0)
            err = errors.read().decode("utf-8", "replace").strip()
    if code != 0:
        raise InvalidInput(f"git log -p failed in {root}: {err.splitlines()[-1] if err else code}")


@dataclass
class Scan:
    """What a scan of diffs found: each identifier's row, and every (identifier, commit) pair
    where the commit added or removed a line naming it (what `git log -S` would list)."""

    rows: list[SymbolRow]
    touches: list[tuple[str, str]]


def _names(lines: list[bytes]) -> Counter[str]:
    """The identifiers these lines name, with how often."""
    names: Counter[str] = Counter()
    for token, n in Counter(_TOKEN_B.findall(b"\n".join(lines))).items():
        for name in names_of(token.decode("ascii")):
            names[name] += n
    return names


def count(records: Iterable[bytes], skip: frozenset[str] = frozenset()) -> Scan:
    """The identifiers the records' added lines hold, each with the first commit that added it,
    the commit that added it most (the earliest among equals) and how many commits added it;
    and which commits added or removed a line naming each, or changed lines inside the
    definition of each (a hunk's header names it)."""
    seen: dict[str, list] = {}  # name -> [first sha, most sha, most count, commits]
    touches: list[tuple[str, str]] = []
    for record in records:
        sha, _, diff = record.partition(b"\n")
        commit = sha.strip().decode("ascii", "replace")
        if commit in skip:
            continue
        added = _names(_ADDED.findall(diff))
        removed = _names(_REMOVED.findall(diff))
        inside = _names(_DEFINED.findall(b"\n".join(_HUNK.findall(diff))))
        changed = added.keys() | removed.keys() | inside.keys()
        touches.extend((name, commit) for name in changed if len(name) <= _LONGEST_NAME)
        for token, n in added.items():
            row = seen.get(token)
            if row is None:
                seen[token] = [commit, commit, n, 1]
                continue
            row[3] += 1
            if n > row[2]:
                row[1], row[2] = commit, n
    rows = [
        SymbolRow(token, first, most, n, commits)
        for token, (first, most, n, commits) in seen.items()
        if len(token) <= _LONGEST_NAME
    ]
    return Scan(rows, touches)


def scan(root: Path, revs: Sequence[str], skip: frozenset[str] = frozenset()) -> Scan:
    """The identifiers added and removed by the commits of `revs` (a `git log` range), oldest first."""
    return count(_records(root, revs), skip)


def _continues(root: Path, scanned: str, head: str) -> bool:
    """Whether the commit the last scan ended at is still an ancestor of HEAD (the history was
    not rewritten), so only the commits after it need reading."""
    return git.run(["merge-base", "--is-ancestor", scanned, head], root).ok


def update_symbols(
    repo: Repo, root: Path, head: str, boundary: Iterable[str] = (), rebuild: bool = False
) -> int:
    """Bring the repository's identifier index up to `head`; returns how many identifiers the
    scan read. Only commits after the last scan are read, unless the history was rewritten or
    `rebuild` asks for all. `boundary` commits (where a shallow clone cuts the history, which
    git shows as adding every file) are not counted."""
    symbols = SymbolStore(open_why().store)
    scanned = None if rebuild else symbols.scanned(repo.id)
    if scanned == head:
        return 0
    fresh = scanned is None or not _continues(root, scanned, head)
    revs = [head] if fresh else [head, f"^{scanned}"]
    found = scan(root, revs, frozenset(boundary))
    symbols.write(repo.id, found.rows, found.touches, head, fresh=fresh)
    return len(found.rows)
