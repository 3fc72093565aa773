"""All SQL of the history domain: migrations, writes from ingest, reads for queries.

Layer 1 only: facts read from git and the GitHub API. Nodes are per repository
(`UNIQUE (repo_id, kind, key)`), so a walk that starts in one repository stays in it.
Edges carry no foreign keys on purpose: ingest writes hundreds of thousands of them and the
writer guarantees both ends exist.
"""

from __future__ import annotations

import json
import sqlite3
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from lore.core.errors import AlreadyExists, NotFound
from lore.core.graph import EdgeFilter, GraphTables
from lore.core.store import Migration, Store, open_store_for
from lore.core.store.binding import in_marks
from lore.core.store.graph_store import GraphStore


def _unique_repo_identity(conn: sqlite3.Connection) -> None:
    """A local repository is its path, a GitHub one its OWNER/REPO: make both unique.

    Before this, a second folder with the same name was merged into the first repository;
    any duplicate identity left by that keeps its oldest owner.
    """
    conn.execute(
        "UPDATE history_repos SET path = NULL WHERE path IS NOT NULL AND id > (SELECT MIN(o.id)"
        " FROM history_repos o WHERE o.path = history_repos.path)"
    )
    conn.execute(
        "UPDATE history_repos SET github = NULL WHERE github IS NOT NULL AND id > (SELECT"
        " MIN(o.id) FROM history_repos o WHERE lower(o.github) = lower(history_repos.github))"
    )
    conn.execute("CREATE UNIQUE INDEX history_repos_path ON history_repos (path)")
    conn.execute("CREATE UNIQUE INDEX history_repos_github ON history_repos (lower(github))")


def _recount_degrees(conn: sqlite3.Connection) -> None:
    """Ingests resumed after a kill left degrees at 0 (hub suppression silently off): recount.

    Frozen: its own copy of the full recount, not a call to `GraphStore.refresh_degrees`, which
    may change (or move to another backend) after this migration has run on real stores.
    """
    conn.execute("DELETE FROM history_degrees")
    conn.execute(
        "INSERT INTO history_degrees (node_id, rel, n) SELECT node, rel, COUNT(*) FROM ("
        " SELECT src AS node, rel FROM history_edges UNION ALL SELECT dst, rel FROM history_edges"
        ") GROUP BY node, rel"
    )
    conn.execute(
        "UPDATE history_nodes SET degree = COALESCE((SELECT SUM(x.n) FROM history_degrees x"
        " WHERE x.node_id = history_nodes.id), 0)"
    )


def _commit_flags(conn: sqlite3.Connection) -> None:
    """Three facts per commit that the first schema lacked.

    `reachable`: 0 once no ref leads to the commit any more (amended, rebased, dropped); such
    commits are kept but left out of stats, churn and a file's story. `boundary`: 1 for a commit
    a shallow clone cut the history at (its diff is the whole tree, so its changes are not
    stored). `lossy`: 1 when a name, message or path was not UTF-8 and holds `\\xNN` escapes.
    """
    conn.execute("ALTER TABLE history_commits ADD COLUMN reachable INTEGER NOT NULL DEFAULT 1")
    conn.execute("ALTER TABLE history_commits ADD COLUMN boundary INTEGER NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE history_commits ADD COLUMN lossy INTEGER NOT NULL DEFAULT 0")


TABLES = GraphTables(nodes="history_nodes", edges="history_edges", degrees="history_degrees")

# Edges of a commit no ref reaches any more (amended, rebased, dropped) are not walked: the
# commit is kept for `show`, but a walk, like `file` and `stats`, follows only the live history.
_LIVE = "NOT EXISTS (SELECT 1 FROM history_commits c WHERE c.node_id IN (e.src, e.dst) AND c.reachable = 0)"
REACHABLE_ONLY = EdgeFilter(_LIVE)

