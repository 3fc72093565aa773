"""The graph writes of ingest: node ids, nodes, commits, changes and people, and the reads that
tell an ingest what it already stored.

Ingest writes in batches inside one transaction per batch: node ids are reserved in blocks so
several processes never hand out the same id, and on PostgreSQL bulk rows go through COPY (one
stream) rather than a statement per row. A shallow boundary deepened later, or a rewritten
history, is handled here too: commits can be forgotten and read again, and marked reachable or
not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lore.core.store.binding import in_marks
from lore.history.store.base import HistoryTables

# the columns of `history_commits` ingest writes (COPY on PostgreSQL names them)
_COMMIT_COLUMNS = (
    *("node_id", "repo_id", "sha", "parents", "author_name", "author_email", "authored_at"),
    *("committer_name", "committer_email", "committed_at", "subject", "message", "is_bot", "files"),
    *("added", "removed", "pr_number", "source", "boundary", "lossy"),
)


class GraphWrites(HistoryTables):
    """What ingest writes into the graph, and what it reads to know what it already has."""

    def reserve_node_ids(self, count: int) -> int:
        """Reserve a block of node ids (first id returned), safe across processes."""
        conn = self.store.connect()
        row = conn.execute(
            f"UPDATE history_node_seq SET next = {self._spell.greatest}(next, (SELECT COALESCE(MAX(id), 0) + 1"
            " FROM history_nodes)) + ? WHERE id = 1 RETURNING next",
            (count,),
        ).fetchone()
        return int(row[0]) - count

    def node_ids(self, repo_id: int) -> dict[tuple[str, str], int]:
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT kind, key, id FROM history_nodes WHERE repo_id = ?", (repo_id,)
        ).fetchall()
        return {(kind, key): nid for kind, key, nid in rows}

    def insert_nodes(self, rows: Sequence[tuple]) -> None:
        """rows: (id, repo_id, kind, key, label, at)."""
        conn: Any = self.store.connect()  # on PostgreSQL it has `insert_rows` (COPY)
        if self._postgres:  # COPY: one stream, not a statement per row
            conn.insert_rows("history_nodes", ("id", "repo_id", "kind", "key", "label", "at"), rows)
            return
        conn.executemany(
            "INSERT INTO history_nodes (id, repo_id, kind, key, label, at) VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )

    def refresh_nodes(self, rows: Sequence[tuple]) -> None:
        """rows: (label, at, id): fill an empty label, keep the latest time."""
        conn = self.store.connect()
        conn.executemany(
            "UPDATE history_nodes SET label = CASE WHEN :label != '' THEN :label ELSE label END,"
            " at = CASE WHEN CAST(:at AS DOUBLE PRECISION) IS NULL THEN at"
            " WHEN at IS NULL OR :at > at THEN :at ELSE at END WHERE id = :id",
            [{"label": label, "at": at, "id": node_id} for label, at, node_id in rows],
        )

    def insert_commits(self, rows: Sequence[tuple]) -> None:
        """rows: the 18 columns of the first schema, optionally followed by `boundary`, `lossy`."""
        conn: Any = self.store.connect()  # on PostgreSQL it has `insert_rows` (COPY)
        full = [tuple(r) + (0, 0)[: 20 - len(r)] for r in rows]
        if self._postgres:
            conn.insert_rows("history_commits", _COMMIT_COLUMNS, full, ignore_conflicts=True)
            return
        conn.executemany(
            "INSERT OR IGNORE INTO history_commits (node_id, repo_id, sha, parents, author_name,"
            " author_email, authored_at, committer_name, committer_email, committed_at, subject,"
            " message, is_bot, files, added, removed, pr_number, source, boundary, lossy)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            full,
        )

    def insert_changes(self, rows: Sequence[tuple]) -> None:
        """rows: (commit_id, file_id, status, old_path, added, removed, at)."""
        conn: Any = self.store.connect()  # on PostgreSQL it has `insert_rows` (COPY)
        if self._postgres:
            columns = ("commit_id", "file_id", "status", "old_path", "added", "removed", "at")
            conn.insert_rows("history_changes", columns, rows, ignore_conflicts=True)
            return
        conn.executemany(
            "INSERT OR IGNORE INTO history_changes (commit_id, file_id, status, old_path, added,"
            " removed, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def upsert_people(self, rows: Sequence[tuple]) -> None:
        """rows: (node_id, repo_id, name, email, login, is_bot)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO history_people (node_id, repo_id, name, email, login, is_bot)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (node_id) DO UPDATE SET"
            " name = CASE WHEN history_people.name = '' THEN excluded.name ELSE history_people.name END,"
            " email = COALESCE(history_people.email, excluded.email),"
            " login = COALESCE(history_people.login, excluded.login),"
            f" is_bot = {self._spell.greatest}(history_people.is_bot, excluded.is_bot)",
            rows,
        )

    def known_shas(self, repo_id: int) -> set[str]:
        conn = self.store.connect()
        rows = conn.execute("SELECT sha FROM history_commits WHERE repo_id = ?", (repo_id,)).fetchall()
        return {r[0] for r in rows}

    def commit_parents(self, repo_id: int) -> dict[str, tuple[tuple[str, ...], float]]:
        """sha -> (parent shas, commit time) for every ingested commit."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT sha, parents, committed_at FROM history_commits WHERE repo_id = ?", (repo_id,)
        ).fetchall()
        return {sha: (tuple(parents.split()), at) for sha, parents, at in rows}

    def commit_prs(self, repo_id: int) -> dict[str, int]:
        """sha -> the PR number its subject names, for every ingested commit naming one."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT sha, pr_number FROM history_commits WHERE repo_id = ? AND pr_number IS NOT NULL",
            (repo_id,),
        ).fetchall()
        return {sha: pr for sha, pr in rows}

    def part_of_links(self, repo_id: int) -> set[tuple[int, int]]:
        """(commit node, PR node) of every PART_OF edge stored for the repository."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT e.src, e.dst FROM history_edges e JOIN history_nodes n ON n.id = e.dst"
            " WHERE n.repo_id = ? AND n.kind = 'pr' AND e.rel = 'PART_OF'",
            (repo_id,),
        ).fetchall()
        return {(src, dst) for src, dst in rows}

    def retype_node(self, node_id: int, kind: str) -> None:
        conn = self.store.connect()
        conn.execute("UPDATE history_nodes SET kind = ? WHERE id = ?", (kind, node_id))

    def set_reachable(self, repo_id: int, reachable: set[str]) -> int:
        """Mark each stored commit reachable or not from the refs given; returns how many are not."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT sha, reachable FROM history_commits WHERE repo_id = ?", (repo_id,)
        ).fetchall()
        flips = [
            (int(sha in reachable), repo_id, sha) for sha, was in rows if bool(was) != (sha in reachable)
        ]
        conn.executemany("UPDATE history_commits SET reachable = ? WHERE repo_id = ? AND sha = ?", flips)
        return sum(1 for sha, _ in rows if sha not in reachable)

    def boundary_shas(self, repo_id: int) -> set[str]:
        conn = self.store.connect()
        rows = conn.execute("SELECT sha FROM history_commits WHERE repo_id = ? AND boundary = 1", (repo_id,))
        return {r[0] for r in rows}

    def forget_commits(self, repo_id: int, shas: Sequence[str]) -> None:
        """Drop commits' rows and their outgoing edges so an ingest can read them again (a
        shallow boundary whose parents a deepened clone now has); nodes stay, degrees recounted."""
        if not shas:
            return
        conn = self.store.connect()
        ids = [
            r[0]
            for r in conn.execute(
                f"SELECT node_id FROM history_commits WHERE repo_id = ? AND sha IN ({in_marks(shas)})",
                [repo_id, *shas],
            )
        ]
        if not ids:
            return
        marks = in_marks(ids)
        touched = {
            n
            for row in conn.execute(
                f"SELECT src, dst FROM history_edges WHERE src IN ({marks}) OR dst IN ({marks})", [*ids, *ids]
            )
            for n in row
        }
        conn.execute(f"DELETE FROM history_edges WHERE src IN ({marks}) AND rel != 'PART_OF'", ids)
        conn.execute(f"DELETE FROM history_edges WHERE dst IN ({marks}) AND rel = 'AUTHORED'", ids)
        conn.execute(f"DELETE FROM history_changes WHERE commit_id IN ({marks})", ids)
        conn.execute(f"DELETE FROM history_commits WHERE node_id IN ({marks})", ids)
        self.graph.refresh_degrees(touched)
