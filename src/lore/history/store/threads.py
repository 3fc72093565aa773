"""PRs, issues and their comments: the threads a GitHub ingest stores and the reads of them.

A PR or issue is a node of the graph and a row of `history_items`; its comments are rows of
`history_comments`, kept apart from the graph since nothing walks through a comment. Review
comments are what the rules domain learns from (through `lore.history.reviews`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lore.core.store.binding import in_marks
from lore.history.store.base import HistoryTables
from lore.history.store.records import ItemDetail, MergedPr, ReviewComment


class Threads(HistoryTables):
    """PRs, issues and comments: their upserts and the reads of them."""

    def upsert_items(self, rows: Sequence[dict[str, Any]]) -> None:
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO history_items (node_id, repo_id, number, kind, title, body, state, author,"
            " author_association, is_bot, created_at, updated_at, closed_at, merged_at,"
            " merge_commit_sha, url) VALUES (:node_id, :repo_id, :number, :kind, :title, :body,"
            " :state, :author, :author_association, :is_bot, :created_at, :updated_at, :closed_at,"
            " :merged_at, :merge_commit_sha, :url)"
            " ON CONFLICT (repo_id, number) DO UPDATE SET kind = excluded.kind,"
            " title = excluded.title, body = excluded.body, state = excluded.state,"
            " author = excluded.author, author_association = excluded.author_association,"
            " is_bot = excluded.is_bot, created_at = excluded.created_at,"
            " updated_at = excluded.updated_at, closed_at = excluded.closed_at,"
            " merged_at = COALESCE(excluded.merged_at, history_items.merged_at),"
            " merge_commit_sha = COALESCE(excluded.merge_commit_sha, history_items.merge_commit_sha),"
            " url = excluded.url",
            rows,
        )

    def upsert_comments(self, rows: Sequence[dict[str, Any]]) -> None:
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO history_comments (id, kind, repo_id, item_id, author, author_association,"
            " is_bot, body, path, line, diff_hunk, commit_sha, in_reply_to, created_at, updated_at,"
            " url) VALUES (:id, :kind, :repo_id, :item_id, :author, :author_association, :is_bot,"
            " :body, :path, :line, :diff_hunk, :commit_sha, :in_reply_to, :created_at, :updated_at,"
            " :url) ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body,"
            " author_association = excluded.author_association, updated_at = excluded.updated_at",
            rows,
        )

    def item_nodes(self, repo_id: int) -> dict[int, tuple[int, str]]:
        """number -> (node id, kind) for PR and issue nodes, whether fetched or only referenced."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT key, id, kind FROM history_nodes WHERE repo_id = ? AND kind IN ('pr', 'issue')",
            (repo_id,),
        )
        return {int(key): (nid, kind) for key, nid, kind in rows}

    def merged_prs(self, repo_id: int) -> list[MergedPr]:
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT node_id, number, title, body, created_at, merged_at FROM history_items"
            " WHERE repo_id = ? AND kind = 'pr' AND merged_at IS NOT NULL ORDER BY number",
            (repo_id,),
        )
        return [MergedPr(*r) for r in rows]

    def issue_close_times(self, repo_id: int) -> dict[int, tuple[int, float | None]]:
        """number -> (node id, closed at) for fetched issues (not PRs)."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT number, node_id, closed_at FROM history_items WHERE repo_id = ? AND kind = 'issue'",
            (repo_id,),
        )
        return {number: (nid, closed) for number, nid, closed in rows}

    def item_details(self, ids: Sequence[int]) -> dict[int, ItemDetail]:
        if not ids:
            return {}
        conn = self.store.connect()
        rows = conn.execute(
            f"SELECT node_id, number, kind, title, state, author, created_at, closed_at, merged_at"
            f" FROM history_items WHERE node_id IN ({in_marks(ids)})",
            list(ids),
        )
        return {r[0]: ItemDetail(*r) for r in rows}

    def linked_items(self, commit_id: int) -> list[tuple[int, str, str, int]]:
        """(node, kind, key, depth) of the PR a commit belongs to and the issues that PR (or the
        commit) closes: the path from a line's commit to the question it answered."""
        conn = self.store.connect()
        rows = conn.execute(
            "WITH pr AS (SELECT e.dst AS id FROM history_edges e WHERE e.src = :commit AND e.rel = 'PART_OF')"
            " SELECT n.id, n.kind, n.key, 1 FROM pr JOIN history_nodes n ON n.id = pr.id"
            " UNION SELECT n.id, n.kind, n.key, 2 FROM history_edges e JOIN history_nodes n ON n.id = e.dst"
            " WHERE e.rel = 'CLOSES' AND (e.src IN (SELECT id FROM pr) OR e.src = :commit)"
            " ORDER BY 4, 2, 3",
            {"commit": commit_id},
        )
        return [tuple(r) for r in rows]

    def review_comments(
        self, repo_id: int, repo_name: str, since: float | None, limit: int | None
    ) -> list[ReviewComment]:
        """Review comments oldest first, each with its PR; `repo_name` names them for the reader."""
        rows = self.store.connect().execute(
            "SELECT c.*, i.number AS pr_number, i.title AS pr_title FROM history_comments c"
            " JOIN history_items i ON i.node_id = c.item_id"
            " WHERE c.repo_id = ? AND c.kind = 'review_comment' AND COALESCE(c.created_at, 0) >= ?"
            " ORDER BY c.created_at, c.id" + ("" if limit is None else " LIMIT ?"),
            (repo_id, since or 0) + (() if limit is None else (limit,)),
        )
        return [
            ReviewComment(
                id=row["id"],
                repo=repo_name,
                pr_number=row["pr_number"],
                pr_title=row["pr_title"],
                author=row["author"],
                author_association=row["author_association"],
                is_bot=bool(row["is_bot"]),
                body=row["body"],
                path=row["path"],
                line=row["line"],
                diff_hunk=row["diff_hunk"],
                in_reply_to=row["in_reply_to"],
                created_at=row["created_at"],
                url=row["url"],
            )
            for row in rows
        ]
