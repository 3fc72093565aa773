"""Parsed commits into the graph: each commit's nodes, edges and detail rows on a writer, and
the PR links of branch commits (the PR that merged them), found by walking back from each merge
to the main line.
"""

from __future__ import annotations

from lore.history.ingest.gitlog import GitCommit
from lore.history.ingest.identity import is_bot, person_key, pr_from_subject
from lore.history.ingest.writer import GraphWriter
from lore.history.store import HistoryStore


def first_parents(commits: dict[str, tuple[tuple[str, ...], float]], head: str | None) -> set[str]:
    """The shas of `head`'s first-parent line among `commits` (sha -> (parents, time)), as
    `git rev-list --first-parent` lists them when every ancestor is there: it stops where a
    parent is missing (a shallow clone's cut)."""
    line: set[str] = set()
    sha = head
    while sha is not None and sha in commits and sha not in line:
        line.add(sha)
        parents = commits[sha][0]
        sha = parents[0] if parents else None
    return line


class CommitRows:
    """Turns parsed commits into nodes, edges and detail rows on a writer."""

    def __init__(self, writer: GraphWriter, repo_id: int, boundary: set[str] | frozenset[str] = frozenset()):
        self.w = writer
        self.repo_id = repo_id
        self.boundary = boundary  # a shallow clone's cut: git shows the whole tree as added there
        self.people_seen: set[int] = set()
        self.authors: dict[tuple[str, str], tuple[str, str | None, bool]] = {}

    def add(self, c: GitCommit) -> None:
        w, at = self.w, c.committed_at
        node, edges = w.node, w.edge_list().append  # bound once: this runs for every commit
        who = (c.author_name, c.author_email)
        known = self.authors.get(who)
        if known is None:
            key, login = person_key(c.author_email)
            known = self.authors[who] = (key, login, is_bot(*who))
        key, login, bot = known
        pid = node("person", key, c.author_name, at)
        if pid not in self.people_seen:
            self.people_seen.add(pid)
            w.rows("people", (pid, self.repo_id, c.author_name, c.author_email, login, int(bot)))
        subject = c.subject
        cid = node("commit", c.sha, subject[:200], at)
        edges((pid, cid, "AUTHORED", at))
        for parent in c.parents:
            edges((cid, node("commit", parent), "PARENT", at))
        pr = pr_from_subject(subject) if "#" in subject else None
        if pr is not None:
            edges((cid, node("pr", str(pr), f"PR #{pr}", at), "PART_OF", at))
        added = removed = 0
        cut = c.sha in self.boundary
        if not cut and c.changes:
            changes = w.row_list("changes").append
            for ch in c.changes:
                path = ch.path
                fid = node("file", path, path, at)
                edges((cid, fid, "MODIFIED", at))
                changes((cid, fid, ch.status, ch.old_path, ch.added, ch.removed, at))
                if ch.status == "R" and ch.old_path:
                    edges((fid, node("file", ch.old_path, ch.old_path), "RENAMED_FROM", at))
                added += ch.added
                removed += ch.removed
        w.rows(
            "commits",
            (
                cid,
                self.repo_id,
                c.sha,
                " ".join(c.parents),
                c.author_name,
                c.author_email,
                c.authored_at,
                c.committer_name,
                c.committer_email,
                at,
                subject,
                c.message,
                int(bot),
                0 if cut else len(c.changes),
                added,
                removed,
                pr,
                "git",
                int(cut),
                int(c.lossy),
            ),
        )


def link_prs(
    w: GraphWriter,
    db: HistoryStore,
    repo_id: int,
    pull_heads: dict[str, int],
    mainline: set[str] | None,
    head: str | None = None,
) -> None:
    """Give branch commits the PR that merged them (merge commits, `refs/pull/N/head`).

    Walks back from a merge's second parent (or a PR head) until reaching the first-parent
    line of HEAD (`mainline`, or when None the first parents of `head` among the stored commits,
    which hold all its ancestors) or a commit already claimed by another PR; each commit is
    claimed once. Every
    merge stored so far is considered, oldest first, not only the ones this run read: a run
    killed before this step leaves its merges to the next one, which must link them exactly as
    an uninterrupted run would. Links already stored are not written again. The main line
    comes from git, not from the commits stored, so a windowed run (which stores only part of
    it) cannot mistake main-line commits for branch commits.
    """
    commits = db.commit_parents(repo_id)
    if mainline is None:
        mainline = first_parents(commits, head)
    named = db.commit_prs(repo_id)  # sha -> PR named in the subject
    linked = db.part_of_links(repo_id)
    claimed = set(named)
    merges = sorted((at, sha) for sha, (parents, at) in commits.items() if len(parents) > 1 and sha in named)
    starts = [(named[sha], list(commits[sha][0][1:])) for _at, sha in merges]
    starts += [(pr, [sha]) for sha, pr in sorted(pull_heads.items(), key=lambda x: x[1])]
    for pr, first in starts:
        pr_id = None
        stack = [(sha, True) for sha in first]
        while stack:
            sha, is_start = stack.pop()
            if sha in claimed or sha not in commits or (sha in mainline and not is_start):
                continue
            claimed.add(sha)
            parents, at = commits[sha]
            if pr_id is None:
                pr_id = w.node("pr", str(pr), f"PR #{pr}")
            cid = w.ids.get(("commit", sha))
            if cid is not None and (cid, pr_id) not in linked:
                w.edge(cid, pr_id, "PART_OF", at)
            if sha not in mainline:
                stack.extend((p, False) for p in parents)