MIGRATIONS = [
    Migration(
        "history/0001_graph",
        """
CREATE TABLE history_repos (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    path TEXT,
    github TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE history_nodes (
    id INTEGER PRIMARY KEY,
    repo_id INTEGER NOT NULL REFERENCES history_repos (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    at REAL,
    degree INTEGER NOT NULL DEFAULT 0,
    UNIQUE (repo_id, kind, key)
);
CREATE TABLE history_edges (
    src INTEGER NOT NULL,
    dst INTEGER NOT NULL,
    rel TEXT NOT NULL,
    at REAL,
    position INTEGER,
    PRIMARY KEY (src, dst, rel)
) WITHOUT ROWID;
CREATE INDEX history_edges_dst ON history_edges (dst, src);
CREATE TABLE history_degrees (
    node_id INTEGER NOT NULL,
    rel TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (node_id, rel)
) WITHOUT ROWID;
CREATE TABLE history_node_seq (id INTEGER PRIMARY KEY CHECK (id = 1), next INTEGER NOT NULL);
INSERT INTO history_node_seq (id, next) VALUES (1, 1);
CREATE TABLE history_commits (
    node_id INTEGER PRIMARY KEY,
    repo_id INTEGER NOT NULL,
    sha TEXT NOT NULL,
    parents TEXT NOT NULL,
    author_name TEXT NOT NULL,
    author_email TEXT NOT NULL,
    authored_at REAL NOT NULL,
    committer_name TEXT NOT NULL,
    committer_email TEXT NOT NULL,
    committed_at REAL NOT NULL,
    subject TEXT NOT NULL,
    message TEXT NOT NULL,
    is_bot INTEGER NOT NULL DEFAULT 0,
    files INTEGER NOT NULL DEFAULT 0,
    added INTEGER NOT NULL DEFAULT 0,
    removed INTEGER NOT NULL DEFAULT 0,
    pr_number INTEGER,
    source TEXT NOT NULL DEFAULT 'git',
    UNIQUE (repo_id, sha)
);
CREATE INDEX history_commits_time ON history_commits (repo_id, committed_at);
CREATE TABLE history_changes (
    commit_id INTEGER NOT NULL,
    file_id INTEGER NOT NULL,
    status TEXT NOT NULL,
    old_path TEXT,
    added INTEGER NOT NULL DEFAULT 0,
    removed INTEGER NOT NULL DEFAULT 0,
    at REAL NOT NULL,
    PRIMARY KEY (commit_id, file_id)
) WITHOUT ROWID;
CREATE INDEX history_changes_file ON history_changes (file_id, at);
CREATE TABLE history_people (
    node_id INTEGER PRIMARY KEY,
    repo_id INTEGER NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    email TEXT,
    login TEXT,
    is_bot INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE history_items (
    node_id INTEGER PRIMARY KEY,
    repo_id INTEGER NOT NULL,
    number INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('pr', 'issue')),
    title TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL DEFAULT '',
    state TEXT,
    author TEXT,
    author_association TEXT,
    is_bot INTEGER NOT NULL DEFAULT 0,
    created_at REAL,
    updated_at REAL,
    closed_at REAL,
    merged_at REAL,
    merge_commit_sha TEXT,
    url TEXT,
    UNIQUE (repo_id, number)
);
CREATE TABLE history_comments (
    id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('issue_comment', 'review_comment')),
    repo_id INTEGER NOT NULL,
    item_id INTEGER NOT NULL,
    author TEXT,
    author_association TEXT,
    is_bot INTEGER NOT NULL DEFAULT 0,
    body TEXT NOT NULL DEFAULT '',
    path TEXT,
    line INTEGER,
    diff_hunk TEXT,
    commit_sha TEXT,
    in_reply_to INTEGER,
    created_at REAL,
    updated_at REAL,
    url TEXT,
    PRIMARY KEY (kind, id)
);
CREATE INDEX history_comments_item ON history_comments (item_id, created_at);
CREATE TABLE history_sync (
    repo_id INTEGER NOT NULL,
    stream TEXT NOT NULL,
    state TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (repo_id, stream)
);
CREATE TABLE history_locks (
    repo_id INTEGER PRIMARY KEY,
    pid INTEGER NOT NULL,
    started_at REAL NOT NULL
);
""",
    ),
    Migration("history/0002_repo_identity", _unique_repo_identity),
    Migration("history/0003_recount_degrees", _recount_degrees),
    Migration("history/0004_commit_flags", _commit_flags),
]


def open_history(store: Store | None = None) -> HistoryStore:
    """The history store over the shared Store, its tables in place."""
    store = store or open_store_for(MIGRATIONS)
    store.migrate(MIGRATIONS)
    return HistoryStore(store)


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class Repo:
    """An ingested repository: a local folder, a GitHub OWNER/REPO, or both."""

    id: int
    name: str
    path: str | None
    github: str | None


