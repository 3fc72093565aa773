"""Line-level history: who last changed a line and why, and when a string came or went.

`line_history` asks `git blame` for the commit that last changed one line, then the graph for
the PR that commit belongs to and the issues that PR closed: the path from a line of code to the
question it answered. `pickaxe` asks `git log -S` for the commits that changed how often a string
occurs (it appeared or vanished). Both read the clone on disk through `core.git`, so the answers
are git's own; the store adds what git does not know (PRs, issues, whether the commit is stored).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lore.core import git
from lore.core.dates import iso_utc as iso
from lore.core.errors import InvalidInput, NotFound
from lore.history import store as sql
from lore.history.ingest.gitlog import raw_path, stored_path
from lore.history.repos import Repo


def _clone(repo: Repo) -> Path:
    if not repo.path or not Path(repo.path).is_dir():
        raise InvalidInput(f"{repo.name} has no local clone to read lines from (ingest a clone with --clone)")
    return Path(repo.path)


def _commit(repo: Repo, sha: str) -> dict[str, Any]:
    """A commit as stored (subject, body, PR, the issues it closed), or git's bare facts."""
    db = sql.open_history()
    node = db.commits_by_sha(repo.id, [sha]).get(sha)
    out: dict[str, Any] = {"sha": sha, "stored": node is not None}
    if node is None:
        return out
    text = db.commit_texts([node])[node]
    out.update(
        subject=text.subject,
        body=text.body,
        author=text.author_name,
        when=iso(text.authored_at),
        pr=None,
        issues=[],
    )
    for _nid, kind, key, depth in db.linked_items(node):
        if kind == "pr" and depth == 1 and out["pr"] is None:
            out["pr"] = int(key)
        elif kind == "issue":
            out["issues"].append(int(key))
    items = {i.number: i for i in db.item_details([n for n, *_ in db.linked_items(node)]).values()}
    if out["pr"] in items:
        out["pr_title"] = items[out["pr"]].title
    out["issue_titles"] = {n: items[n].title for n in out["issues"] if n in items}
    return out


def line_history(repo: Repo, path: str, line: int, *, rev: str = "HEAD") -> dict[str, Any]:
    """The story of one line: blame it at `rev`, then its commit, the PR, the issues it closed.

    `path` is relative to the repository's top folder; `line` counts from 1. Returns
    `{"path", "line", "text", "commit": {sha, stored, subject, body, author, when, pr, pr_title,
    issues, issue_titles}, "original_path", "original_line"}`; `original_*` say where the line
    was when that commit wrote it (blame follows moves within the file and renames).
    Raises `NotFound` for a path or line git does not have, `InvalidInput` without a clone.
    """
    if line < 1:
        raise InvalidInput("line numbers start at 1")
    root = _clone(repo)
    result = git.run(
        ["blame", "--porcelain", "--no-textconv", "-L", f"{line},{line}", rev, "--", raw_path(path)],
        root,
        timeout=120,
    )
    if not result.ok:
        reason = result.error_line
        if "no such path" in reason or "has only" in reason or "invalid" in reason.lower():
            raise NotFound(f"{path}:{line}: {reason}")
        raise InvalidInput(f"git blame failed for {path}:{line}: {reason}")
    head, *rest = result.text.splitlines()
    sha, original_line = head.split()[0], int(head.split()[1])
    original_path, text = path, ""
    for row in rest:
        if row.startswith("filename "):
            original_path = stored_path(row[len("filename ") :])
        elif row.startswith("\t"):
            text = row[1:]
    return {
        "path": path,
        "line": line,
        "text": text,
        "original_path": original_path,
        "original_line": original_line,
        "commit": _commit(repo, sha),
    }


def pickaxe(repo: Repo, needle: str, *, path: str | None = None, limit: int = 50) -> dict[str, Any]:
    """The commits where `needle` appeared or vanished (`git log -S`, oldest first), each with
    whether it added or removed occurrences and the files where it did.

    A commit counts when a file it changed holds the string a different number of times after
    it than before, with renames followed as `git log` follows them: a file moved without an
    edit changes nothing, so a pure rename is not listed (`git log -S` lists none either).
    """
    if not needle:
        raise InvalidInput("give the string to look for")
    root = _clone(repo)
    args = [
        "log",
        "--reverse",
        "-S",
        needle,
        "-M",
        "--raw",
        "-z",
        "--no-abbrev",
        "--format=%x1e%H",
        "HEAD",
        "--",
    ]
    if path:
        args.append(raw_path(path))
    result = git.run(args, root, timeout=300)
    if not result.ok:
        raise InvalidInput(f"git log -S failed: {result.error_line}")
    found = [_touched(block) for block in result.stdout.split(b"\x1e")[1:]]
    rows = []
    for sha, pairs in found[:limit]:
        counts = sum(
            _occurrences(root, needle, after) - _occurrences(root, needle, before)
            for before, after, _ in pairs
        )
        entry = _commit(repo, sha)
        entry["files"] = [name for _, _, name in pairs]
        entry["change"] = "appeared" if counts > 0 else "vanished" if counts < 0 else "moved"
        rows.append(entry)
    return {"string": needle, "path": path, "total": len(found), "commits": rows}


def _touched(block: bytes) -> tuple[str, list[tuple[str, str, str]]]:
    """One commit of `git log --raw -z`: its sha and, per file pair git matched, the blob
    before, the blob after and the file's name as stored (the new name of a rename)."""
    tokens = block.split(b"\0")
    sha = tokens[0].decode("ascii").strip()
    pairs = []
    at = 1
    while at < len(tokens):
        head = tokens[at].lstrip(b"\n").decode("ascii", "replace")
        at += 1
        if not head.startswith(":"):
            continue
        fields = head.split()
        before, after, status = fields[2], fields[3], fields[4]
        names = 2 if status[:1] in ("R", "C") else 1
        name = (
            tokens[at + names - 1].decode("utf-8", "surrogateescape") if at + names - 1 < len(tokens) else ""
        )
        at += names
        pairs.append((before, after, stored_path(name)))
    return sha, pairs


def _occurrences(root: Path, needle: str, blob: str) -> int:
    """How often `needle` occurs in one blob (none for a file that is absent on that side)."""
    if not blob.strip("0"):
        return 0
    shown = git.run(["cat-file", "blob", blob], root, timeout=60)
    return shown.stdout.count(needle.encode("utf-8", "surrogateescape")) if shown.ok else 0
