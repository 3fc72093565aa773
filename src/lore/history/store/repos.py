"""Repositories in the history store: registration, what each holds, sync state and ingest locks.

A repository is a local folder, a GitHub OWNER/REPO, or both; everything ingested hangs off its
id. Sync state (how far each GitHub stream was read) and the lock that keeps one ingest per
repository live beside it, since they are per repository and outlive any one ingest.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from lore.core.errors import AlreadyExists, NotFound
from lore.history.store.base import HistoryTables
from lore.history.store.records import Repo, repo_of


class Repositories(HistoryTables):
    """Registered repositories, their sync state and ingest locks, and what each holds."""

    def repo_by_path(self, path: str) -> Repo | None:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_repos WHERE path = ?", (path,)).fetchone()
        return repo_of(row) if row else None

    def repo_by_github(self, slug: str) -> Repo | None:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_repos WHERE lower(github) = lower(?)", (slug,)).fetchone()
        return repo_of(row) if row else None

    def repo_by_id(self, repo_id: int) -> Repo:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_repos WHERE id = ?", (repo_id,)).fetchone()
        if row is None:
            raise NotFound(f"no repository with id {repo_id}")
        return repo_of(row)

    def repo_by_name(self, name: str) -> Repo | None:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_repos WHERE lower(name) = lower(?)", (name,)).fetchone()
        return repo_of(row) if row else None

    def create_repo(self, name: str, path: str | None, github: str | None) -> int:
        """A new repository; `AlreadyExists` when its name, folder or slug is taken."""
        conn = self.store.connect()
        now = time.time()
        try:
            row = conn.execute(
                "INSERT INTO history_repos (name, path, github, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
                " RETURNING id",
                (name, path, github, now, now),
            ).fetchone()
        except sqlite3.IntegrityError as exc:
            raise AlreadyExists(
                f"a repository named {name!r} (or at {path or github}) already exists"
            ) from exc
        return int(row[0])

    def set_repo_path(self, repo_id: int, path: str) -> None:
        conn = self.store.connect()
        conn.execute(
            "UPDATE history_repos SET path = ?, updated_at = ? WHERE id = ?", (path, time.time(), repo_id)
        )

    def set_repo_github(self, repo_id: int, slug: str) -> None:
        conn = self.store.connect()
        conn.execute(
            "UPDATE history_repos SET github = ?, updated_at = ? WHERE id = ?", (slug, time.time(), repo_id)
        )

    def repo_is_empty(self, repo_id: int) -> bool:
        """True when nothing was ingested into the repository yet."""
        conn = self.store.connect()
        return (
            conn.execute("SELECT 1 FROM history_nodes WHERE repo_id = ? LIMIT 1", (repo_id,)).fetchone()
            is None
        )

    def delete_repo(self, repo_id: int) -> None:
        """Forget a repository that holds no nodes (a first ingest that failed)."""
        conn = self.store.connect()
        for table in ("history_sync", "history_locks", "history_items", "history_comments"):
            conn.execute(f"DELETE FROM {table} WHERE repo_id = ?", (repo_id,))
        conn.execute("DELETE FROM history_repos WHERE id = ?", (repo_id,))

    def list_repos(self) -> list[Repo]:
        conn = self.store.connect()
        return [repo_of(r) for r in conn.execute("SELECT * FROM history_repos ORDER BY name")]

    def get_sync(self, repo_id: int, stream: str) -> dict[str, Any] | None:
        conn = self.store.connect()
        row = conn.execute(
            "SELECT state FROM history_sync WHERE repo_id = ? AND stream = ?", (repo_id, stream)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def set_sync(self, repo_id: int, stream: str, state: dict[str, Any]) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO history_sync (repo_id, stream, state, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (repo_id, stream) DO UPDATE SET state = excluded.state,"
            " updated_at = excluded.updated_at",
            (repo_id, stream, json.dumps(state), time.time()),
        )

    def clear_sync(self, repo_id: int, stream: str) -> None:
        conn = self.store.connect()
        conn.execute("DELETE FROM history_sync WHERE repo_id = ? AND stream = ?", (repo_id, stream))

    def lock_holder(self, repo_id: int) -> int | None:
        conn = self.store.connect()
        row = conn.execute("SELECT pid FROM history_locks WHERE repo_id = ?", (repo_id,)).fetchone()
        return int(row[0]) if row else None

    def take_lock(self, repo_id: int, pid: int) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO history_locks (repo_id, pid, started_at) VALUES (?, ?, ?)"
            " ON CONFLICT (repo_id) DO UPDATE SET pid = excluded.pid, started_at = excluded.started_at",
            (repo_id, pid, time.time()),
        )

    def release_lock(self, repo_id: int, pid: int) -> None:
        conn = self.store.connect()
        conn.execute("DELETE FROM history_locks WHERE repo_id = ? AND pid = ?", (repo_id, pid))

    def clear_repo(self, repo_id: int) -> None:
        """Delete everything ingested for a repository, keeping its registration (a rebuild)."""
        conn = self.store.connect()
        conn.execute(
            "DELETE FROM history_edges WHERE src IN (SELECT id FROM history_nodes WHERE repo_id = ?)",
            (repo_id,),
        )
        conn.execute(
            "DELETE FROM history_edges WHERE dst IN (SELECT id FROM history_nodes WHERE repo_id = ?)",
            (repo_id,),
        )
        conn.execute(
            "DELETE FROM history_degrees WHERE node_id IN (SELECT id FROM history_nodes WHERE repo_id = ?)",
            (repo_id,),
        )
        conn.execute(
            "DELETE FROM history_changes WHERE commit_id IN"
            " (SELECT node_id FROM history_commits WHERE repo_id = ?)",
            (repo_id,),
        )
        for table in (
            "history_commits",
            "history_people",
            "history_items",
            "history_comments",
            "history_sync",
        ):
            conn.execute(f"DELETE FROM {table} WHERE repo_id = ?", (repo_id,))
        conn.execute("DELETE FROM history_nodes WHERE repo_id = ?", (repo_id,))

    def remove_repo(self, repo_id: int) -> None:
        """Delete a repository and everything ingested for it."""
        self.clear_repo(repo_id)
        self.delete_repo(repo_id)

    def stats(self, repo_id: int) -> dict[str, Any]:
        conn = self.store.connect()
        nodes = dict(
            conn.execute(
                "SELECT kind, COUNT(*) FROM history_nodes WHERE repo_id = ? GROUP BY kind", (repo_id,)
            ).fetchall()
        )
        edges = dict(
            conn.execute(
                "SELECT e.rel, COUNT(*) FROM history_edges e JOIN history_nodes n ON n.id = e.src"
                " WHERE n.repo_id = ? GROUP BY e.rel",
                (repo_id,),
            ).fetchall()
        )
        c = conn.execute(
            "SELECT COUNT(*), SUM(is_bot), MIN(committed_at), MAX(committed_at),"
            " SUM(CASE WHEN length(parents) > 40 THEN 1 ELSE 0 END),"
            " SUM(CASE WHEN pr_number IS NOT NULL THEN 1 ELSE 0 END), SUM(boundary), SUM(lossy)"
            " FROM history_commits WHERE repo_id = ? AND reachable = 1",
            (repo_id,),
        ).fetchone()
        unreachable = conn.execute(
            "SELECT COUNT(*) FROM history_commits WHERE repo_id = ? AND reachable = 0", (repo_id,)
        ).fetchone()[0]
        items = dict(
            conn.execute(
                "SELECT kind, COUNT(*) FROM history_items WHERE repo_id = ? GROUP BY kind", (repo_id,)
            ).fetchall()
        )
        comments = dict(
            conn.execute(
                "SELECT kind, COUNT(*) FROM history_comments WHERE repo_id = ? GROUP BY kind",
                (repo_id,),
            ).fetchall()
        )
        bots = conn.execute(
            "SELECT COUNT(*) FROM history_people WHERE repo_id = ? AND is_bot = 1", (repo_id,)
        ).fetchone()[0]
        return {
            "nodes": nodes,
            "edges": edges,
            "commits": c[0] or 0,
            "bot_commits": c[1] or 0,
            "merges": c[4] or 0,
            "commits_with_pr": c[5] or 0,
            "unreachable_commits": unreachable,
            "boundary_commits": c[6] or 0,
            "lossy_commits": c[7] or 0,
            "first_commit_at": c[2],
            "last_commit_at": c[3],
            "items_fetched": items,
            "comments": comments,
            "bots": bots,
        }