@dataclass(frozen=True)
class Node:
    """A node of the history graph (commit, file, pr, issue or person)."""

    id: int
    kind: str
    key: str
    label: str
    at: float | None
    degree: int


@dataclass(frozen=True)
class MergedPr:
    node_id: int
    number: int
    title: str
    body: str
    created_at: float | None
    merged_at: float


@dataclass(frozen=True)
class TimelineEntry:
    """A commit, PR or issue behind a file: its depth from the file and the edge that led there."""

    id: int
    kind: str
    key: str
    label: str
    at: float | None
    depth: int
    how: str


@dataclass(frozen=True)
class CommitDetail:
    node_id: int
    sha: str
    author_name: str
    author_email: str
    is_bot: bool
    pr_number: int | None
    files: int
    added: int
    removed: int


@dataclass(frozen=True)
class ItemDetail:
    node_id: int
    number: int
    kind: str
    title: str
    state: str | None
    author: str | None
    created_at: float | None
    closed_at: float | None
    merged_at: float | None


@dataclass(frozen=True)
class ReviewComment:
    """A PR review comment, with the PR it belongs to (what the rules domain learns from)."""

    id: int
    repo: str
    pr_number: int
    pr_title: str
    author: str | None
    author_association: str | None  # OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE...
    is_bot: bool
    body: str
    path: str | None
    line: int | None
    diff_hunk: str | None
    in_reply_to: int | None
    created_at: float | None
    url: str | None


@dataclass(frozen=True)
class GraphCommit:
    """A reachable commit as the lineage walk needs it: its node, parents and time."""

    node_id: int
    sha: str
    parents: tuple[str, ...]
    at: float


@dataclass(frozen=True)
class ChangeEvent:
    """One path touched by one reachable commit, with who made it (for churn and a file's story).

    `status` is git's letter: A added, M modified, D deleted, R renamed from `old_path`, C copied.
    """

    commit_id: int
    file_id: int
    path: str
    status: str
    old_path: str | None
    added: int
    removed: int
    at: float
    authored_at: float
    author_id: int | None
    author_name: str
    author_email: str
    is_bot: bool


@dataclass(frozen=True)
class CommitText:
    """A commit with its whole message (the why a subject line leaves out)."""

    node_id: int
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    authored_at: float
    committer_name: str
    committed_at: float
    subject: str
    message: str
    is_bot: bool
    pr_number: int | None
    files: int
    added: int
    removed: int
    reachable: bool
    boundary: bool
    lossy: bool

    @property
    def body(self) -> str:
        """The message without its subject line (empty when there is none)."""
        return self.message.partition("\n")[2].strip("\n")


def _repo(row: sqlite3.Row) -> Repo:
    return Repo(row["id"], row["name"], row["path"], row["github"])


def _node(row: sqlite3.Row) -> Node:
    return Node(row["id"], row["kind"], row["key"], row["label"], row["at"], row["degree"])


# Two reads too long for a line: what happened to a path, and every commit, PR and issue behind
# a file (`{values}` is one `(?, ?, ?)` per stretch of time a path held the file).
_PATH_EVENTS = """
SELECT ch.at, ch.status, o.id FROM history_changes ch
LEFT JOIN history_nodes o ON o.repo_id = ?1 AND o.kind = 'file' AND o.key = ch.old_path
WHERE ch.file_id = ?2 AND ch.status IN ('A', 'R', 'D')
UNION
SELECT e.at, 'R', e.dst FROM history_edges e WHERE e.src = ?2 AND e.rel = 'RENAMED_FROM'
UNION
SELECT e.at, 'X', e.src FROM history_edges e INDEXED BY history_edges_dst
WHERE e.dst = ?2 AND e.rel = 'RENAMED_FROM'
ORDER BY 1
"""

