"""The SQL of why's identifier index: for each identifier a repository's diffs added, the
commit that first added it and the commit that added it most, and every commit that added or
removed a line naming it.

A question that names `frobnicate_widget` or `--no-color` asks about the changes that brought it
in or changed it, whose messages often say nothing of it. `git log -S` finds those changes, one
identifier and one walk of the history at a time; these tables hold the answer for every
identifier at once, written at ingest (`why.symbols`), so a question reads a few rows. Identifiers are kept
lowercased (a question seldom spells the case of `HTTPException`), and commits by sha: the rows
stay true across a layer-1 rebuild, and a question joins them to the reachable commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lore.core.store.base import Store
from lore.core.store.binding import in_marks


@dataclass(frozen=True)
class SymbolRow:
    """One identifier of a repository: its first commit, the commit that added it most (with
    how often it did), and how many commits added it at all."""

    symbol: str
    first_sha: str
    most_sha: str
    most_count: int
    commits: int


@dataclass(frozen=True)
class Introduced:
    """An identifier a question names, with the commit nodes that brought it in (first, then
    the one that added it most, when another), none newer than the question's moment."""

    symbol: str
    commits: int  # how many commits added it: the rarer, the more it says
    nodes: tuple[int, ...]


class SymbolStore:
    """The identifier rows and the scan's state, over the shared Store."""

    def __init__(self, store: Store):
        self.store = store

    def scanned(self, repo_id: int) -> str | None:
        """The commit the last scan of the repository's diffs ended at, if any."""
        row = (
            self.store.connect()
            .execute("SELECT head FROM history_why_symbol_state WHERE repo_id = ?", (repo_id,))
            .fetchone()
        )
        return row[0] if row else None

    def clear(self, repo_id: int) -> None:
        """Forget the repository's identifiers and where the scan ended (inside a transaction)."""
        conn = self.store.connect()
        conn.execute("DELETE FROM history_why_symbols WHERE repo_id = ?", (repo_id,))
        conn.execute("DELETE FROM history_why_symbol_commits WHERE repo_id = ?", (repo_id,))
        conn.execute("DELETE FROM history_why_symbol_state WHERE repo_id = ?", (repo_id,))

    def write(
        self,
        repo_id: int,
        rows: Sequence[SymbolRow],
        touches: Sequence[tuple[str, str]],
        head: str,
        *,
        fresh: bool,
    ) -> None:
        """Store a scan's identifiers, the (identifier, sha) pairs of the commits that added or
        removed them, and the commit it ended at, in one transaction. After a `fresh` scan (every
        commit read) the rows go in bulk; after a scan of new commits only, an identifier already
        known keeps its first commit and adds to its counts."""
        with self.store.transaction():
            conn: Any = self.store.connect()
            if fresh:
                self.clear(repo_id)
            pairs = [(repo_id, name, sha) for name, sha in touches]
            if self.store.dialect == "sqlite":
                conn.executemany(
                    "INSERT OR IGNORE INTO history_why_symbol_commits (repo_id, symbol, sha) VALUES (?, ?, ?)",
                    pairs,
                )
            else:
                conn.insert_rows(
                    "history_why_symbol_commits", ("repo_id", "symbol", "sha"), pairs, ignore_conflicts=True
                )
            if fresh:
                values = [(repo_id, r.symbol, r.first_sha, r.most_sha, r.most_count, r.commits) for r in rows]
                if self.store.dialect == "sqlite":
                    conn.executemany(
                        "INSERT INTO history_why_symbols"
                        " (repo_id, symbol, first_sha, most_sha, most_count, commits) VALUES (?, ?, ?, ?, ?, ?)",
                        values,
                    )
                else:
                    conn.insert_rows(
                        "history_why_symbols",
                        ("repo_id", "symbol", "first_sha", "most_sha", "most_count", "commits"),
                        values,
                    )
            else:
                conn.executemany(
                    "INSERT INTO history_why_symbols (repo_id, symbol, first_sha, most_sha, most_count, commits)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (repo_id, symbol) DO UPDATE SET"
                    " most_sha = CASE WHEN excluded.most_count > history_why_symbols.most_count"
                    "  THEN excluded.most_sha ELSE history_why_symbols.most_sha END,"
                    " most_count = CASE WHEN excluded.most_count > history_why_symbols.most_count"
                    "  THEN excluded.most_count ELSE history_why_symbols.most_count END,"
                    " commits = history_why_symbols.commits + excluded.commits",
                    [(repo_id, r.symbol, r.first_sha, r.most_sha, r.most_count, r.commits) for r in rows],
                )
            conn.execute(
                "INSERT INTO history_why_symbol_state (repo_id, head) VALUES (?, ?)"
                " ON CONFLICT (repo_id) DO UPDATE SET head = excluded.head",
                (repo_id, head),
            )

    def introduced(self, repo_id: int, symbols: Sequence[str], as_of: float | None) -> list[Introduced]:
        """The named identifiers the repository's diffs added, each with its reachable commit
        nodes (first, then most), leaving out commits newer than `as_of`."""
        if not symbols:
            return []
        rows = self.store.connect().execute(
            "SELECT s.symbol, s.commits, f.node_id, m.node_id FROM history_why_symbols s"
            " LEFT JOIN history_commits f ON f.repo_id = s.repo_id AND f.sha = s.first_sha AND f.reachable = 1"
            " AND (CAST(? AS DOUBLE PRECISION) IS NULL OR f.authored_at <= ?)"
            " LEFT JOIN history_commits m ON m.repo_id = s.repo_id AND m.sha = s.most_sha AND m.reachable = 1"
            " AND (CAST(? AS DOUBLE PRECISION) IS NULL OR m.authored_at <= ?)"
            f" WHERE s.repo_id = ? AND s.symbol IN ({in_marks(symbols)})",
            [as_of, as_of, as_of, as_of, repo_id, *symbols],
        )
        out = []
        for symbol, commits, first, most in rows:
            nodes = tuple(dict.fromkeys(n for n in (first, most) if n is not None))
            if nodes:
                out.append(Introduced(symbol, int(commits), nodes))
        return out

    def touching(self, repo_id: int, symbols: Sequence[str], as_of: float | None) -> list[tuple[str, int]]:
        """Each of these identifiers with a reachable commit node that added or removed a line
        naming it, none newer than `as_of` (what `git log -S` lists, per identifier)."""
        if not symbols:
            return []
        rows = self.store.connect().execute(
            "SELECT DISTINCT s.symbol, c.node_id FROM history_why_symbol_commits s"
            " JOIN history_commits c ON c.repo_id = s.repo_id AND c.sha = s.sha AND c.reachable = 1"
            f" WHERE s.repo_id = ? AND s.symbol IN ({in_marks(symbols)})"
            " AND (CAST(? AS DOUBLE PRECISION) IS NULL OR c.authored_at <= ?) ORDER BY c.node_id, s.symbol",
            [repo_id, *symbols, as_of, as_of],
        )
        return [(str(r[0]), int(r[1])) for r in rows]

    def commit_count(self, repo_id: int) -> int:
        """How many commits of the repository layer 1 holds (what makes an identifier common)."""
        row = (
            self.store.connect()
            .execute("SELECT COUNT(*) FROM history_commits WHERE repo_id = ?", (repo_id,))
            .fetchone()
        )
        return int(row[0] or 0)
