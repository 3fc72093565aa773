"""Finding nodes: by id, by kind and key, by a sha prefix, a path suffix or a person's name.

These are the lookups that turn what a user typed (`a1b2c3`, `core.py`, `@bob`) into the graph's
nodes; `LIKE` patterns escape the user's text, so `_` and `%` in it match only themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

from lore.core.store.binding import in_marks
from lore.history.store.base import HistoryTables, like_escape
from lore.history.store.records import Node, node_of


class NodeLookups(HistoryTables):
    """Nodes by id, key, sha prefix, path suffix, path text or a person's name."""

    def find_node(self, repo_id: int, kind: str, key: str) -> Node | None:
        conn = self.store.connect()
        row = conn.execute(
            "SELECT * FROM history_nodes WHERE repo_id = ? AND kind = ? AND key = ?",
            (repo_id, kind, key),
        ).fetchone()
        return node_of(row) if row else None

    def find_nodes(
        self, repo_id: int, kinds: Sequence[str], keys: Sequence[str]
    ) -> dict[tuple[str, str], Node]:
        """(kind, key) -> node for every node of these kinds and keys: `find_node` for many, in
        one statement."""
        if not kinds or not keys:
            return {}
        rows = self.store.connect().execute(
            f"SELECT * FROM history_nodes WHERE repo_id = ? AND kind IN ({in_marks(kinds)})"
            f" AND key IN ({in_marks(keys)})",
            [repo_id, *kinds, *keys],
        )
        return {(n.kind, n.key): n for n in map(node_of, rows)}

    def node_key(self, node_id: int) -> str | None:
        conn = self.store.connect()
        row = conn.execute("SELECT key FROM history_nodes WHERE id = ?", (node_id,)).fetchone()
        return row[0] if row else None

    def find_commit_by_prefix(self, repo_id: int, prefix: str) -> list[Node]:
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT * FROM history_nodes WHERE repo_id = ? AND kind = 'commit' AND key >= ?"
            " AND key < ? ORDER BY key LIMIT 2",
            (repo_id, prefix, prefix + "g"),
        )
        return [node_of(r) for r in rows]

    def find_files_by_suffix(self, repo_id: int, suffix: str) -> list[Node]:
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT * FROM history_nodes WHERE repo_id = ? AND kind = 'file'"
            f" AND (key = ? OR key {self._spell.like_any_case} ? ESCAPE '\\') ORDER BY at DESC, key LIMIT 5",
            (repo_id, suffix, "%/" + like_escape(suffix)),
        )
        return [node_of(r) for r in rows]

    def search_files(self, repo_id: int, text: str, limit: int) -> list[Node]:
        """File nodes whose path holds `text` (any case), the most connected first."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT * FROM history_nodes WHERE repo_id = ? AND kind = 'file'"
            " AND lower(key) LIKE ? ESCAPE '\\' ORDER BY degree DESC, key LIMIT ?",
            (repo_id, "%" + like_escape(text.strip().lower()) + "%", limit),
        )
        return [node_of(r) for r in rows]

    def find_people(self, repo_id: int, text: str) -> list[Node]:
        conn = self.store.connect()
        pattern = "%" + like_escape(text.lower()) + "%"
        rows = conn.execute(
            "SELECT n.* FROM history_nodes n JOIN history_people p ON p.node_id = n.id"
            " WHERE n.repo_id = ? AND (n.key = ? OR lower(p.name) LIKE ? ESCAPE '\\'"
            " OR lower(COALESCE(p.email, '')) LIKE ? ESCAPE '\\'"
            " OR lower(COALESCE(p.login, '')) = ?) ORDER BY n.degree DESC, n.key LIMIT 5",
            (repo_id, text.lower(), pattern, pattern, text.lower().lstrip("@")),
        )
        return [node_of(r) for r in rows]

    def nodes(self, ids: Sequence[int]) -> dict[int, Node]:
        if not ids:
            return {}
        conn = self.store.connect()
        rows = conn.execute(f"SELECT * FROM history_nodes WHERE id IN ({in_marks(ids)})", list(ids))
        return {r["id"]: node_of(r) for r in rows}
