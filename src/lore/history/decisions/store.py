"""All SQL of the decisions layer (layer 2): its tables, its writes, and its reads of layer 1.

Layer 2 is interpreted: every row here was proposed by a model and can be wrong, so it lives in
tables of its own, apart from the facts of layer 1 (`lore.history.store`), and carries the
evidence it rests on (the verbatim quote, its span in the source, who said it) and who made it
(`extracted_by`, `confidence`). Layer-1 tables are only read here, with queries of this module.

Nothing is ever deleted. A decision ends when a supersession row says a later one replaced it;
undoing that supersession stamps `undone_at` and the interval opens again. `valid_to` is never
stored: it is worked out from the supersessions in force (`lore.history.decisions.service`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from lore.core.errors import NotFound
from lore.core.store import Migration, Store, open_store_for
from lore.core.store.binding import in_marks

# who may bind the project on GitHub (the `author_association` of a comment or an item)
AUTHORITY = ("OWNER", "MEMBER", "COLLABORATOR")
_AUTH_SQL = "('OWNER', 'MEMBER', 'COLLABORATOR')"
# GitHub's own identity on commits made through its web interface: never a person
WEB_FLOW_EMAILS = ("noreply@github.com",)

MIGRATIONS = [
    Migration(
        "history/decisions_0001_tables",
        """
