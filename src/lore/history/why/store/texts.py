"""The index itself: one copy of each layer-1 text per source, kept current with layer 1.

`look` is the whole freshness check of a question (one statement); `sync` writes what is missing
or edited, with each text's words (`terms_store`) in the same transaction, after `prune` forgot
the texts whose source is gone; the other reads hand the texts out by repository or id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lore.core.store.base import Store
from lore.core.store.binding import in_marks
from lore.history.why.store.records import Counter, Doc, Look, doc_of
from lore.history.why.terms_store import TermStore

# What each layer-1 source contributes, as (kind, source id, thread node, time, version, text).
# `version` changes when the source is edited (items and comments), so an edit is re-indexed.
_SOURCES = {
    "commit": (
        "SELECT 'commit', c.node_id, NULL, c.authored_at, 0, c.message FROM history_commits c"
        " LEFT JOIN history_why_docs d ON d.kind = 'commit' AND d.source_id = c.node_id"
        " WHERE c.repo_id = ? AND d.id IS NULL"
    ),
    "item": (
        "SELECT i.kind, i.node_id, i.node_id, i.created_at, COALESCE(i.updated_at, 0),"
        " i.title || '\n\n' || i.body FROM history_items i"
        " LEFT JOIN history_why_docs d ON d.kind = i.kind AND d.source_id = i.node_id"
        " WHERE i.repo_id = ? AND (d.id IS NULL OR COALESCE(d.version, -1) != COALESCE(i.updated_at, 0))"
    ),
    "comment": (
        "SELECT c.kind, c.id, c.item_id, c.created_at, COALESCE(c.updated_at, 0), c.body"
        " FROM history_comments c"
        " LEFT JOIN history_why_docs d ON d.kind = c.kind AND d.source_id = c.id"
        " WHERE c.repo_id = ? AND c.is_bot = 0 AND c.body != ''"
        " AND (d.id IS NULL OR COALESCE(d.version, -1) != COALESCE(c.updated_at, 0))"
    ),
}


class TextIndex:
    """The room of `WhyStore` that writes and reads the indexed texts."""

    store: Store
    pruned: list[int]  # texts the last `sync` forgot (their source is gone)

    def look(self, repo_id: int) -> Look:
        """Layer 1's fingerprint for the repository, the one the index was built at, and the
        texts' state, in one statement: the whole freshness check of a question, one round trip
        on PostgreSQL where it was five."""
        row = (
            self.store.connect()
            .execute(
                "SELECT c.n, c.newest, i.n, i.edited, i.chars, m.n, m.edited, m.chars, d.n, d.newest,"
                " s.fingerprint FROM"
                " (SELECT COUNT(*) AS n, MAX(node_id) AS newest FROM history_commits WHERE repo_id = :repo) c"
                " CROSS JOIN (SELECT COUNT(*) AS n, MAX(updated_at) AS edited, SUM(length(body)) AS chars"
                "  FROM history_items WHERE repo_id = :repo) i"
                " CROSS JOIN (SELECT COUNT(*) AS n, MAX(updated_at) AS edited, SUM(length(body)) AS chars"
                "  FROM history_comments WHERE repo_id = :repo) m"
                " CROSS JOIN (SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS newest FROM history_why_docs"
                "  WHERE repo_id = :repo) d"
                " LEFT JOIN history_why_state s ON s.repo_id = :repo",
                {"repo": repo_id},
            )
            .fetchone()
        )
        now = repr([tuple(row[0:2]), tuple(row[2:5]), tuple(row[5:8])])
        return Look(now, row[10], (int(row[8]), int(row[9])))

    def fingerprint(self, repo_id: int) -> str:
        """What layer 1 holds for the repository, in a few numbers: unchanged means nothing to index."""
        return self.look(repo_id).fingerprint

    def sync(self, repo_id: int, look: Look | None = None, count: Counter | None = None) -> int:
        """Index every layer-1 text of the repository not indexed yet (or edited since), after
        forgetting those whose source is gone (`pruned`); `look` is this moment's, if read.
        `count` gives a text's words for BM25's statistics (`terms_store`), written in the same
        transaction, so a text is never indexed without them."""
        look = look or self.look(repo_id)
        if look.fresh:
            return 0
        now = look.fingerprint
        self.pruned = self.prune(repo_id)
        added = 0
        terms = TermStore(self.store)
        with self.store.transaction():
            conn = self.store.connect()
            conn.execute(
                "INSERT INTO history_why_state (repo_id, fingerprint) VALUES (?, ?)"
                " ON CONFLICT (repo_id) DO UPDATE SET fingerprint = excluded.fingerprint",
                (repo_id, now),
            )
            for sql in _SOURCES.values():
                added += self._replace_docs(repo_id, conn.execute(sql, (repo_id,)).fetchall())
            if count is not None:
                terms.write(repo_id, [(i, count(text)) for i, text in terms.uncounted(repo_id)])
        return added

    def _replace_docs(self, repo_id: int, rows: Sequence[Sequence[Any]]) -> int:
        """Drop the older texts of these sources and their words, then write the new ones in
        bulk (COPY on PostgreSQL, where a statement per text made building the index ten times
        slower than on SQLite)."""
        if not rows:
            return 0
        conn: Any = self.store.connect()  # on PostgreSQL it has `insert_rows` (COPY)
        keys = [(r[0], r[1]) for r in rows]
        conn.executemany(
            "DELETE FROM history_why_postings WHERE doc_id IN"
            " (SELECT id FROM history_why_docs WHERE kind = ? AND source_id = ?)",
            keys,
        )
        conn.executemany("DELETE FROM history_why_docs WHERE kind = ? AND source_id = ?", keys)
        columns = ("repo_id", "kind", "source_id", "thread_id", "at", "version", "text")
        docs = [
            (repo_id, k, source, thread, at, version, text or "")
            for k, source, thread, at, version, text in rows
        ]
        if self.store.dialect == "sqlite":
            conn.executemany(
                f"INSERT INTO history_why_docs ({', '.join(columns)}) VALUES ({', '.join('?' for _c in columns)})",
                docs,
            )
        else:
            conn.insert_rows("history_why_docs", columns, docs)
        return len(rows)

    def prune(self, repo_id: int) -> list[int]:
        """Forget the indexed texts whose source is gone (a rebuild or a removal deleted it, a
        deepened clone read a commit again); returns their ids, for their vectors to go too."""
        conn = self.store.connect()
        gone = conn.execute(
            "SELECT d.id FROM history_why_docs d WHERE d.repo_id = :repo AND CASE"
            " WHEN d.kind = 'commit' THEN NOT EXISTS"
            "  (SELECT 1 FROM history_commits c WHERE c.node_id = d.source_id AND c.repo_id = :repo)"
            " WHEN d.kind IN ('pr', 'issue') THEN NOT EXISTS"
            "  (SELECT 1 FROM history_items i WHERE i.node_id = d.source_id AND i.repo_id = :repo)"
            " ELSE NOT EXISTS (SELECT 1 FROM history_comments c"
            "  WHERE c.id = d.source_id AND c.kind = d.kind AND c.repo_id = :repo) END",
            {"repo": repo_id},
        ).fetchall()
        if gone:
            with self.store.transaction():
                conn = self.store.connect()
                TermStore(self.store).forget(i for (i,) in gone)
                conn.executemany("DELETE FROM history_why_docs WHERE id = ?", gone)
        return [i for (i,) in gone]

    def docs(self, repo_id: int, after: int = 0) -> list[Doc]:
        """Every indexed text of the repository with an id above `after`, in id order."""
        rows = self.store.connect().execute(
            "SELECT id, repo_id, kind, source_id, thread_id, at, text FROM history_why_docs"
            " WHERE repo_id = ? AND id > ? ORDER BY id",
            (repo_id, after),
        )
        return [doc_of(r) for r in rows]

    def doc_state(self, repo_id: int) -> tuple[int, int]:
        """How many texts the repository has indexed, and the newest id: equal means unchanged."""
        row = (
            self.store.connect()
            .execute(
                "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM history_why_docs WHERE repo_id = ?", (repo_id,)
            )
            .fetchone()
        )
        return (int(row[0]), int(row[1]))

    def doc_ids(self, repo_id: int) -> list[int]:
        rows = self.store.connect().execute("SELECT id FROM history_why_docs WHERE repo_id = ?", (repo_id,))
        return [r[0] for r in rows]

    def docs_by_id(self, ids: Sequence[int]) -> dict[int, Doc]:
        if not ids:
            return {}
        rows = self.store.connect().execute(
            f"SELECT id, repo_id, kind, source_id, thread_id, at, text FROM history_why_docs"
            f" WHERE id IN ({in_marks(ids)})",
            list(ids),
        )
        return {r[0]: doc_of(r) for r in rows}
