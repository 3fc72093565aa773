"""The rules tables and their migrations, SQLite and PostgreSQL side by side.

Migrations are frozen once released: each data step is self-contained (no application code),
so later changes cannot alter what it did to a store written before them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from lore.core.store.base import Migration


def _trust_in_store(tx: sqlite3.Connection) -> None:
    """Frozen migration 0003: a `trust` table, and the overrides of an old `trust.json` once.

    Only the overrides (the user's own word) are imported: the remembered verdicts in that file
    came from a check a repository could forge, so they are dropped and checked again. The file
    sits next to the store file; it is read, never written or removed. Self-contained: no
    application code, so later changes cannot alter what this step did.
    """
    tx.execute(
        """
        CREATE TABLE trust (
            path TEXT PRIMARY KEY,
            override TEXT CHECK (override IN ('trust', 'untrust')),
            yours INTEGER,
            reason TEXT NOT NULL DEFAULT '',
            evidence TEXT NOT NULL DEFAULT '',
            checked_at REAL,
            recheck_at REAL,
            written_elsewhere REAL,
            elsewhere_folder TEXT NOT NULL DEFAULT ''
        )
        """
    )
    main = [row[2] for row in tx.execute("PRAGMA database_list") if row[1] == "main"]
    if not main or not main[0]:
        return  # an in-memory store has no folder and so no trust.json
    legacy = Path(main[0]).parent / "trust.json"
    try:
        data = json.loads(legacy.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # missing or unreadable: nothing to import
    if not isinstance(data, dict):
        return
    for key, entry in data.items():
        override = entry.get("override") if isinstance(entry, dict) else None
        if isinstance(key, str) and override in ("trust", "untrust"):
            tx.execute("INSERT OR IGNORE INTO trust (path, override) VALUES (?, ?)", (key, override))


def _add_text_keys_0004(conn: sqlite3.Connection) -> None:
    """Frozen data step: a hash of each rule's normalised text, indexed per project.

    It lets the duplicate check inside a save's transaction look up one key instead of reading
    every rule. Not unique: stores written before the check may hold duplicates already.
    """
    conn.execute("ALTER TABLE rules ADD COLUMN text_key TEXT")
    rows = conn.execute("SELECT id, text FROM rules").fetchall()
    conn.executemany(
        "UPDATE rules SET text_key = ? WHERE id = ?",
        [
            (hashlib.sha256(" ".join(str(text).lower().split()).encode("utf-8")).hexdigest(), rid)
            for rid, text in rows
        ],
    )
    conn.execute("CREATE INDEX rules_by_text_key ON rules(project_id, text_key)")


MIGRATIONS = [
    Migration(
        "rules/0001_projects_rules_sessions",
        """
        CREATE TABLE projects (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            path TEXT NOT NULL UNIQUE,
            sections TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL,
            rules_version INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE rules (
            id TEXT PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            triggers TEXT NOT NULL DEFAULT '[]',
            always INTEGER NOT NULL DEFAULT 0,
            scope TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL CHECK (status IN ('active', 'pending')),
            source TEXT NOT NULL,
            auto INTEGER NOT NULL DEFAULT 0,
            tagged INTEGER NOT NULL DEFAULT 0,
            evidence TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            served_count INTEGER NOT NULL DEFAULT 0,
            last_served_at REAL,
            version INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX rules_by_project ON rules(project_id, version);
        CREATE TABLE rule_tombstones (
            rule_id TEXT NOT NULL,
            project_id INTEGER NOT NULL,
            version INTEGER NOT NULL
        );
        CREATE INDEX tombstones_by_project ON rule_tombstones(project_id, version);
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            started_at REAL NOT NULL,
            cwd TEXT,
            client TEXT,
            pid INTEGER
        );
        CREATE TABLE served (
            session_id TEXT NOT NULL,
            rule_id TEXT NOT NULL,
            project_id INTEGER NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (session_id, rule_id)
        );
        CREATE TABLE session_notes (
            session_id TEXT NOT NULL,
            project_id INTEGER NOT NULL,
            note TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (session_id, project_id, note)
        );
        """,
        postgres="""
        CREATE TABLE projects (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            path TEXT NOT NULL UNIQUE,
            sections TEXT NOT NULL DEFAULT '[]',
            created_at DOUBLE PRECISION NOT NULL,
            rules_version BIGINT NOT NULL DEFAULT 0
        );
        CREATE TABLE rules (
            id TEXT PRIMARY KEY,
            project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            triggers TEXT NOT NULL DEFAULT '[]',
            always BIGINT NOT NULL DEFAULT 0,
            scope TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL CHECK (status IN ('active', 'pending')),
            source TEXT NOT NULL,
            auto BIGINT NOT NULL DEFAULT 0,
            tagged BIGINT NOT NULL DEFAULT 0,
            evidence TEXT NOT NULL DEFAULT '[]',
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            served_count BIGINT NOT NULL DEFAULT 0,
            last_served_at DOUBLE PRECISION,
            version BIGINT NOT NULL DEFAULT 0
        );
        CREATE INDEX rules_by_project ON rules(project_id, version);
        CREATE TABLE rule_tombstones (
            rule_id TEXT NOT NULL,
            project_id BIGINT NOT NULL,
            version BIGINT NOT NULL
        );
        CREATE INDEX tombstones_by_project ON rule_tombstones(project_id, version);
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            started_at DOUBLE PRECISION NOT NULL,
            cwd TEXT,
            client TEXT,
            pid BIGINT
        );
        CREATE TABLE served (
            session_id TEXT NOT NULL,
            rule_id TEXT NOT NULL,
            project_id BIGINT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (session_id, rule_id)
        );
        CREATE TABLE session_notes (
            session_id TEXT NOT NULL,
            project_id BIGINT NOT NULL,
            note TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (session_id, project_id, note)
        );
        """,
    ),
    Migration(
        "rules/0002_review_attempts",
        """
        CREATE TABLE review_attempts (
            project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            at REAL NOT NULL,
            ok INTEGER NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX review_attempts_by_project ON review_attempts(project_id, at);
        """,
        postgres="""
        CREATE TABLE review_attempts (
            project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            at DOUBLE PRECISION NOT NULL,
            ok BIGINT NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX review_attempts_by_project ON review_attempts(project_id, at);
        """,
    ),
    # trust never goes to a shared database: each user's verdicts stay in their own file (see
    # `RulesStore.trust_store`), so on PostgreSQL this step only records that it ran
    Migration("rules/0003_trust_in_store", _trust_in_store, postgres="SELECT 1"),
    # the same data step on both: its SQL is portable
    Migration("rules/0004_rule_text_keys", _add_text_keys_0004, postgres=_add_text_keys_0004),
    Migration(
        "rules/0005_rule_vectors",
        """
        CREATE TABLE rule_vectors (
            rule_id TEXT NOT NULL,
            model TEXT NOT NULL,
            text_key TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (rule_id, model)
        );
        """,
        postgres="""
        CREATE TABLE rule_vectors (
            rule_id TEXT NOT NULL,
            model TEXT NOT NULL,
            text_key TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BYTEA NOT NULL,
            PRIMARY KEY (rule_id, model)
        );
        """,
    ),
    # what the screening gate held an imported rule for (risky wording), shown while it waits
    Migration(
        "rules/0006_rule_held",
        "ALTER TABLE rules ADD COLUMN held TEXT NOT NULL DEFAULT ''",
        postgres="ALTER TABLE rules ADD COLUMN held TEXT NOT NULL DEFAULT ''",
    ),
    # the gate's verdict on each rule's text (held or clear), its family and its reason; NULL
    # until screened: rows written before are screened by the gate of the day on first read
    # (`lore.rules.risk`), since a frozen migration cannot run application code like the gate
    Migration(
        "rules/0007_rule_risk",
        """
        ALTER TABLE rules ADD COLUMN risk_verdict TEXT;
        ALTER TABLE rules ADD COLUMN risk_family TEXT NOT NULL DEFAULT '';
        ALTER TABLE rules ADD COLUMN risk_reason TEXT NOT NULL DEFAULT '';
        """,
        postgres="""
        ALTER TABLE rules ADD COLUMN risk_verdict TEXT;
        ALTER TABLE rules ADD COLUMN risk_family TEXT NOT NULL DEFAULT '';
        ALTER TABLE rules ADD COLUMN risk_reason TEXT NOT NULL DEFAULT '';
        """,
    ),
]
