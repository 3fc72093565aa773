"""Reads of commits, their changes and a file's path history: what `stats`, churn, `show` and the
lineage walk are built on.

Commits no ref reaches any more are kept (for `show`) but left out of the reads that describe
the live history (`reachable = 1`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lore.core.store.binding import in_marks
from lore.history.store.base import HistoryTables, Spelling
from lore.history.store.records import ChangeEvent, CommitDetail, CommitText, GraphCommit


class CommitReads(HistoryTables):
    """Commits, the paths they changed, and the events of a path."""

    def changes(self, repo_id: int, since: float | None = None) -> list[tuple]:
        """(commit_id, file_id, path, added, removed, at, author_id) oldest first."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT ch.commit_id, ch.file_id, f.key, ch.added, ch.removed, ch.at,"
            f" ({_author_of('ch.commit_id', self._spell)})"
            " FROM history_changes ch JOIN history_nodes f ON f.id = ch.file_id"
            " WHERE f.repo_id = ? AND ch.at >= ? ORDER BY ch.at, ch.commit_id, f.key",
            (repo_id, since if since is not None else float("-inf")),
        )
        return [tuple(r) for r in rows]

    def renames(self, repo_id: int) -> list[tuple[int, int, float]]:
        """(new file id, old file id, time) for every RENAMED_FROM edge."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT e.src, e.dst, e.at FROM history_edges e JOIN history_nodes n ON n.id = e.src"
            " WHERE n.repo_id = ? AND e.rel = 'RENAMED_FROM' ORDER BY e.at",
            (repo_id,),
        )
        return [(src, dst, at) for src, dst, at in rows]

    def latest_commit_time(self, repo_id: int) -> float | None:
        conn = self.store.connect()
        return conn.execute(
            "SELECT MAX(committed_at) FROM history_commits WHERE repo_id = ? AND reachable = 1", (repo_id,)
        ).fetchone()[0]

    def commit_graph_version(self, repo_id: int) -> tuple[int, int, int]:
        """A few numbers that change whenever the reachable commit graph does (ingest, rewrite)."""
        row = (
            self.store.connect()
            .execute(
                "SELECT COUNT(*), COALESCE(MAX(node_id), 0), COALESCE(SUM(reachable), 0)"
                " FROM history_commits WHERE repo_id = ?",
                (repo_id,),
            )
            .fetchone()
        )
        return (int(row[0]), int(row[1]), int(row[2]))

    def commit_graph(self, repo_id: int) -> dict[str, GraphCommit]:
        """sha -> commit for every reachable commit (the graph a file's lineage is walked over)."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT node_id, sha, parents, committed_at FROM history_commits"
            " WHERE repo_id = ? AND reachable = 1",
            (repo_id,),
        )
        return {sha: GraphCommit(nid, sha, tuple(parents.split()), at) for nid, sha, parents, at in rows}

    def change_events(self, repo_id: int, file_ids: Sequence[int] | None = None) -> list[ChangeEvent]:
        """Every path change of the reachable commits (or of the files given), oldest first."""
        conn = self.store.connect()
        where, params = "f.repo_id = ?", [repo_id]
        if file_ids is not None:
            if not file_ids:
                return []
            where += f" AND ch.file_id IN ({in_marks(file_ids)})"
            params += list(file_ids)
        rows = conn.execute(
            "SELECT ch.commit_id, ch.file_id, f.key, ch.status, ch.old_path, ch.added, ch.removed,"
            f" ch.at, c.authored_at, ({_author_of('ch.commit_id', self._spell)}),"
            " c.author_name, c.author_email, c.is_bot"
            " FROM history_changes ch JOIN history_nodes f ON f.id = ch.file_id"
            " JOIN history_commits c ON c.node_id = ch.commit_id"
            f" WHERE {where} AND c.reachable = 1 ORDER BY ch.at, ch.commit_id, f.key",
            params,
        )
        return [
            ChangeEvent(
                commit_id=r[0],
                file_id=r[1],
                path=r[2],
                status=r[3],
                old_path=r[4],
                added=r[5],
                removed=r[6],
                at=r[7],
                authored_at=r[8],
                author_id=r[9],
                author_name=r[10],
                author_email=r[11],
                is_bot=bool(r[12]),
            )
            for r in rows
        ]

    def rename_pairs(self, repo_id: int) -> list[tuple[int, int]]:
        """(new path node, old path node) of every rename or copy stored as a change."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT ch.file_id, o.id FROM history_changes ch"
            " JOIN history_nodes o ON o.repo_id = :repo AND o.kind = 'file' AND o.key = ch.old_path"
            " JOIN history_nodes f ON f.id = ch.file_id WHERE f.repo_id = :repo AND ch.old_path IS NOT NULL",
            {"repo": repo_id},
        )
        return [(a, b) for a, b in rows]

    def commit_texts(self, ids: Sequence[int]) -> dict[int, CommitText]:
        """Whole commits (message included) by node id."""
        if not ids:
            return {}
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT node_id, sha, parents, author_name, author_email, authored_at, committer_name,"
            " committed_at, subject, message, is_bot, pr_number, files, added, removed, reachable,"
            f" boundary, lossy FROM history_commits WHERE node_id IN ({in_marks(ids)})",
            list(ids),
        )
        return {
            r[0]: CommitText(
                node_id=r[0],
                sha=r[1],
                parents=tuple(r[2].split()),
                author_name=r[3],
                author_email=r[4],
                authored_at=r[5],
                committer_name=r[6],
                committed_at=r[7],
                subject=r[8],
                message=r[9],
                is_bot=bool(r[10]),
                pr_number=r[11],
                files=r[12],
                added=r[13],
                removed=r[14],
                reachable=bool(r[15]),
                boundary=bool(r[16]),
                lossy=bool(r[17]),
            )
            for r in rows
        }

    def commit_files(self, commit_id: int) -> list[tuple[str, str, str | None, int, int]]:
        """(path, status, old path, added, removed) of one commit's changes, by path."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT f.key, ch.status, ch.old_path, ch.added, ch.removed FROM history_changes ch"
            " JOIN history_nodes f ON f.id = ch.file_id WHERE ch.commit_id = ? ORDER BY f.key",
            (commit_id,),
        )
        return [tuple(r) for r in rows]

    def commits_by_sha(self, repo_id: int, shas: Sequence[str]) -> dict[str, int]:
        """sha -> commit node for the stored commits among `shas`."""
        if not shas:
            return {}
        conn = self.store.connect()
        rows = conn.execute(
            f"SELECT sha, node_id FROM history_commits WHERE repo_id = ? AND sha IN ({in_marks(shas)})",
            [repo_id, *shas],
        )
        return {sha: nid for sha, nid in rows}

    def commit_details(self, ids: Sequence[int]) -> dict[int, CommitDetail]:
        if not ids:
            return {}
        conn = self.store.connect()
        rows = conn.execute(
            f"SELECT node_id, sha, author_name, author_email, is_bot, pr_number, files, added,"
            f" removed FROM history_commits WHERE node_id IN ({in_marks(ids)})",
            list(ids),
        )
        return {r[0]: CommitDetail(r[0], r[1], r[2], r[3], bool(r[4]), *r[5:]) for r in rows}

    def path_events(self, repo_id: int, file_id: int) -> list[tuple[float, str, int | None]]:
        """What happened to a path, as (time, event, other file id), oldest first.

        `A` added, `R` renamed here from `other`, `D` deleted, `X` renamed away to `other`. The
        changes table has one row per commit; RENAMED_FROM edges add renames known only from a
        PR's file list.
        """
        conn = self.store.connect()
        rows = conn.execute(_path_events(self._spell), {"repo": repo_id, "file": file_id}).fetchall()
        return [(at, event, other) for at, event, other in rows if at is not None]

    def last_change(self, file_id: int) -> float | None:
        """The time of the latest commit or PR that modified the path."""
        conn = self.store.connect()
        return conn.execute(
            f"SELECT MAX(at) FROM history_edges{self._spell.by_dst} WHERE dst = ? AND rel = 'MODIFIED'",
            (file_id,),
        ).fetchone()[0]

    def file_paths(self, ids: Sequence[int]) -> dict[int, str]:
        conn = self.store.connect()
        rows = conn.execute(f"SELECT id, key FROM history_nodes WHERE id IN ({in_marks(ids)})", list(ids))
        return {nid: key for nid, key in rows}


def _author_of(commit: str, spell: Spelling) -> str:
    """The person node that AUTHORED the commit `commit` (a column), as a scalar subquery."""
    return (
        f"SELECT e.src FROM history_edges e{spell.by_dst} WHERE e.dst = {commit}"
        " AND e.rel = 'AUTHORED' LIMIT 1"
    )


def _path_events(spell: Spelling) -> str:
    """What happened to the path `:file` of repository `:repo`: (time, event, other file)."""
    return f"""
SELECT ch.at, ch.status, o.id FROM history_changes ch
LEFT JOIN history_nodes o ON o.repo_id = :repo AND o.kind = 'file' AND o.key = ch.old_path
WHERE ch.file_id = :file AND ch.status IN ('A', 'R', 'D')
UNION
SELECT e.at, 'R', e.dst FROM history_edges e WHERE e.src = :file AND e.rel = 'RENAMED_FROM'
UNION
SELECT e.at, 'X', e.src FROM history_edges e{spell.by_dst}
WHERE e.dst = :file AND e.rel = 'RENAMED_FROM'
ORDER BY 1
"""
