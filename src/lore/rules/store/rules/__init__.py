"""All SQL of the rules domain: projects, rules, sessions and what was served.

Every change to a project's rules bumps the project's `rules_version`; each rule row carries the
version of its last change and removals leave a tombstone, so an in-memory index can catch up
with only what changed since it last looked.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lore.core.errors import AlreadyExists, StoreError
from lore.core.home import ensure_home
from lore.core.store.base import DB_NAME, Migration, Store
from lore.core.store.binding import in_marks
from lore.core.store.open import open_store
from lore.rules.models import Project, Rule, TrustRecord


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
]
_IN_BATCH = 500  # ids per IN (...) list, well under every driver's limit on parameters
VECTOR_WAIT_MS = 50  # a cache write never keeps an agent waiting behind another writer


def text_key(text: str) -> str:
    """What makes two rule texts the same rule: case and runs of whitespace do not count."""
    return hashlib.sha256(" ".join(text.lower().split()).encode("utf-8")).hexdigest()


SETUP_PENDING = "*setup*"  # a session id no real session has: marks projects awaiting set-up

_RULE_COLUMNS = (
    "id, project_id, text, title, triggers, always, scope, status, source, auto, tagged, "
    "evidence, created_at, updated_at, served_count, last_served_at, held"
)


def rules_store() -> RulesStore:
    store = open_store()
    store.migrate(MIGRATIONS)
    local = store
    if store.dialect != "sqlite":  # a shared database: trust stays in the user's own file
        local = open_store(ensure_home() / DB_NAME)
        local.migrate(MIGRATIONS)
    return RulesStore(store, trust_store=local)


def _project(row: sqlite3.Row) -> Project:
    return Project(
        id=row["id"],
        name=row["name"],
        path=Path(row["path"]),
        sections=tuple(json.loads(row["sections"])),
        created_at=row["created_at"],
    )


def _rule(row: sqlite3.Row) -> Rule:
    return Rule(
        id=row["id"],
        project_id=row["project_id"],
        text=row["text"],
        title=row["title"],
        triggers=tuple(json.loads(row["triggers"])),
        always=bool(row["always"]),
        scope=tuple(json.loads(row["scope"])),
        status=row["status"],
        source=row["source"],
        auto=bool(row["auto"]),
        tagged=bool(row["tagged"]),
        evidence=tuple(json.loads(row["evidence"])),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        served_count=row["served_count"],
        last_served_at=row["last_served_at"],
        held=row["held"] or "",
    )


class RulesStore:
    """Typed access to the rules tables of one Store.

    `trust_store` holds the trust table: the same store for the embedded file, and the user's
    own file when the rules live in a shared database, because whether a repository is *yours*
    is decided from evidence on your machine (your git identity, your reflog) and must never
    follow another member's verdict or override.
    """

    def __init__(self, store: Store, trust_store: Store | None = None):
        self.store = store
        self.trust_store = trust_store or store

    @property
    def key(self) -> str:
        return str(self.store.path)

    def _conn(self) -> sqlite3.Connection:
        return self.store.connect()

    @contextmanager
    def transaction(self) -> Iterator[RulesStore]:
        """One write transaction (BEGIN IMMEDIATE) over several calls, which join it: every read
        inside sees the latest committed rules and no other writer, in this process or another,
        can slip in between a check and the write it permits."""
        with self.store.transaction():
            yield self

    # -- projects -------------------------------------------------------------------------
    def projects(self) -> list[Project]:
        rows = self._conn().execute("SELECT * FROM projects ORDER BY name")
        return [_project(r) for r in rows]

    def project_by_name(self, name: str) -> Project | None:
        row = self._conn().execute("SELECT * FROM projects WHERE name = ?", (name,)).fetchone()
        return _project(row) if row else None

    def project_by_path(self, path: Path) -> Project | None:
        row = self._conn().execute("SELECT * FROM projects WHERE path = ?", (str(path),)).fetchone()
        return _project(row) if row else None

    def project_by_id(self, project_id: int) -> Project | None:
        row = self._conn().execute("SELECT * FROM projects WHERE id = ?", (project_id,)).fetchone()
        return _project(row) if row else None

    def insert_project(self, name: str, path: Path, sections: Sequence[str]) -> Project:
        """A new project; `AlreadyExists` when its name or path was taken meanwhile."""
        try:
            with self.store.transaction() as tx:
                row = tx.execute(
                    "INSERT INTO projects (name, path, sections, created_at) VALUES (?, ?, ?, ?) RETURNING *",
                    (name, str(path), json.dumps(list(sections)), time.time()),
                ).fetchone()
        except sqlite3.IntegrityError as exc:
            raise AlreadyExists(f"a project named {name!r} or at {path} already exists") from exc
        return _project(row)

    def update_sections(self, project_id: int, sections: Sequence[str]) -> None:
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE projects SET sections = ? WHERE id = ?", (json.dumps(list(sections)), project_id)
            )

    def rules_version(self, project_id: int) -> int:
        row = (
            self._conn().execute("SELECT rules_version FROM projects WHERE id = ?", (project_id,)).fetchone()
        )
        return row[0] if row else 0

    # -- rules ----------------------------------------------------------------------------
    @staticmethod
    def _bump(tx: sqlite3.Connection, project_id: int) -> int:
        tx.execute("UPDATE projects SET rules_version = rules_version + 1 WHERE id = ?", (project_id,))
        return tx.execute("SELECT rules_version FROM projects WHERE id = ?", (project_id,)).fetchone()[0]

    def insert_rule(self, project_id: int, fields: dict[str, Any]) -> Rule:
        return self.insert_rules(project_id, [fields])[0]

    def update_rule(self, rule_id: str, changes: dict[str, Any]) -> Rule | None:
        """Apply column changes (lists/tuples stored as JSON) and bump the project's version."""
        encoded = {
            k: json.dumps(list(v)) if isinstance(v, (list, tuple)) else (int(v) if isinstance(v, bool) else v)
            for k, v in changes.items()
        }
        if "text" in encoded:
            encoded["text_key"] = text_key(str(encoded["text"]))
        with self.store.transaction() as tx:
            row = tx.execute("SELECT project_id FROM rules WHERE id = ?", (rule_id,)).fetchone()
            if not row:
                return None
            version = self._bump(tx, row[0])
            sets = ", ".join(f"{k} = ?" for k in encoded)
            tx.execute(
                f"UPDATE rules SET {sets}, updated_at = ?, version = ? WHERE id = ?",
                (*encoded.values(), time.time(), version, rule_id),
            )
            new = tx.execute(f"SELECT {_RULE_COLUMNS} FROM rules WHERE id = ?", (rule_id,)).fetchone()
        return _rule(new)

    def delete_rule(self, rule_id: str) -> Rule | None:
        with self.store.transaction() as tx:
            row = tx.execute(f"SELECT {_RULE_COLUMNS} FROM rules WHERE id = ?", (rule_id,)).fetchone()
            if not row:
                return None
            version = self._bump(tx, row["project_id"])
            tx.execute("DELETE FROM rules WHERE id = ?", (rule_id,))
            tx.execute("DELETE FROM rule_vectors WHERE rule_id = ?", (rule_id,))
            tx.execute(
                "INSERT INTO rule_tombstones (rule_id, project_id, version) VALUES (?, ?, ?)",
                (rule_id, row["project_id"], version),
            )
        return _rule(row)

    def set_status_many(self, rule_ids: Sequence[str], status: str) -> list[Rule]:
        """Set many rules' status in one transaction (a person approving a file's rules at once),
        clearing the automatic mark; one version bump per project touched."""
        return self._many(
            rule_ids,
            lambda tx, ids, version: tx.execute(
                f"UPDATE rules SET status = ?, auto = 0, updated_at = ?, version = ? WHERE id IN ({in_marks(ids)})",
                (status, time.time(), version, *ids),
            ),
            reread=True,
        )

    def delete_rules(self, rule_ids: Sequence[str]) -> list[Rule]:
        """Delete many rules in one transaction; the rules as they were."""

        def delete(tx: sqlite3.Connection, ids: list[str], version: int) -> None:
            marks = in_marks(ids)
            tx.execute(f"DELETE FROM rules WHERE id IN ({marks})", ids)
            tx.execute(f"DELETE FROM rule_vectors WHERE rule_id IN ({marks})", ids)

        return self._many(rule_ids, delete, reread=False, tombstones=True)

    def _many(
        self,
        rule_ids: Sequence[str],
        change: Callable[[sqlite3.Connection, list[str], int], object],
        *,
        reread: bool,
        tombstones: bool = False,
    ) -> list[Rule]:
        wanted = list(dict.fromkeys(rule_ids))
        if not wanted:
            return []
        before: list[Rule] = []
        with self.store.transaction() as tx:
            for start in range(0, len(wanted), _IN_BATCH):
                chunk = wanted[start : start + _IN_BATCH]
                rows = tx.execute(
                    f"SELECT {_RULE_COLUMNS} FROM rules WHERE id IN ({in_marks(chunk)})", chunk
                ).fetchall()
                before += [_rule(r) for r in rows]
            by_project: dict[int, list[str]] = {}
            for rule in before:
                by_project.setdefault(rule.project_id, []).append(rule.id)
            for project_id, ids in by_project.items():
                version = self._bump(tx, project_id)
                for start in range(0, len(ids), _IN_BATCH):
                    chunk = ids[start : start + _IN_BATCH]
                    change(tx, chunk, version)
                    if tombstones:
                        tx.executemany(
                            "INSERT INTO rule_tombstones (rule_id, project_id, version) VALUES (?, ?, ?)",
                            [(rid, project_id, version) for rid in chunk],
                        )
            if not reread:
                order = {rid: n for n, rid in enumerate(wanted)}
                return sorted(before, key=lambda r: order[r.id])
            after: list[Rule] = []
            for start in range(0, len(wanted), _IN_BATCH):
                chunk = wanted[start : start + _IN_BATCH]
                rows = tx.execute(
                    f"SELECT {_RULE_COLUMNS} FROM rules WHERE id IN ({in_marks(chunk)})", chunk
                ).fetchall()
                after += [_rule(r) for r in rows]
        order = {rid: n for n, rid in enumerate(wanted)}
        return sorted(after, key=lambda r: order[r.id])

    def rule(self, rule_id: str) -> Rule | None:
        row = self._conn().execute(f"SELECT {_RULE_COLUMNS} FROM rules WHERE id = ?", (rule_id,)).fetchone()
        return _rule(row) if row else None

    def rules_with_text(self, project_id: int, text: str) -> list[Rule]:
        """Rules of a project whose text is the same once case and spacing are ignored."""
        rows = self._conn().execute(
            f"SELECT {_RULE_COLUMNS} FROM rules WHERE project_id = ? AND text_key = ? ORDER BY created_at",
            (project_id, text_key(text)),
        )
        return [_rule(r) for r in rows]

    def rules_by_prefix(self, prefix: str) -> list[Rule]:
        if not prefix or any(ch not in "0123456789abcdef" for ch in prefix):
            return []  # ids are lowercase hex: anything else (like `_` or `%`) is no prefix of one
        rows = self._conn().execute(
            f"SELECT {_RULE_COLUMNS} FROM rules WHERE id LIKE ? ORDER BY id", (prefix + "%",)
        )
        return [_rule(r) for r in rows]

    def rules(self, project_id: int, status: str | None = None) -> list[Rule]:
        sql = f"SELECT {_RULE_COLUMNS} FROM rules WHERE project_id = ?"
        args: list[Any] = [project_id]
        if status:
            sql += " AND status = ?"
            args.append(status)
        rows = self._conn().execute(sql + " ORDER BY created_at, id", args)
        return [_rule(r) for r in rows]

    def changes_since(self, project_id: int, version: int) -> tuple[int, list[Rule], list[str]]:
        """(current version, rules changed after `version`, ids removed after `version`)."""
        # one snapshot (inside a save's checks: that transaction's)
        with self.store.snapshot() as conn:
            current = conn.execute(
                "SELECT rules_version FROM projects WHERE id = ?", (project_id,)
            ).fetchone()
            current_version = current[0] if current else 0
            if current_version == version:
                return version, [], []
            rows = conn.execute(
                f"SELECT {_RULE_COLUMNS} FROM rules WHERE project_id = ? AND version > ?",
                (project_id, version),
            ).fetchall()
            gone = conn.execute(
                "SELECT rule_id FROM rule_tombstones WHERE project_id = ? AND version > ?",
                (project_id, version),
            ).fetchall()
        return current_version, [_rule(r) for r in rows], [g[0] for g in gone]

    # -- sessions and serving ---------------------------------------------------------------
    def insert_session(self, session_id: str, cwd: str | None, client: str | None) -> None:
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO sessions (id, started_at, cwd, client, pid) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (session_id, time.time(), cwd, client, os.getpid()),
            )

    def record_served(self, session_id: str, project_id: int, rule_ids: Iterable[str]) -> None:
        ids = list(rule_ids)
        if not ids:
            return
        now = time.time()
        with self.store.transaction() as tx:
            tx.executemany(
                "INSERT INTO served (session_id, rule_id, project_id, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (session_id, rule_id) DO UPDATE SET project_id = excluded.project_id, at = excluded.at",
                [(session_id, rid, project_id, now) for rid in ids],
            )
            tx.executemany(
                "UPDATE rules SET served_count = served_count + 1, last_served_at = ? WHERE id = ?",
                [(now, rid) for rid in ids],
            )

    def notes(self, session_id: str, project_id: int, prefix: str = "") -> set[str]:
        rows = self._conn().execute(
            # case-blind on both engines, as SQLite's LIKE is
            "SELECT note FROM session_notes WHERE session_id = ? AND project_id = ? AND lower(note) LIKE lower(?)",
            (session_id, project_id, prefix + "%"),
        )
        return {r[0] for r in rows}

    def claim_note(self, session_id: str, project_id: int, note: str) -> bool:
        """Record a note as given; True only for the caller that recorded it first."""
        with self.store.transaction() as tx:
            cur = tx.execute(
                "INSERT INTO session_notes (session_id, project_id, note, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (session_id, project_id, note, time.time()),
            )
            return cur.rowcount == 1

    def mark_setup_pending(self, project_id: int) -> None:
        """A project an agent just registered: its next reply in your repository says how to set it up."""
        self.claim_note(SETUP_PENDING, project_id, "setup")

    def setup_pending(self, project_id: int) -> bool:
        """Whether a set-up note still waits for the project (a read: it never waits on a writer)."""
        return bool(self.notes(SETUP_PENDING, project_id, "setup"))

    def take_setup_pending(self, project_id: int) -> bool:
        with self.store.transaction() as tx:
            cur = tx.execute(
                "DELETE FROM session_notes WHERE session_id = ? AND project_id = ? AND note = 'setup'",
                (SETUP_PENDING, project_id),
            )
            return cur.rowcount == 1

    def add_notes(self, session_id: str, project_id: int, notes: Iterable[str]) -> None:
        items = list(notes)
        if not items:
            return
        now = time.time()
        with self.store.transaction() as tx:
            tx.executemany(
                "INSERT INTO session_notes (session_id, project_id, note, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(session_id, project_id, n, now) for n in items],
            )

    # -- trust: the user's overrides and the remembered verdict, keyed by repository folder -------
    def trust(self, path: str) -> TrustRecord | None:
        row = self.trust_store.connect().execute("SELECT * FROM trust WHERE path = ?", (path,)).fetchone()
        if row is None:
            return None
        return TrustRecord(
            path=row["path"],
            override=row["override"],
            yours=None if row["yours"] is None else bool(row["yours"]),
            reason=row["reason"],
            evidence=row["evidence"],
            checked_at=row["checked_at"],
            recheck_at=row["recheck_at"],
            written_elsewhere=row["written_elsewhere"],
            elsewhere_folder=row["elsewhere_folder"],
        )

    def set_trust_override(self, path: str, override: str | None) -> None:
        """Set (`trust` / `untrust`) or clear the override; clearing also forgets the verdict, so
        the evidence is checked again."""
        with self.trust_store.transaction() as tx:
            if override is None:
                tx.execute(
                    "UPDATE trust SET override = NULL, checked_at = NULL, recheck_at = NULL WHERE path = ?",
                    (path,),
                )
            else:
                tx.execute(
                    "INSERT INTO trust (path, override) VALUES (?, ?) "
                    "ON CONFLICT(path) DO UPDATE SET override = excluded.override",
                    (path, override),
                )

    def save_trust_verdict(self, record: TrustRecord, *, wait_ms: int | None = None) -> None:
        """Remember the evidence check's verdict; an override set meanwhile is kept. The
        observation of lines written elsewhere is replaced only by a later date in the same git
        folder, or by any observation about a new folder at that path. `wait_ms`: see
        `Store.transaction`."""
        with self.trust_store.transaction(wait_ms=wait_ms) as tx:
            tx.execute(
                "INSERT INTO trust (path, yours, reason, evidence, checked_at, recheck_at, "
                "written_elsewhere, elsewhere_folder) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(path) DO UPDATE SET yours = excluded.yours, reason = excluded.reason, "
                "evidence = excluded.evidence, checked_at = excluded.checked_at, "
                "recheck_at = excluded.recheck_at, "
                "written_elsewhere = CASE WHEN excluded.written_elsewhere IS NULL "
                "THEN trust.written_elsewhere ELSE excluded.written_elsewhere END, "
                "elsewhere_folder = CASE WHEN excluded.written_elsewhere IS NULL "
                "THEN trust.elsewhere_folder ELSE excluded.elsewhere_folder END",
                (
                    record.path,
                    None if record.yours is None else int(record.yours),
                    record.reason,
                    record.evidence,
                    record.checked_at,
                    record.recheck_at,
                    record.written_elsewhere,
                    record.elsewhere_folder,
                ),
            )

    # -- rule vectors (a cache for hybrid selection) --------------------------------------------
    def rule_vectors(self, model: str, keys: dict[str, str]) -> dict[str, tuple[int, bytes]]:
        """Stored vectors of `model` for the rules given, as {rule id: (dim, float32 bytes)}, only
        where the vector was made from the text whose key is given (an edited rule has none)."""
        if not keys:
            return {}
        out: dict[str, tuple[int, bytes]] = {}
        ids = list(keys)
        conn = self._conn()
        for start in range(0, len(ids), 500):  # SQLite's bound-parameter limit
            chunk = ids[start : start + 500]
            rows = conn.execute(
                f"SELECT rule_id, text_key, dim, vector FROM rule_vectors "
                f"WHERE model = ? AND rule_id IN ({in_marks(chunk)})",
                (model, *chunk),
            )
            for rule_id, key, dim, vector in rows:
                if keys.get(rule_id) == key:
                    out[rule_id] = (int(dim), bytes(vector))
        return out

    def save_rule_vectors(self, model: str, rows: list[tuple[str, str, int, bytes]]) -> None:
        """Keep (rule id, text key, dim, float32 bytes) rows of `model`, replacing older ones. A
        cache, so it never fails a reply: skipped on a read-only or damaged store, or when another
        writer holds the store past VECTOR_WAIT_MS (the next process embeds those rules again)."""
        if not rows or self.store.read_only or self.store.damage is not None:
            return
        try:
            with self.store.transaction(wait_ms=VECTOR_WAIT_MS) as tx:
                tx.executemany(
                    "INSERT INTO rule_vectors (rule_id, model, text_key, dim, vector) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT(rule_id, model) DO UPDATE SET text_key = excluded.text_key, "
                    "dim = excluded.dim, vector = excluded.vector",
                    [(rule_id, model, key, dim, vector) for rule_id, key, dim, vector in rows],
                )
        except StoreError:  # busy past the wait, read-only or damaged: keep nothing this time
            return

    # -- review-feedback attempts (lore learn / learn_from_reviews) ------------------------------
    def record_review_attempt(self, project_id: int, ok: bool, detail: str = "") -> float:
        now = time.time()
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO review_attempts (project_id, at, ok, detail) VALUES (?, ?, ?, ?)",
                (project_id, now, int(ok), detail[:500]),
            )
        return now

    def last_review_attempt(self, project_id: int) -> float | None:
        row = (
            self._conn()
            .execute("SELECT MAX(at) FROM review_attempts WHERE project_id = ?", (project_id,))
            .fetchone()
        )
        return row[0] if row else None

    def insert_rules(self, project_id: int, items: Sequence[dict[str, Any]]) -> list[Rule]:
        """Many rules in one transaction and one version bump (imports of thousands of rules);
        creation times keep the given order."""
        if not items:
            return []
        now = time.time()
        ids: list[str] = []
        with self.store.transaction() as tx:
            version = self._bump(tx, project_id)
            for n, fields in enumerate(items):
                rule_id = secrets.token_hex(4)
                while rule_id in ids or tx.execute("SELECT 1 FROM rules WHERE id = ?", (rule_id,)).fetchone():
                    rule_id = secrets.token_hex(4)
                ids.append(rule_id)
                tx.execute(
                    "INSERT INTO rules (id, project_id, text, title, triggers, always, scope, status,"
                    " source, auto, tagged, evidence, created_at, updated_at, version, text_key, held)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        rule_id,
                        project_id,
                        fields["text"],
                        fields.get("title", ""),
                        json.dumps(list(fields.get("triggers", ()))),
                        int(fields.get("always", False)),
                        json.dumps(list(fields.get("scope", ()))),
                        fields.get("status", "active"),
                        fields.get("source", "user"),
                        int(fields.get("auto", False)),
                        int(fields.get("tagged", False)),
                        json.dumps(list(fields.get("evidence", ()))),
                        fields.get("created_at", now + n * 1e-6),
                        now,
                        version,
                        text_key(fields["text"]),
                        fields.get("held", ""),
                    ),
                )
            rows = [
                tx.execute(f"SELECT {_RULE_COLUMNS} FROM rules WHERE id = ?", (rid,)).fetchone()
                for rid in ids
            ]
        return [_rule(r) for r in rows]
