"""The layer-1 rows `lore history eval` drafts its questions from: merged PRs with their commits,
PRs that closed an issue with the files they changed, issues, and the changes of the busiest
files. Apart from the index, so a question never loads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.core.store.base import Store


@dataclass(frozen=True)
class PrRow:
    number: int
    title: str
    merged_at: float
    shas: tuple[str, ...]


@dataclass(frozen=True)
class ClosingRow:
    """A PR that closed an issue, with the files it changed."""

    pr: int
    pr_title: str
    issue: int
    files: tuple[str, ...]


@dataclass(frozen=True)
class IssueRow:
    number: int
    title: str
    created_at: float | None


@dataclass(frozen=True)
class FileChange:
    path: str
    sha: str
    subject: str
    at: float


class EvalRows:
    """The layer-1 rows `lore history eval` drafts questions from."""

    def __init__(self, store: Store):
        self.store = store

    def merged_prs(self, repo_id: int) -> list[PrRow]:
        conn = self.store.connect()
        concat = "group_concat(c.sha)" if self.store.dialect == "sqlite" else "string_agg(c.sha, ',')"
        rows = conn.execute(
            f"SELECT i.number, i.title, i.merged_at, {concat} FROM history_items i"
            " JOIN history_commits c ON c.repo_id = i.repo_id AND c.pr_number = i.number"
            " WHERE i.repo_id = ? AND i.kind = 'pr' AND i.merged_at IS NOT NULL AND i.title != ''"
            " GROUP BY i.node_id ORDER BY i.number",
            (repo_id,),
        )
        return [PrRow(n, t, at, tuple(sorted(shas.split(",")))) for n, t, at, shas in rows]

    def closings(self, repo_id: int) -> list[ClosingRow]:
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT p.id, p.key, COALESCE(pi.title, ''), i.key FROM history_edges e"
            " JOIN history_nodes p ON p.id = e.src JOIN history_nodes i ON i.id = e.dst"
            " JOIN history_items pi ON pi.node_id = p.id JOIN history_items ii ON ii.node_id = i.id"
            " WHERE e.rel = 'CLOSES' AND p.kind = 'pr' AND i.kind = 'issue' AND p.repo_id = ?"
            " ORDER BY CAST(p.key AS INTEGER)",
            (repo_id,),
        ).fetchall()
        out = []
        for pid, pr, title, issue in rows:
            files = conn.execute(
                "SELECT f.key FROM history_edges e JOIN history_nodes f ON f.id = e.dst"
                " WHERE e.src = ? AND e.rel = 'MODIFIED' AND f.kind = 'file' ORDER BY f.key",
                (pid,),
            ).fetchall()
            out.append(ClosingRow(int(pr), title, int(issue), tuple(f[0] for f in files)))
        return out

    def issues(self, repo_id: int) -> list[IssueRow]:
        rows = self.store.connect().execute(
            "SELECT number, title, created_at FROM history_items WHERE repo_id = ? AND kind = 'issue'"
            " ORDER BY created_at, number",
            (repo_id,),
        )
        return [IssueRow(*r) for r in rows]

    def file_changes(self, repo_id: int, limit_files: int) -> list[FileChange]:
        """Every non-bot commit of the `limit_files` most changed files, oldest first."""
        rows = self.store.connect().execute(
            "WITH busy AS (SELECT ch.file_id FROM history_changes ch JOIN history_nodes f ON f.id = ch.file_id"
            " WHERE f.repo_id = ? GROUP BY ch.file_id ORDER BY COUNT(*) DESC, ch.file_id LIMIT ?)"
            " SELECT f.key, c.sha, c.subject, c.authored_at FROM busy b"
            " JOIN history_changes ch ON ch.file_id = b.file_id JOIN history_nodes f ON f.id = b.file_id"
            " JOIN history_commits c ON c.node_id = ch.commit_id WHERE c.is_bot = 0"
            " ORDER BY f.key, c.authored_at, c.sha",
            (repo_id, limit_files),
        )
        return [FileChange(*r) for r in rows]
