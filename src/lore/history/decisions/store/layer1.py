"""The decisions store's read-only views of layer 1: the threads, commits, files and closing links
that extract reads its sources from and judges speakers by.

Layer 1's tables are only read here; layer 1's own store never reads or writes the decision
tables, so the facts stand whatever a model proposed.
"""

from __future__ import annotations

from collections.abc import Iterable

from lore.core.store.binding import in_marks
from lore.history.decisions.store.base import AUTH_SQL, DecisionTables
from lore.history.decisions.store.records import CommitText, Post, Thread, ThreadSummary

_THREADS = f"""
SELECT i.node_id, i.number, i.kind, i.title, i.created_at, i.updated_at,
  (SELECT COUNT(*) FROM history_comments c WHERE c.item_id = i.node_id AND c.is_bot = 0) AS comments,
  (SELECT COUNT(*) FROM history_comments c WHERE c.item_id = i.node_id AND c.is_bot = 0
     AND c.author_association IN {AUTH_SQL})
   + (CASE WHEN i.author_association IN {AUTH_SQL} AND i.is_bot = 0 THEN 1 ELSE 0 END) AS maintainers,
  (SELECT COUNT(*) FROM history_edges e WHERE e.src = i.node_id AND e.rel IN ('CLOSES', 'MENTIONS'))
   + (SELECT COUNT(*) FROM history_edges e{{by_dst}}
      WHERE e.dst = i.node_id AND e.rel IN ('CLOSES', 'MENTIONS')) AS links
FROM history_items i
WHERE i.repo_id = ? AND COALESCE(i.updated_at, i.created_at, 0) >= ?
"""

_COMMITS = f"""
SELECT c.node_id, c.sha, c.author_name, c.author_email, c.committer_email, c.committed_at,
  c.message, length(c.parents) - length(replace(c.parents, ' ', ''))
   + (CASE WHEN c.parents != '' THEN 1 ELSE 0 END) AS parents,
  c.pr_number, c.is_bot,
  EXISTS (SELECT 1 FROM history_items i WHERE i.repo_id = c.repo_id AND i.number = c.pr_number
          AND i.kind = 'pr' AND i.author_association IN {AUTH_SQL}) AS pr_by_member
FROM history_commits c
WHERE c.repo_id = ? AND c.committed_at >= ? AND c.reachable = 1
"""


class LayerOneReads(DecisionTables):
    """Read-only views of layer 1's threads, commits, files and edges."""

    def thread_summaries(self, repo_id: int, since: float | None = None) -> list[ThreadSummary]:
        conn = self.store.connect()
        rows = conn.execute(
            _THREADS.format(by_dst=self._by_dst), (repo_id, since if since is not None else float("-inf"))
        )
        return [ThreadSummary(*r) for r in rows]

    def thread(self, node_id: int) -> Thread | None:
        """An issue or PR with its body first and then every comment, oldest first."""
        conn = self.store.connect()
        item = conn.execute("SELECT * FROM history_items WHERE node_id = ?", (node_id,)).fetchone()
        if item is None:
            return None
        posts = [
            Post(
                "body",
                None,
                item["author"],
                item["author_association"],
                bool(item["is_bot"]),
                item["body"] or "",
                None,
                item["created_at"],
                item["url"],
            )
        ]
        rows = conn.execute(
            "SELECT * FROM history_comments WHERE item_id = ? ORDER BY COALESCE(created_at, 0), kind, id",
            (node_id,),
        )
        posts += [
            Post(
                r["kind"],
                r["id"],
                r["author"],
                r["author_association"],
                bool(r["is_bot"]),
                r["body"] or "",
                r["path"],
                r["created_at"],
                r["url"],
            )
            for r in rows
        ]
        return Thread(
            item["node_id"], item["number"], item["kind"], item["title"] or "", item["url"], tuple(posts)
        )

    def commits(self, repo_id: int, since: float | None = None) -> list[CommitText]:
        conn = self.store.connect()
        rows = conn.execute(_COMMITS, (repo_id, since if since is not None else float("-inf")))
        return [
            CommitText(r[0], r[1], r[2], r[3], r[4], r[5], r[6], int(r[7]), r[8], bool(r[9]), bool(r[10]))
            for r in rows
        ]

    def post_text(self, item_node: int, comment_id: int | None) -> str | None:
        """The text of one post of a thread: a comment's body, or (no comment id) the item's."""
        conn = self.store.connect()
        if comment_id is None:
            row = conn.execute("SELECT body FROM history_items WHERE node_id = ?", (item_node,)).fetchone()
        else:
            row = conn.execute(
                "SELECT body FROM history_comments WHERE item_id = ? AND id = ?", (item_node, comment_id)
            ).fetchone()
        return None if row is None else (row[0] or "")

    def file_keys(self, repo_id: int) -> set[str]:
        conn = self.store.connect()
        rows = conn.execute("SELECT key FROM history_nodes WHERE repo_id = ? AND kind = 'file'", (repo_id,))
        return {r[0] for r in rows}

    def lineage(self, node_ids: Iterable[int]) -> dict[int, set[int]]:
        """For each node (an item or a commit): itself, the PR a commit belongs to, and the
        issues and PRs that PR or item closes or is closed by. MENTIONS is left out on purpose:
        a popular issue collects mentions from everywhere and would join unrelated lineages."""
        ids = sorted(set(node_ids))
        out: dict[int, set[int]] = {n: {n} for n in ids}
        if not ids:
            return out
        conn = self.store.connect()
        rows = conn.execute(
            f"SELECT src, dst FROM history_edges WHERE src IN ({in_marks(ids)}) AND rel = 'PART_OF'", ids
        )
        for src, dst in rows:
            out[src].add(dst)
        every = sorted({m for group in out.values() for m in group})
        closes: dict[int, set[int]] = {}
        marks = in_marks(every)
        rows = conn.execute(
            f"SELECT src, dst FROM history_edges WHERE rel = 'CLOSES' AND src IN ({marks})"
            f" UNION SELECT src, dst FROM history_edges{self._by_dst}"
            f" WHERE rel = 'CLOSES' AND dst IN ({marks})",
            [*every, *every],
        )
        for src, dst in rows:
            closes.setdefault(src, set()).add(dst)
            closes.setdefault(dst, set()).add(src)
        for group in out.values():
            for member in list(group):
                group |= closes.get(member, set())
        return out
