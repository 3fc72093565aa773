"""All SQL of `lore history why`: its keyword index over layer-1 text, and the reads it needs.

The index is a copy of the text layer 1 already holds (commit messages, PR and issue titles and
bodies, comments), one row per source, with an FTS5 table over it. It is derived data: built
incrementally from the layer-1 tables (only rows not yet indexed, or edited since), so it can be
dropped and rebuilt at any time, and it never feeds anything back into layer 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lore.core.store import Migration, Store, open_store_for
from lore.core.store.binding import in_marks

MIGRATIONS = [
    Migration(
        "history/why_0001_docs",
        """
CREATE TABLE history_why_docs (
    id INTEGER PRIMARY KEY,
    repo_id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('commit', 'pr', 'issue', 'issue_comment', 'review_comment')),
    source_id INTEGER NOT NULL,
    thread_id INTEGER,
    at REAL,
    version REAL,
    text TEXT NOT NULL,
    UNIQUE (kind, source_id)
);
CREATE INDEX history_why_docs_repo ON history_why_docs (repo_id, at);
CREATE TABLE history_why_state (
    repo_id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL
);
CREATE VIRTUAL TABLE history_why_fts USING fts5(
    text, content='history_why_docs', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
""",
    ),
]

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
        " i.title || char(10) || char(10) || i.body FROM history_items i"
        " LEFT JOIN history_why_docs d ON d.kind = i.kind AND d.source_id = i.node_id"
        " WHERE i.repo_id = ? AND (d.id IS NULL OR d.version IS NOT COALESCE(i.updated_at, 0))"
    ),
    "comment": (
        "SELECT c.kind, c.id, c.item_id, c.created_at, COALESCE(c.updated_at, 0), c.body"
        " FROM history_comments c"
        " LEFT JOIN history_why_docs d ON d.kind = c.kind AND d.source_id = c.id"
        " WHERE c.repo_id = ? AND c.is_bot = 0 AND c.body != ''"
        " AND (d.id IS NULL OR d.version IS NOT COALESCE(c.updated_at, 0))"
    ),
}


@dataclass(frozen=True)
class Doc:
    """One indexed source text: a commit message, a PR or issue, or a comment."""

    id: int
    repo_id: int
    kind: str
    source_id: int
    thread_id: int | None
    at: float | None
    text: str


@dataclass(frozen=True)
class DocHit:
    doc_id: int
    score: float  # BM25 as FTS5 gives it: lower is better


@dataclass(frozen=True)
class SourceMeta:
    """What a reader needs beside a source's text: its name, author, link and thread."""

    kind: str
    source_id: int
    ref: str  # a sha, or the number of a PR or issue
    title: str
    author: str | None
    association: str | None
    url: str | None
    thread_number: int | None
    thread_kind: str | None
    thread_title: str | None


@dataclass(frozen=True)
class ChangeSize:
    commit_node: int
    lines: int
    at: float


def open_why(store: Store | None = None) -> WhyStore:
    store = store or open_store_for(MIGRATIONS)
    store.migrate(MIGRATIONS)
    return WhyStore(store)


def _doc(row: Sequence) -> Doc:
    return Doc(*row)


class WhyStore:
    """The keyword index and the reads of `why`, over the shared Store."""

    def __init__(self, store: Store):
        self.store = store
        self.pruned: list[int] = []  # texts the last `sync` forgot (their source is gone)

    # -- the index ---------------------------------------------------------------------------

    def fingerprint(self, repo_id: int) -> str:
        """What layer 1 holds for the repository, in a few numbers: unchanged means nothing to index."""
        conn = self.store.connect()
        parts = [
            conn.execute(
                "SELECT COUNT(*), MAX(node_id) FROM history_commits WHERE repo_id = ?", (repo_id,)
            ).fetchone(),
            conn.execute(
                "SELECT COUNT(*), MAX(updated_at), SUM(length(body)) FROM history_items WHERE repo_id = ?",
                (repo_id,),
            ).fetchone(),
            conn.execute(
                "SELECT COUNT(*), MAX(updated_at), SUM(length(body)) FROM history_comments WHERE repo_id = ?",
                (repo_id,),
            ).fetchone(),
        ]
        return repr([tuple(p) for p in parts])

    def sync(self, repo_id: int) -> int:
        """Index every layer-1 text of the repository not indexed yet (or edited since), after
        forgetting those whose source is gone (`pruned`)."""
        conn = self.store.connect()
        now = self.fingerprint(repo_id)
        row = conn.execute(
            "SELECT fingerprint FROM history_why_state WHERE repo_id = ?", (repo_id,)
        ).fetchone()
        if row is not None and row[0] == now:
            return 0
        self.pruned = self.prune(repo_id)
        added = 0
        with self.store.transaction():
            conn = self.store.connect()
            conn.execute(
                "INSERT INTO history_why_state (repo_id, fingerprint) VALUES (?, ?)"
                " ON CONFLICT (repo_id) DO UPDATE SET fingerprint = excluded.fingerprint",
                (repo_id, now),
            )
            for sql in _SOURCES.values():
                rows = conn.execute(sql, (repo_id,)).fetchall()
                for kind, source_id, thread, at, version, text in rows:
                    old = conn.execute(
                        "SELECT id, text FROM history_why_docs WHERE kind = ? AND source_id = ?",
                        (kind, source_id),
                    ).fetchone()
                    if old is not None:
                        conn.execute(
                            "INSERT INTO history_why_fts (history_why_fts, rowid, text) VALUES ('delete', ?, ?)",
                            (old[0], old[1]),
                        )
                        conn.execute("DELETE FROM history_why_docs WHERE id = ?", (old[0],))
                    cur = conn.execute(
                        "INSERT INTO history_why_docs (repo_id, kind, source_id, thread_id, at, version, text)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (repo_id, kind, source_id, thread, at, version, text or ""),
                    )
                    conn.execute(
                        "INSERT INTO history_why_fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, text or "")
                    )
                    added += 1
        return added

    def prune(self, repo_id: int) -> list[int]:
        """Forget the indexed texts whose source is gone (a rebuild or a removal deleted it, a
        deepened clone read a commit again); returns their ids, for their vectors to go too."""
        conn = self.store.connect()
        gone = conn.execute(
            "SELECT d.id, d.text FROM history_why_docs d WHERE d.repo_id = ?1 AND CASE"
            " WHEN d.kind = 'commit' THEN NOT EXISTS"
            "  (SELECT 1 FROM history_commits c WHERE c.node_id = d.source_id AND c.repo_id = ?1)"
            " WHEN d.kind IN ('pr', 'issue') THEN NOT EXISTS"
            "  (SELECT 1 FROM history_items i WHERE i.node_id = d.source_id AND i.repo_id = ?1)"
            " ELSE NOT EXISTS (SELECT 1 FROM history_comments c"
            "  WHERE c.id = d.source_id AND c.kind = d.kind AND c.repo_id = ?1) END",
            (repo_id,),
        ).fetchall()
        if gone:
            with self.store.transaction():
                conn = self.store.connect()
                conn.executemany(
                    "INSERT INTO history_why_fts (history_why_fts, rowid, text) VALUES ('delete', ?, ?)",
                    [(i, t) for i, t in gone],
                )
                conn.executemany("DELETE FROM history_why_docs WHERE id = ?", [(i,) for i, _t in gone])
        return [i for i, _t in gone]

    def docs(self, repo_id: int, after: int = 0) -> list[Doc]:
        """Every indexed text of the repository with an id above `after`, in id order."""
        rows = self.store.connect().execute(
            "SELECT id, repo_id, kind, source_id, thread_id, at, text FROM history_why_docs"
            " WHERE repo_id = ? AND id > ? ORDER BY id",
            (repo_id, after),
        )
        return [_doc(r) for r in rows]

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
        return {r[0]: _doc(r) for r in rows}

    def docs_by_source(self, repo_id: int, kinds: Sequence[str], source_ids: Sequence[int]) -> list[Doc]:
        """The indexed texts of these layer-1 sources (commit or item nodes, comment ids)."""
        if not source_ids or not kinds:
            return []
        rows = self.store.connect().execute(
            f"SELECT id, repo_id, kind, source_id, thread_id, at, text FROM history_why_docs"
            # `+repo_id`: the (kind, source_id) key finds a handful of rows; left to itself the
            # planner would take the repository's index and read every text of it
            f" WHERE +repo_id = ? AND kind IN ({in_marks(kinds)}) AND source_id IN ({in_marks(source_ids)})",
            [repo_id, *kinds, *source_ids],
        )
        return [_doc(r) for r in rows]

    def keyword_search(self, repo_id: int, match: str, as_of: float | None, limit: int) -> list[DocHit]:
        """The best `limit` texts for an FTS5 expression, best first, none newer than `as_of`."""
        rows = self.store.connect().execute(
            "SELECT d.id, bm25(history_why_fts) AS score FROM history_why_fts"
            " JOIN history_why_docs d ON d.id = history_why_fts.rowid"
            " WHERE history_why_fts MATCH ? AND d.repo_id = ? AND (? IS NULL OR d.at <= ?)"
            " ORDER BY score, d.id LIMIT ?",
            (match, repo_id, as_of, as_of, limit),
        )
        return [DocHit(doc_id, score) for doc_id, score in rows]

    # -- reads of layer 1 ----------------------------------------------------------------------

    def change_sizes(
        self, file_ids: Sequence[int], as_of: float | None, limit: int, newest: bool = False
    ) -> list[ChangeSize]:
        """The commits that changed these files most (lines added + removed to them), biggest
        first; or, with `newest`, the latest ones first."""
        if not file_ids:
            return []
        order = "MIN(ch.at) DESC, ch.commit_id DESC" if newest else "lines DESC, MIN(ch.at)"
        rows = self.store.connect().execute(
            f"SELECT ch.commit_id, SUM(ch.added + ch.removed) AS lines, MIN(ch.at) FROM history_changes ch"
            f" JOIN history_commits c ON c.node_id = ch.commit_id AND c.reachable = 1"
            f" WHERE ch.file_id IN ({in_marks(file_ids)}) AND (? IS NULL OR ch.at <= ?)"
            f" GROUP BY ch.commit_id ORDER BY {order} LIMIT ?",
            [*file_ids, as_of, as_of, limit],
        )
        return [ChangeSize(c, n or 0, at) for c, n, at in rows]

    def source_meta(self, docs: Sequence[Doc]) -> dict[int, SourceMeta]:
        """doc id -> the name, author and link of its source, and the thread it belongs to; a
        commit no ref reaches any more (rewritten history) has none, so it is never evidence."""
        conn = self.store.connect()
        out: dict[int, SourceMeta] = {}
        commits = [d for d in docs if d.kind == "commit"]
        if commits:
            rows = conn.execute(
                f"SELECT c.node_id, c.sha, c.subject, c.author_name, c.pr_number, i.kind, i.title"
                f" FROM history_commits c LEFT JOIN history_items i"
                f" ON i.repo_id = c.repo_id AND i.number = c.pr_number"
                f" WHERE c.node_id IN ({in_marks(commits)}) AND c.reachable = 1",
                [d.source_id for d in commits],
            )
            found = {r[0]: r for r in rows}
            for d in commits:
                r = found.get(d.source_id)
                if r is not None:
                    out[d.id] = SourceMeta(
                        "commit", d.source_id, r[1], r[2], r[3], None, None, r[4], r[5], r[6]
                    )
        items = [d for d in docs if d.kind in ("pr", "issue")]
        if items:
            rows = conn.execute(
                f"SELECT node_id, number, kind, title, author, author_association, url FROM history_items"
                f" WHERE node_id IN ({in_marks(items)})",
                [d.source_id for d in items],
            )
            found = {r[0]: r for r in rows}
            for d in items:
                r = found.get(d.source_id)
                if r is not None:
                    out[d.id] = SourceMeta(
                        r[2], d.source_id, str(r[1]), r[3], r[4], r[5], r[6], r[1], r[2], r[3]
                    )
        comments = [d for d in docs if d.kind in ("issue_comment", "review_comment")]
        if comments:
            rows = conn.execute(
                f"SELECT c.kind, c.id, c.author, c.author_association, c.url, i.number, i.kind, i.title"
                f" FROM history_comments c LEFT JOIN history_items i ON i.node_id = c.item_id"
                f" WHERE c.id IN ({in_marks(comments)})",
                [d.source_id for d in comments],
            )
            found = {(r[0], r[1]): r for r in rows}
            for d in comments:
                r = found.get((d.kind, d.source_id))
                if r is not None:
                    title = f"comment on {r[6] or 'thread'} #{r[5]}" if r[5] is not None else "comment"
                    out[d.id] = SourceMeta(
                        d.kind, d.source_id, str(r[1]), title, r[2], r[3], r[4], r[5], r[6], r[7]
                    )
        return out

    def pr_commits(self, repo_id: int, numbers: Sequence[int]) -> dict[int, list[str]]:
        """PR number -> the shas of commits naming it (squash merges and PART_OF links)."""
        if not numbers:
            return {}
        rows = self.store.connect().execute(
            f"SELECT pr_number, sha FROM history_commits WHERE repo_id = ? AND pr_number IN ({in_marks(numbers)})",
            [repo_id, *numbers],
        )
        out: dict[int, list[str]] = {}
        for number, sha in rows:
            out.setdefault(number, []).append(sha)
        return out


# -- rows the evaluation drafts its questions from ------------------------------------------------


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
        rows = conn.execute(
            "SELECT i.number, i.title, i.merged_at, group_concat(c.sha) FROM history_items i"
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