_FILE_TIMELINE = """
WITH seg(file_id, since, until) AS (VALUES {values}),
touching AS (
    SELECT e.src AS id, MIN(e.at) AS at FROM seg s
    JOIN history_edges e INDEXED BY history_edges_dst ON e.dst = s.file_id
    WHERE e.rel = 'MODIFIED' AND e.at >= s.since AND e.at <= s.until GROUP BY e.src
),
prs AS (
    SELECT id, MIN(depth) AS depth, MIN(how) AS how FROM (
        SELECT t.id, 1 AS depth, 'MODIFIED' AS how FROM touching t
        JOIN history_nodes n ON n.id = t.id WHERE n.kind = 'pr'
        UNION ALL
        SELECT e.dst, 2, 'PART_OF' FROM touching t JOIN history_edges e ON e.src = t.id
        WHERE e.rel = 'PART_OF'
    ) GROUP BY id
),
linked AS (
    SELECT other AS id, MIN(depth) + 1 AS depth, MIN(rel) AS how FROM (
        SELECT e.dst AS other, p.depth, e.rel FROM prs p JOIN history_edges e ON e.src = p.id
        WHERE e.rel IN ('CLOSES', 'MENTIONS')
        UNION ALL
        SELECT e.src, p.depth, e.rel FROM prs p
        JOIN history_edges e INDEXED BY history_edges_dst ON e.dst = p.id
        WHERE e.rel IN ('CLOSES', 'MENTIONS')
        UNION ALL
        SELECT e.dst, 1, e.rel FROM touching t JOIN history_edges e ON e.src = t.id
        WHERE e.rel IN ('CLOSES', 'MENTIONS')
    ) GROUP BY other
),
alls AS (
    SELECT id, depth, how FROM (
        SELECT id, depth, how, ROW_NUMBER() OVER (PARTITION BY id ORDER BY depth, how) AS r
        FROM (
            SELECT id, 1 AS depth, 'MODIFIED' AS how FROM touching
            UNION ALL SELECT id, depth, how FROM prs
            UNION ALL SELECT id, depth, how FROM linked
        )
    ) WHERE r = 1
)
SELECT n.id, n.kind, n.key, n.label, n.at, a.depth, a.how
FROM alls a JOIN history_nodes n ON n.id = a.id
ORDER BY a.depth, n.at IS NULL, n.at DESC, n.kind, n.key
"""

# The same story when the commits are already known (from the lineage walk): `?` per segment
# value first, then one JSON array of commit node ids.
_FILE_STORY = _FILE_TIMELINE.replace(
    """touching AS (
    SELECT e.src AS id, MIN(e.at) AS at FROM seg s
    JOIN history_edges e INDEXED BY history_edges_dst ON e.dst = s.file_id
    WHERE e.rel = 'MODIFIED' AND e.at >= s.since AND e.at <= s.until GROUP BY e.src
),""",
    """touching AS (
    SELECT e.src AS id, MIN(e.at) AS at FROM seg s
    JOIN history_edges e INDEXED BY history_edges_dst ON e.dst = s.file_id
    JOIN history_nodes pn ON pn.id = e.src AND pn.kind = 'pr'
    WHERE e.rel = 'MODIFIED' AND e.at >= s.since AND e.at <= s.until GROUP BY e.src
    UNION SELECT value, NULL FROM json_each(?)
),""",
)

# ---------------------------------------------------------------- the store

# connection -> what -> (data_version, total_changes) at the last look (see quiet_since_last_look)
_looks: weakref.WeakKeyDictionary[sqlite3.Connection, dict[str, tuple[int, int]]] = (
    weakref.WeakKeyDictionary()
)


