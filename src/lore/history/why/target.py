"""What a `why` is asked about: a question, a PATH or a PATH:LINE, read into the query every
evidence provider receives (the files, PRs, issues and commits it names, the blamed commit of a
line). It reads layer 1 to resolve names and git to blame a line, and ranks nothing."""

from __future__ import annotations

import re

from lore.core.errors import InvalidInput, NotFound
from lore.history import queries
from lore.history import store as layer1
from lore.history.repos import Repo
from lore.history.store.records import Node
from lore.history.why.blame import blame_line
from lore.history.why.evidence import WhyQuery

_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+)$")
# a path as a question writes it (`src/auth.py`, `cli.py`); its words are the file, not the topic
PATHISH = re.compile(r"[\w.\-]*[/\\][\w.\-/\\]+|[\w\-]+\.[A-Za-z]{1,5}\b")
_NUMBER = re.compile(r"(?:^|\s)#(\d+)\b")
_SHA = re.compile(r"\b[0-9a-f]{7,40}\b")


def topic(q: WhyQuery) -> str:
    """The words of a question the keyword arm ranks by: a question that names a file it found
    leaves the path out (the file's own providers stand for it, and a path's words match every
    commit that mentions it, typo fixes first); a bare path is all its words."""
    if q.mode == "question" and q.files:
        return PATHISH.sub(" ", q.question)
    return q.question


def _try_file(repo: Repo, text: str) -> Node | None:
    try:
        return queries.resolve_file(repo, text)
    except (NotFound, InvalidInput):
        return None


def _named(repo: Repo, question: str) -> tuple[list[int], list[int]]:
    """The files, PRs, issues and commits a question names (what the walk starts from)."""
    db = layer1.open_history()
    files: list[int] = []
    nodes: list[int] = []
    for match in PATHISH.finditer(question):
        # a sentence's full stop goes, a dot file's leading dot stays (`.github/workflows/x.yml`)
        node = _try_file(repo, match.group(0).rstrip(".,;:!?'\"`()").lstrip("'\"`("))
        if node is not None and node.id not in files:
            files.append(node.id)
    numbers = _NUMBER.findall(question)
    named = db.find_nodes(repo.id, ("pr", "issue"), numbers)  # every #N in one read
    for number in numbers:
        for kind in ("pr", "issue"):
            node = named.get((kind, number))
            if node is not None:
                nodes.append(node.id)
    for sha in _SHA.findall(question):
        rows = db.find_commit_by_prefix(repo.id, sha)
        if len(rows) == 1:
            nodes.append(rows[0].id)
    return files, nodes


def build_query(repo: Repo, target: str, as_of: float | None) -> tuple[WhyQuery, str, str | None]:
    """The query for a question, a PATH or a PATH:LINE, its mode, and the blamed sha if any."""
    text = target.strip()
    if not text:
        raise InvalidInput("ask a question, or name a PATH or PATH:LINE")
    line = _LINE.match(text)
    if line and " " not in text:
        node = _try_file(repo, line.group("path"))
        if node is not None:
            if not repo.path:
                raise InvalidInput(f"{repo.name} has no local clone to blame {line.group('path')} in")
            sha = blame_line(repo.path, node.key, int(line.group("line")))
            commit = layer1.open_history().find_node(repo.id, "commit", sha)
            message = commit.label if commit else ""
            blamed = (commit.id,) if commit else ()
            q = WhyQuery(repo, f"{node.key} {message}", (node.id,), blamed, as_of, mode="line")
            return q, "line", sha
    if " " not in text:
        node = _try_file(repo, text)
        if node is not None:
            return WhyQuery(repo, node.key, (node.id,), (), as_of, mode="path"), "path", None
    files, nodes = _named(repo, text)
    return WhyQuery(repo, text, tuple(files), tuple(nodes), as_of), "question", None
