"""The history tables and their migrations, each step on SQLite and on PostgreSQL side by side.

Layer 1 only: facts read from git and the GitHub API. Nodes are per repository
(`UNIQUE (repo_id, kind, key)`), so a walk that starts in one repository stays in it.
Edges carry no foreign keys on purpose: ingest writes hundreds of thousands of them and the
writer guarantees both ends exist.

Migrations are frozen: their names, order and texts stay as they ran on real stores, so a store
made by any earlier version opens and is brought up to date. A new step is appended, never
edited into an old one.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from lore.core.store.base import Migration


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


def _commit_flags_postgres(conn: Any) -> None:
    """`_commit_flags` on PostgreSQL: the same three columns as BIGINT."""
    conn.execute("ALTER TABLE history_commits ADD COLUMN reachable BIGINT NOT NULL DEFAULT 1")
    conn.execute("ALTER TABLE history_commits ADD COLUMN boundary BIGINT NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE history_commits ADD COLUMN lossy BIGINT NOT NULL DEFAULT 0")


# The first schema on SQLite.
_HISTORY_0001_SQLITE = """
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
"""

# The first schema on PostgreSQL. Its graph tables are a copy of `graph_tables_postgres_sql` as it
# stood when history moved, widened by `repo_id` as the SQLite text is: BIGINT ids (the walk's
# recursive CTE needs one type), identity keys for the rowids.
_HISTORY_0001_POSTGRES = """
CREATE TABLE history_repos (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    path TEXT,
    github TEXT,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE history_nodes (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    repo_id BIGINT NOT NULL REFERENCES history_repos (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    at DOUBLE PRECISION,
    degree BIGINT NOT NULL DEFAULT 0,
    UNIQUE (repo_id, kind, key)
);
CREATE TABLE history_edges (
    src BIGINT NOT NULL,
    dst BIGINT NOT NULL,
    rel TEXT NOT NULL,
    at DOUBLE PRECISION,
    position BIGINT,
    PRIMARY KEY (src, dst, rel)
);
CREATE INDEX history_edges_dst ON history_edges (dst, src);
CREATE TABLE history_degrees (
    node_id BIGINT NOT NULL,
    rel TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (node_id, rel)
);
CREATE TABLE history_node_seq (id BIGINT PRIMARY KEY CHECK (id = 1), next BIGINT NOT NULL);
INSERT INTO history_node_seq (id, next) VALUES (1, 1);
CREATE TABLE history_commits (
    node_id BIGINT PRIMARY KEY,
    repo_id BIGINT NOT NULL,
    sha TEXT NOT NULL,
    parents TEXT NOT NULL,
    author_name TEXT NOT NULL,
    author_email TEXT NOT NULL,
    authored_at DOUBLE PRECISION NOT NULL,
    committer_name TEXT NOT NULL,
    committer_email TEXT NOT NULL,
    committed_at DOUBLE PRECISION NOT NULL,
    subject TEXT NOT NULL,
    message TEXT NOT NULL,
    is_bot BIGINT NOT NULL DEFAULT 0,
    files BIGINT NOT NULL DEFAULT 0,
    added BIGINT NOT NULL DEFAULT 0,
    removed BIGINT NOT NULL DEFAULT 0,
    pr_number BIGINT,
    source TEXT NOT NULL DEFAULT 'git',
    UNIQUE (repo_id, sha)
);
CREATE INDEX history_commits_time ON history_commits (repo_id, committed_at);
CREATE TABLE history_changes (
    commit_id BIGINT NOT NULL,
    file_id BIGINT NOT NULL,
    status TEXT NOT NULL,
    old_path TEXT,
    added BIGINT NOT NULL DEFAULT 0,
    removed BIGINT NOT NULL DEFAULT 0,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (commit_id, file_id)
);
CREATE INDEX history_changes_file ON history_changes (file_id, at);
CREATE TABLE history_people (
    node_id BIGINT PRIMARY KEY,
    repo_id BIGINT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    email TEXT,
    login TEXT,
    is_bot BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE history_items (
    node_id BIGINT PRIMARY KEY,
    repo_id BIGINT NOT NULL,
    number BIGINT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('pr', 'issue')),
    title TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL DEFAULT '',
    state TEXT,
    author TEXT,
    author_association TEXT,
    is_bot BIGINT NOT NULL DEFAULT 0,
    created_at DOUBLE PRECISION,
    updated_at DOUBLE PRECISION,
    closed_at DOUBLE PRECISION,
    merged_at DOUBLE PRECISION,
    merge_commit_sha TEXT,
    url TEXT,
    UNIQUE (repo_id, number)
);
CREATE TABLE history_comments (
    id BIGINT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('issue_comment', 'review_comment')),
    repo_id BIGINT NOT NULL,
    item_id BIGINT NOT NULL,
    author TEXT,
    author_association TEXT,
    is_bot BIGINT NOT NULL DEFAULT 0,
    body TEXT NOT NULL DEFAULT '',
    path TEXT,
    line BIGINT,
    diff_hunk TEXT,
    commit_sha TEXT,
    in_reply_to BIGINT,
    created_at DOUBLE PRECISION,
    updated_at DOUBLE PRECISION,
    url TEXT,
    PRIMARY KEY (kind, id)
);
CREATE INDEX history_comments_item ON history_comments (item_id, created_at);
CREATE TABLE history_sync (
    repo_id BIGINT NOT NULL,
    stream TEXT NOT NULL,
    state TEXT NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (repo_id, stream)
);
CREATE TABLE history_locks (
    repo_id BIGINT PRIMARY KEY,
    pid BIGINT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL
);
"""

MIGRATIONS = [
    Migration("history/0001_graph", _HISTORY_0001_SQLITE, postgres=_HISTORY_0001_POSTGRES),
    Migration("history/0002_repo_identity", _unique_repo_identity, postgres=_unique_repo_identity),
    Migration("history/0003_recount_degrees", _recount_degrees, postgres=_recount_degrees),
    Migration("history/0004_commit_flags", _commit_flags, postgres=_commit_flags_postgres),
]