class HistoryStore:
    """Typed access to the history tables of one Store.

    Methods run on the calling thread's connection, so inside `transaction()` they all join
    one transaction; nothing driver-made (rows, cursors, connections) leaves this class.
    """

    def __init__(self, store: Store):
        self.store = store
        self.graph = GraphStore(store, TABLES)

    @contextmanager
    def transaction(self) -> Iterator[HistoryStore]:
        """One write transaction over several calls (a batch and its checkpoint)."""
        with self.store.transaction():
            yield self

    def quiet_since_last_look(self, what: str) -> bool:
        """True when nothing at all was committed to the store file since the last call with
        `what` on this thread's connection (by this process or any other); the look is recorded.

        Two numbers SQLite keeps for free say so: `PRAGMA data_version` moves when another
        connection commits, `total_changes()` when this one writes. A cache that is checked
        against the tables on every call (reading thousands of rows) can trust itself while the
        store is quiet; looks are kept per connection object, so a new connection starts over."""
        conn = self.store.connect()
        if not isinstance(conn, sqlite3.Connection):  # another backend: no such counters, no shortcut
            return False
        token = (
            conn.execute("PRAGMA data_version").fetchone()[0],
            conn.execute("SELECT total_changes()").fetchone()[0],
        )
        looks = _looks.setdefault(conn, {})
        quiet = looks.get(what) == token
        looks[what] = token
        return quiet

    # ---------------------------------------------------------------- repositories, sync, locks

    def repo_by_path(self, path: str) -> Repo | None:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_repos WHERE path = ?", (path,)).fetchone()
        return _repo(row) if row else None

    def repo_by_github(self, slug: str) -> Repo | None:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_repos WHERE lower(github) = lower(?)", (slug,)).fetchone()
        return _repo(row) if row else None

    def repo_by_id(self, repo_id: int) -> Repo:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_repos WHERE id = ?", (repo_id,)).fetchone()
        if row is None:
            raise NotFound(f"no repository with id {repo_id}")
        return _repo(row)

    def repo_by_name(self, name: str) -> Repo | None:
        conn = self.store.connect()
        row = conn.execute("SELECT * FROM history_repos WHERE lower(name) = lower(?)", (name,)).fetchone()
        return _repo(row) if row else None

    def create_repo(self, name: str, path: str | None, github: str | None) -> int:
        """A new repository; `AlreadyExists` when its name, folder or slug is taken."""
        conn = self.store.connect()
        now = time.time()
        try:
            cur = conn.execute(
                "INSERT INTO history_repos (name, path, github, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                (name, path, github, now, now),
            )
        except sqlite3.IntegrityError as exc:
            raise AlreadyExists(
                f"a repository named {name!r} (or at {path or github}) already exists"
            ) from exc
        return int(cur.lastrowid or 0)

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
        return [_repo(r) for r in conn.execute("SELECT * FROM history_repos ORDER BY name")]

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

    # ---------------------------------------------------------------- graph writes

    def reserve_node_ids(self, count: int) -> int:
        """Reserve a block of node ids (first id returned), safe across processes."""
        conn = self.store.connect()
        row = conn.execute(
            "UPDATE history_node_seq SET next = MAX(next, (SELECT COALESCE(MAX(id), 0) + 1"
            " FROM history_nodes)) + ? WHERE id = 1 RETURNING next",
            (count,),
        ).fetchone()
        return int(row[0]) - count

    def node_ids(self, repo_id: int) -> dict[tuple[str, str], int]:
        conn = self.store.connect()
        rows = conn.execute("SELECT kind, key, id FROM history_nodes WHERE repo_id = ?", (repo_id,))
        return {(kind, key): nid for kind, key, nid in rows}

    def insert_nodes(self, rows: Sequence[tuple]) -> None:
        """rows: (id, repo_id, kind, key, label, at)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO history_nodes (id, repo_id, kind, key, label, at) VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )

    def refresh_nodes(self, rows: Sequence[tuple]) -> None:
        """rows: (label, at, id): fill an empty label, keep the latest time."""
        conn = self.store.connect()
        conn.executemany(
            "UPDATE history_nodes SET label = CASE WHEN ?1 != '' THEN ?1 ELSE label END,"
            " at = CASE WHEN ?2 IS NULL THEN at WHEN at IS NULL OR ?2 > at THEN ?2 ELSE at END"
            " WHERE id = ?3",
            rows,
        )

    def insert_commits(self, rows: Sequence[tuple]) -> None:
        """rows: the 18 columns of the first schema, optionally followed by `boundary`, `lossy`."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT OR IGNORE INTO history_commits (node_id, repo_id, sha, parents, author_name,"
            " author_email, authored_at, committer_name, committer_email, committed_at, subject,"
            " message, is_bot, files, added, removed, pr_number, source, boundary, lossy)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [tuple(r) + (0, 0)[: 20 - len(r)] for r in rows],
        )

    def insert_changes(self, rows: Sequence[tuple]) -> None:
        """rows: (commit_id, file_id, status, old_path, added, removed, at)."""
        conn = self.store.connect()
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
            " name = CASE WHEN name = '' THEN excluded.name ELSE name END,"
            " email = COALESCE(email, excluded.email), login = COALESCE(login, excluded.login),"
            " is_bot = MAX(is_bot, excluded.is_bot)",
            rows,
        )

    def known_shas(self, repo_id: int) -> set[str]:
        conn = self.store.connect()
        rows = conn.execute("SELECT sha FROM history_commits WHERE repo_id = ?", (repo_id,))
        return {r[0] for r in rows}

    def commit_parents(self, repo_id: int) -> dict[str, tuple[tuple[str, ...], float]]:
        """sha -> (parent shas, commit time) for every ingested commit."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT sha, parents, committed_at FROM history_commits WHERE repo_id = ?", (repo_id,)
        )
        return {sha: (tuple(parents.split()), at) for sha, parents, at in rows}

    def commit_prs(self, repo_id: int) -> dict[str, int]:
        """sha -> the PR number its subject names, for every ingested commit naming one."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT sha, pr_number FROM history_commits WHERE repo_id = ? AND pr_number IS NOT NULL",
            (repo_id,),
        )
        return {sha: pr for sha, pr in rows}

    def part_of_links(self, repo_id: int) -> set[tuple[int, int]]:
        """(commit node, PR node) of every PART_OF edge stored for the repository."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT e.src, e.dst FROM history_edges e JOIN history_nodes n ON n.id = e.dst"
            " WHERE n.repo_id = ? AND n.kind = 'pr' AND e.rel = 'PART_OF'",
            (repo_id,),
        )
        return {(src, dst) for src, dst in rows}

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
            " merged_at = COALESCE(excluded.merged_at, merged_at),"
            " merge_commit_sha = COALESCE(excluded.merge_commit_sha, merge_commit_sha),"
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

    def retype_node(self, node_id: int, kind: str) -> None:
        conn = self.store.connect()
        conn.execute("UPDATE history_nodes SET kind = ? WHERE id = ?", (kind, node_id))

    # ---------------------------------------------------------------- reads

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
            " SUM(length(parents) > 40), SUM(pr_number IS NOT NULL), SUM(boundary), SUM(lossy)"
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

    def changes(self, repo_id: int, since: float | None = None) -> list[tuple]:
        """(commit_id, file_id, path, added, removed, at, author_id) oldest first."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT ch.commit_id, ch.file_id, f.key, ch.added, ch.removed, ch.at,"
            " (SELECT e.src FROM history_edges e INDEXED BY history_edges_dst WHERE e.dst ="
            "  ch.commit_id AND e.rel = 'AUTHORED' LIMIT 1)"
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

    # ---------------------------------------------------------------- lineage, rewritten history

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
            " ch.at, c.authored_at, (SELECT e.src FROM history_edges e INDEXED BY history_edges_dst"
            "  WHERE e.dst = ch.commit_id AND e.rel = 'AUTHORED' LIMIT 1),"
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
            " JOIN history_nodes o ON o.repo_id = ?1 AND o.kind = 'file' AND o.key = ch.old_path"
            " JOIN history_nodes f ON f.id = ch.file_id WHERE f.repo_id = ?1 AND ch.old_path IS NOT NULL",
            (repo_id,),
        )
        return [(a, b) for a, b in rows]

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

    def linked_items(self, commit_id: int) -> list[tuple[int, str, str, int]]:
        """(node, kind, key, depth) of the PR a commit belongs to and the issues that PR (or the
        commit) closes: the path from a line's commit to the question it answered."""
        conn = self.store.connect()
        rows = conn.execute(
            "WITH pr AS (SELECT e.dst AS id FROM history_edges e WHERE e.src = ?1 AND e.rel = 'PART_OF')"
            " SELECT n.id, n.kind, n.key, 1 FROM pr JOIN history_nodes n ON n.id = pr.id"
            " UNION SELECT n.id, n.kind, n.key, 2 FROM history_edges e JOIN history_nodes n ON n.id = e.dst"
            " WHERE e.rel = 'CLOSES' AND (e.src IN (SELECT id FROM pr) OR e.src = ?1)"
            " ORDER BY 4, 2, 3",
            (commit_id,),
        )
        return [tuple(r) for r in rows]

    def find_node(self, repo_id: int, kind: str, key: str) -> Node | None:
        conn = self.store.connect()
        row = conn.execute(
            "SELECT * FROM history_nodes WHERE repo_id = ? AND kind = ? AND key = ?",
            (repo_id, kind, key),
        ).fetchone()
        return _node(row) if row else None

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
        return [_node(r) for r in rows]

    def find_files_by_suffix(self, repo_id: int, suffix: str) -> list[Node]:
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT * FROM history_nodes WHERE repo_id = ? AND kind = 'file'"
            " AND (key = ? OR key LIKE ? ESCAPE '\\') ORDER BY at DESC, key LIMIT 5",
            (repo_id, suffix, "%/" + _like_escape(suffix)),
        )
        return [_node(r) for r in rows]

    def search_files(self, repo_id: int, text: str, limit: int) -> list[Node]:
        """File nodes whose path holds `text` (any case), the most connected first."""
        conn = self.store.connect()
        rows = conn.execute(
            "SELECT * FROM history_nodes WHERE repo_id = ? AND kind = 'file'"
            " AND lower(key) LIKE ? ESCAPE '\\' ORDER BY degree DESC, key LIMIT ?",
            (repo_id, "%" + _like_escape(text.strip().lower()) + "%", limit),
        )
        return [_node(r) for r in rows]

    def find_people(self, repo_id: int, text: str) -> list[Node]:
        conn = self.store.connect()
        pattern = "%" + _like_escape(text.lower()) + "%"
        rows = conn.execute(
            "SELECT n.* FROM history_nodes n JOIN history_people p ON p.node_id = n.id"
            " WHERE n.repo_id = ? AND (n.key = ? OR lower(p.name) LIKE ? ESCAPE '\\'"
            " OR lower(COALESCE(p.email, '')) LIKE ? ESCAPE '\\'"
            " OR lower(COALESCE(p.login, '')) = ?) ORDER BY n.degree DESC, n.key LIMIT 5",
            (repo_id, text.lower(), pattern, pattern, text.lower().lstrip("@")),
        )
        return [_node(r) for r in rows]

    def path_events(self, repo_id: int, file_id: int) -> list[tuple[float, str, int | None]]:
        """What happened to a path, as (time, event, other file id), oldest first.

        `A` added, `R` renamed here from `other`, `D` deleted, `X` renamed away to `other`. The
        changes table has one row per commit; RENAMED_FROM edges add renames known only from a
        PR's file list.
        """
        conn = self.store.connect()
        rows = conn.execute(
            _PATH_EVENTS,
            (repo_id, file_id),
        ).fetchall()
        return [(at, event, other) for at, event, other in rows if at is not None]

    def last_change(self, file_id: int) -> float | None:
        """The time of the latest commit or PR that modified the path."""
        conn = self.store.connect()
        return conn.execute(
            "SELECT MAX(at) FROM history_edges INDEXED BY history_edges_dst WHERE dst = ? AND rel = 'MODIFIED'",
            (file_id,),
        ).fetchone()[0]

    def file_paths(self, ids: Sequence[int]) -> dict[int, str]:
        conn = self.store.connect()
        rows = conn.execute(f"SELECT id, key FROM history_nodes WHERE id IN ({in_marks(ids)})", list(ids))
        return {nid: key for nid, key in rows}

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

    def file_timeline(self, segments: Sequence[tuple[int, float, float]]) -> list[TimelineEntry]:
        """Every commit, PR and issue behind a file, nearest first, then newest first.

        `segments` are (path node, from, until): the stretches of time each path held the file.
        Depth 1: commits that changed a path inside its stretch and PRs whose file list has it;
        depth 2: the PRs those commits belong to; depth 3: issues and PRs those PRs close or
        mention.
        """
        conn = self.store.connect()
        values = ", ".join("(?, ?, ?)" for _ in segments)
        params: list[Any] = [x for seg in segments for x in seg]
        rows = conn.execute(
            _FILE_TIMELINE.format(values=values),
            params,
        )
        return [TimelineEntry(*r) for r in rows]

    def file_story(
        self, commit_ids: Sequence[int], segments: Sequence[tuple[int, float, float]]
    ) -> list[TimelineEntry]:
        """`file_timeline` for commits already chosen by the lineage walk: those commits, the PRs
        whose file list has one of the paths inside its stretch, and what those lead to."""
        conn = self.store.connect()
        segments = list(segments) or [(0, 0.0, -1.0)]
        values = ", ".join("(?, ?, ?)" for _ in segments)
        params: list[Any] = [x for seg in segments for x in seg]
        params.append(json.dumps(list(commit_ids)))
        rows = conn.execute(_FILE_STORY.format(values=values), params)
        return [TimelineEntry(*r) for r in rows]

    def edges_among(self, ids: Sequence[int]) -> list[tuple[int, int, str]]:
        """(src, dst, rel) of every edge whose two ends are both among `ids`."""
        if not ids:
            return []
        conn = self.store.connect()
        rows = conn.execute(  # a JSON array, not one parameter per id: a walk may reach thousands
            "WITH ids(id) AS (SELECT value FROM json_each(?)) SELECT src, dst, rel FROM history_edges"
            " WHERE src IN (SELECT id FROM ids) AND dst IN (SELECT id FROM ids)",
            (json.dumps(list(ids)),),
        )
        return [(a, b, r) for a, b, r in rows]

    def links_of(
        self, ids: Sequence[int], rels: Sequence[str], until: float | None = None
    ) -> list[tuple[int, int, str, int]]:
        """(node, neighbour, rel, the neighbour's degree) for every edge of these types that
        touches one of `ids`, either way, is not later than `until` and is not a rewritten
        commit's."""
        if not ids or not rels:
            return []
        conn = self.store.connect()
        when = f"(?2 IS NULL OR e.at IS NULL OR e.at <= ?2) AND {_LIVE}"
        rows = conn.execute(
            "WITH ids(id) AS (SELECT value FROM json_each(?1)), rels(r) AS (SELECT value FROM json_each(?3))"
            " SELECT e.src, e.dst, e.rel, n.degree FROM history_edges e JOIN history_nodes n ON n.id = e.dst"
            f" WHERE e.src IN (SELECT id FROM ids) AND e.rel IN (SELECT r FROM rels) AND {when}"
            " UNION ALL SELECT e.dst, e.src, e.rel, n.degree FROM history_edges e INDEXED BY history_edges_dst"
            " JOIN history_nodes n ON n.id = e.src"
            f" WHERE e.dst IN (SELECT id FROM ids) AND e.rel IN (SELECT r FROM rels) AND {when}",
            (json.dumps(list(ids)), until, json.dumps(list(rels))),
        )
        return [(a, b, r, d) for a, b, r, d in rows]

    def commit_people_and_prs(self, ids: Sequence[int]) -> list[tuple[int, int, str]]:
        """(commit, other node, rel) for the authors (AUTHORED) and PRs (PART_OF) of commits."""
        if not ids:
            return []
        conn = self.store.connect()
        rows = conn.execute(
            "WITH ids(id) AS (SELECT value FROM json_each(?1))"
            " SELECT src, dst, rel FROM history_edges WHERE src IN (SELECT id FROM ids) AND rel = 'PART_OF'"
            " UNION ALL SELECT dst, src, rel FROM history_edges INDEXED BY history_edges_dst"
            " WHERE dst IN (SELECT id FROM ids) AND rel = 'AUTHORED'",
            (json.dumps(list(ids)),),
        )
        return [(a, b, r) for a, b, r in rows]

    def nodes(self, ids: Sequence[int]) -> dict[int, Node]:
        if not ids:
            return {}
        conn = self.store.connect()
        rows = conn.execute(f"SELECT * FROM history_nodes WHERE id IN ({in_marks(ids)})", list(ids))
        return {r["id"]: _node(r) for r in rows}

    def review_comments(
        self, repo_id: int, repo_name: str, since: float | None, limit: int | None
    ) -> list[ReviewComment]:
        """Review comments oldest first, each with its PR; `repo_name` names them for the reader."""
        rows = self.store.connect().execute(
            "SELECT c.*, i.number AS pr_number, i.title AS pr_title FROM history_comments c"
            " JOIN history_items i ON i.node_id = c.item_id"
            " WHERE c.repo_id = ? AND c.kind = 'review_comment' AND COALESCE(c.created_at, 0) >= ?"
            " ORDER BY c.created_at, c.id LIMIT ?",
            (repo_id, since or 0, -1 if limit is None else limit),
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


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