CREATE TABLE history_decisions (
    id INTEGER PRIMARY KEY,
    repo_id INTEGER NOT NULL REFERENCES history_repos (id) ON DELETE CASCADE,
    statement TEXT NOT NULL,
    rationale TEXT NOT NULL DEFAULT '',
    scope TEXT NOT NULL,
    files TEXT NOT NULL DEFAULT '[]',
    source_kind TEXT NOT NULL CHECK (source_kind IN ('comment', 'commit')),
    comment_kind TEXT CHECK (comment_kind IN ('body', 'issue_comment', 'review_comment')),
    source_node INTEGER,
    item_number INTEGER,
    comment_id INTEGER,
    commit_sha TEXT,
    source_url TEXT,
    speaker TEXT NOT NULL,
    speaker_role TEXT NOT NULL,
    quote TEXT NOT NULL,
    span_start INTEGER NOT NULL,
    span_end INTEGER NOT NULL,
    valid_from REAL NOT NULL,
    extracted_by TEXT NOT NULL,
    confidence REAL,
    ingested_at REAL NOT NULL
);
CREATE INDEX history_decisions_repo ON history_decisions (repo_id, valid_from);
CREATE TABLE history_supersessions (
    id INTEGER PRIMARY KEY,
    earlier INTEGER NOT NULL REFERENCES history_decisions (id) ON DELETE CASCADE,
    later INTEGER NOT NULL REFERENCES history_decisions (id) ON DELETE CASCADE,
    judged_at REAL NOT NULL,
    judge TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    undone_at REAL,
    CHECK (earlier != later)
);
CREATE INDEX history_supersessions_earlier ON history_supersessions (earlier);
CREATE TABLE history_supersession_checks (
    earlier INTEGER NOT NULL REFERENCES history_decisions (id) ON DELETE CASCADE,
    later INTEGER NOT NULL REFERENCES history_decisions (id) ON DELETE CASCADE,
    judge TEXT NOT NULL,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    judged_at REAL NOT NULL,
    PRIMARY KEY (earlier, later, judge)
);
CREATE TABLE history_decision_marks (
    repo_id INTEGER NOT NULL REFERENCES history_repos (id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    digest TEXT NOT NULL,
    extracted_by TEXT NOT NULL,
    kept INTEGER NOT NULL DEFAULT 0,
    at REAL NOT NULL,
    PRIMARY KEY (repo_id, source)
);
""",
    ),
    # A mark says which model (and prompt) read a source: switching models reads it again, and
    # switching back costs nothing, so each reader keeps its own mark.
    Migration(
        "history/decisions_0002_marks_per_model",
        """
CREATE TABLE history_decision_marks_new (
    repo_id INTEGER NOT NULL REFERENCES history_repos (id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    digest TEXT NOT NULL,
    extracted_by TEXT NOT NULL,
    kept INTEGER NOT NULL DEFAULT 0,
    at REAL NOT NULL,
    PRIMARY KEY (repo_id, source, extracted_by)
);
INSERT INTO history_decision_marks_new SELECT repo_id, source, digest, extracted_by, kept, at
    FROM history_decision_marks;
DROP TABLE history_decision_marks;
ALTER TABLE history_decision_marks_new RENAME TO history_decision_marks;
""",
    ),
]


def open_decisions(store: Store | None = None) -> DecisionStore:
    """The decisions store over the shared Store, its tables (and layer 1's) in place."""
    from lore.history.store import MIGRATIONS as LAYER1

    store = store or open_store_for(LAYER1 + MIGRATIONS)
    store.migrate(LAYER1)
    store.migrate(MIGRATIONS)
    return DecisionStore(store)


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class DecisionRow:
    """A stored decision as written: no validity end (that is derived, never stored)."""

    id: int
    repo_id: int
    statement: str
    rationale: str
    scope: str
    files: tuple[str, ...]
    source_kind: str  # comment | commit
    comment_kind: str | None  # body | issue_comment | review_comment (None for a commit)
    source_node: int | None  # the item's or the commit's layer-1 node
    item_number: int | None
    comment_id: int | None
    commit_sha: str | None
    source_url: str | None
    speaker: str
    speaker_role: str  # OWNER, MEMBER, COLLABORATOR or committer
    quote: str
    span_start: int
    span_end: int
    valid_from: float
    extracted_by: str
    confidence: float | None
    ingested_at: float


@dataclass(frozen=True)
class NewDecision:
    """A decision that passed every check, ready to be written."""

    repo_id: int
    statement: str
    rationale: str
    scope: str
    files: tuple[str, ...]
    source_kind: str
    comment_kind: str | None
    source_node: int | None
    item_number: int | None
    comment_id: int | None
    commit_sha: str | None
    source_url: str | None
    speaker: str
    speaker_role: str
    quote: str
    span_start: int
    span_end: int
    valid_from: float
    extracted_by: str
    confidence: float | None


@dataclass(frozen=True)
class SupersessionRow:
    id: int
    earlier: int
    later: int
    judged_at: float
    judge: str
    reason: str
    undone_at: float | None


@dataclass(frozen=True)
class ThreadSummary:
    """What the salience order needs to know about an issue or PR, without its text."""

    node_id: int
    number: int
    kind: str
    title: str
    created_at: float | None
    updated_at: float | None
    comments: int
    maintainer_posts: int  # body and comments by OWNER / MEMBER / COLLABORATOR
    links: int  # CLOSES and MENTIONS edges at the item


@dataclass(frozen=True)
class Post:
    """One piece of a thread a decision can rest on: the item's body or one comment."""

    kind: str  # body | issue_comment | review_comment
    comment_id: int | None
    author: str | None
    association: str | None
    is_bot: bool
    body: str
    path: str | None
    created_at: float | None
    url: str | None


@dataclass(frozen=True)
class Thread:
    node_id: int
    number: int
    kind: str  # pr | issue
    title: str
    url: str | None
    posts: tuple[Post, ...]


@dataclass(frozen=True)
class CommitText:
    node_id: int
    sha: str
    author_name: str
    author_email: str
    committer_email: str
    committed_at: float
    message: str
    parents: int
    pr_number: int | None
    is_bot: bool
    pr_by_member: bool  # the PR it belongs to was opened by an OWNER / MEMBER / COLLABORATOR


def _row(r: sqlite3.Row) -> DecisionRow:
    return DecisionRow(
        id=r["id"],
        repo_id=r["repo_id"],
        statement=r["statement"],
        rationale=r["rationale"],
        scope=r["scope"],
        files=tuple(json.loads(r["files"] or "[]")),
        source_kind=r["source_kind"],
        comment_kind=r["comment_kind"],
        source_node=r["source_node"],
        item_number=r["item_number"],
        comment_id=r["comment_id"],
        commit_sha=r["commit_sha"],
        source_url=r["source_url"],
        speaker=r["speaker"],
        speaker_role=r["speaker_role"],
        quote=r["quote"],
        span_start=r["span_start"],
        span_end=r["span_end"],
        valid_from=r["valid_from"],
        extracted_by=r["extracted_by"],
        confidence=r["confidence"],
        ingested_at=r["ingested_at"],
    )


def _supersession(r: sqlite3.Row) -> SupersessionRow:
    return SupersessionRow(
        r["id"], r["earlier"], r["later"], r["judged_at"], r["judge"], r["reason"], r["undone_at"]
    )


_THREADS = f"""
SELECT i.node_id, i.number, i.kind, i.title, i.created_at, i.updated_at,
  (SELECT COUNT(*) FROM history_comments c WHERE c.item_id = i.node_id AND c.is_bot = 0) AS comments,
  (SELECT COUNT(*) FROM history_comments c WHERE c.item_id = i.node_id AND c.is_bot = 0
     AND c.author_association IN {_AUTH_SQL})
   + (CASE WHEN i.author_association IN {_AUTH_SQL} AND i.is_bot = 0 THEN 1 ELSE 0 END) AS maintainers,
  (SELECT COUNT(*) FROM history_edges e WHERE e.src = i.node_id AND e.rel IN ('CLOSES', 'MENTIONS'))
   + (SELECT COUNT(*) FROM history_edges e INDEXED BY history_edges_dst
      WHERE e.dst = i.node_id AND e.rel IN ('CLOSES', 'MENTIONS')) AS links
FROM history_items i
WHERE i.repo_id = ? AND COALESCE(i.updated_at, i.created_at, 0) >= ?
"""

_COMMITS = f"""
SELECT c.node_id, c.sha, c.author_name, c.author_email, c.committer_email, c.committed_at,
  c.message, length(c.parents) - length(replace(c.parents, ' ', '')) + (c.parents != '') AS parents,
  c.pr_number, c.is_bot,
  EXISTS (SELECT 1 FROM history_items i WHERE i.repo_id = c.repo_id AND i.number = c.pr_number
          AND i.kind = 'pr' AND i.author_association IN {_AUTH_SQL}) AS pr_by_member
FROM history_commits c
WHERE c.repo_id = ? AND c.committed_at >= ? AND c.reachable = 1
"""


# ---------------------------------------------------------------- the store


class DecisionStore:
    """Typed access to the decision tables, and read-only views of layer 1 they are built from."""

    def __init__(self, store: Store):
        self.store = store

    @contextmanager
    def transaction(self) -> Iterator[DecisionStore]:
        """One write transaction over several calls (a batch of decisions and their marks)."""
        with self.store.transaction():
            yield self

    # -- layer 1, read only ------------------------------------------------------------------

    def thread_summaries(self, repo_id: int, since: float | None = None) -> list[ThreadSummary]:
        conn = self.store.connect()
        rows = conn.execute(_THREADS, (repo_id, since if since is not None else float("-inf")))
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

    def committer_emails(self, repo_id: int) -> set[str]:
        """Who commits to the repository: every committer but GitHub's web flow, and the
        authors of merges GitHub's web flow made (the person who pressed the button)."""
        conn = self.store.connect()
        web = list(WEB_FLOW_EMAILS)
        rows = conn.execute(
            f"SELECT DISTINCT lower(committer_email) FROM history_commits WHERE repo_id = ? AND is_bot = 0"
            f" AND lower(committer_email) NOT IN ({in_marks(web)})",
            (repo_id, *web),
        )
        found = {r[0] for r in rows}
        rows = conn.execute(
            f"SELECT DISTINCT lower(author_email) FROM history_commits WHERE repo_id = ? AND is_bot = 0"
            f" AND instr(parents, ' ') > 0 AND lower(committer_email) IN ({in_marks(web)})",
            (repo_id, *web),
        )
        return found | {r[0] for r in rows}

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
            f" UNION SELECT src, dst FROM history_edges INDEXED BY history_edges_dst"
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

    # -- decisions ---------------------------------------------------------------------------

    def add_decisions(self, rows: Sequence[NewDecision], ingested_at: float | None = None) -> list[int]:
        conn = self.store.connect()
        now = time.time() if ingested_at is None else ingested_at
        ids = []
        for d in rows:
            cur = conn.execute(
                "INSERT INTO history_decisions (repo_id, statement, rationale, scope, files, source_kind,"
                " comment_kind, source_node, item_number, comment_id, commit_sha, source_url, speaker,"
                " speaker_role, quote, span_start, span_end, valid_from, extracted_by, confidence,"
                " ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    d.repo_id,
                    d.statement,
                    d.rationale,
                    d.scope,
                    json.dumps(list(d.files)),
                    d.source_kind,
                    d.comment_kind,
                    d.source_node,
                    d.item_number,
                    d.comment_id,
                    d.commit_sha,
                    d.source_url,
                    d.speaker,
                    d.speaker_role,
                    d.quote,
                    d.span_start,
                    d.span_end,
                    d.valid_from,
                    d.extracted_by,
                    d.confidence,
                    now,
                ),
            )
            ids.append(int(cur.lastrowid or 0))
        return ids

    def decisions(self, repo_id: int, believed_at: float | None = None) -> list[DecisionRow]:
        """Every decision of a repository (those ingested by `believed_at`), oldest valid first."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT * FROM history_decisions WHERE repo_id = ? AND ingested_at <= ? ORDER BY valid_from, id",
            (repo_id, believed_at if believed_at is not None else float("inf")),
        )
        return [_row(r) for r in rows]

    def decision(self, decision_id: int) -> DecisionRow:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_decisions WHERE id = ?", (decision_id,)).fetchone()
        if row is None:
            raise NotFound(f"no decision with id {decision_id}")
        return _row(row)

    # -- what extract has read -----------------------------------------------------------------

    def marks(self, repo_id: int, extracted_by: str | None = None) -> dict[str, str]:
        """source -> digest of what was read, for every source extract has finished (by the
        model and prompt `extracted_by` names, when given: another model's reading is not its)."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT source, digest FROM history_decision_marks WHERE repo_id = ?"
            " AND (? IS NULL OR extracted_by = ?) ORDER BY at",
            (repo_id, extracted_by, extracted_by),
        )
        return {source: digest for source, digest in rows}

    def mark(self, repo_id: int, source: str, digest: str, extracted_by: str, kept: int) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO history_decision_marks (repo_id, source, digest, extracted_by, kept, at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (repo_id, source, extracted_by) DO UPDATE SET"
            " digest = excluded.digest, kept = excluded.kept, at = excluded.at",
            (repo_id, source, digest, extracted_by, kept, time.time()),
        )

    # -- supersessions -------------------------------------------------------------------------

    def supersessions(self, repo_id: int) -> list[SupersessionRow]:
        """Every supersession row of a repository, undone ones included, in the order judged."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT s.* FROM history_supersessions s JOIN history_decisions d ON d.id = s.earlier"
            " WHERE d.repo_id = ? ORDER BY s.judged_at, s.id",
            (repo_id,),
        )
        return [_supersession(r) for r in rows]

    def supersession(self, supersession_id: int) -> SupersessionRow:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_supersessions WHERE id = ?", (supersession_id,)).fetchone()
        if row is None:
            raise NotFound(f"no supersession with id {supersession_id}")
        return _supersession(row)

    def add_supersession(
        self, earlier: int, later: int, judge: str, reason: str, judged_at: float | None = None
    ) -> int:
        conn = self.store.connect()
        cur = conn.execute(
            "INSERT INTO history_supersessions (earlier, later, judged_at, judge, reason) VALUES (?, ?, ?, ?, ?)",
            (earlier, later, time.time() if judged_at is None else judged_at, judge, reason),
        )
        return int(cur.lastrowid or 0)

    def undo_supersession(self, supersession_id: int, at: float | None = None) -> None:
        conn = self.store.connect()
        conn.execute(
            "UPDATE history_supersessions SET undone_at = ? WHERE id = ? AND undone_at IS NULL",
            (time.time() if at is None else at, supersession_id),
        )

    def checked_pairs(self, repo_id: int, judge: str) -> set[tuple[int, int]]:
        """(earlier, later) pairs this judge has already given a verdict on."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT k.earlier, k.later FROM history_supersession_checks k"
            " JOIN history_decisions d ON d.id = k.earlier WHERE d.repo_id = ? AND k.judge = ?",
            (repo_id, judge),
        )
        return {(a, b) for a, b in rows}

    def record_check(self, earlier: int, later: int, judge: str, verdict: str, reason: str) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO history_supersession_checks (earlier, later, judge, verdict, reason, judged_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (earlier, later, judge) DO UPDATE SET"
            " verdict = excluded.verdict, reason = excluded.reason, judged_at = excluded.judged_at",
            (earlier, later, judge, verdict, reason, time.time()),
        )
