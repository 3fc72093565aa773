"""Writes of rules: adding, editing, removing and approving, each bumping the project's version.

Every change to a project's rules bumps the project's `rules_version`; each rule row carries the
version of its last change and removals leave a tombstone, so an in-memory index can catch up
with only what changed since it last looked.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any

from lore.core.store.binding import in_marks
from lore.rules.models import Risk, Rule
from lore.rules.store.rules.base import _IN_BATCH, _RULE_COLUMNS, RulesTables, _rule, risk_columns, text_key


class RuleWrites(RulesTables):
    """Rules added, changed and removed, one version bump per project a transaction touches."""

    @staticmethod
    def _bump(tx: sqlite3.Connection, project_id: int) -> int:
        tx.execute("UPDATE projects SET rules_version = rules_version + 1 WHERE id = ?", (project_id,))
        return tx.execute("SELECT rules_version FROM projects WHERE id = ?", (project_id,)).fetchone()[0]

    def insert_rule(self, project_id: int, fields: dict[str, Any]) -> Rule:
        return self.insert_rules(project_id, [fields])[0]

    def update_rule(self, rule_id: str, changes: dict[str, Any]) -> Rule | None:
        """Apply column changes (lists/tuples stored as JSON) and bump the project's version."""
        changes = dict(changes)
        if "risk" in changes:  # None: screen it again (its text changed)
            verdict, family, reason = risk_columns(changes.pop("risk"))
            changes.update(risk_verdict=verdict, risk_family=family, risk_reason=reason)
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

    def set_risks(self, risks: Sequence[tuple[str, Risk]]) -> None:
        """Store the gate's verdict on rules screened after they were written. The rule itself
        is unchanged (no version bump, no new `updated_at`): nothing an agent is sent moves."""
        if not risks:
            return
        with self.store.transaction() as tx:
            tx.executemany(
                "UPDATE rules SET risk_verdict = ?, risk_family = ?, risk_reason = ? WHERE id = ?",
                [(*risk_columns(risk), rule_id) for rule_id, risk in risks],
            )

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
                    " source, auto, tagged, evidence, created_at, updated_at, version, text_key,"
                    " risk_verdict, risk_family, risk_reason)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                        *risk_columns(fields.get("risk")),
                    ),
                )
            rows = [
                tx.execute(f"SELECT {_RULE_COLUMNS} FROM rules WHERE id = ?", (rid,)).fetchone()
                for rid in ids
            ]
        return [_rule(r) for r in rows]
