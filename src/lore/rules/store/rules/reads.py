"""Reads of rules: by id, by prefix, by text, a project's rules, and what changed since a version."""

from __future__ import annotations

from typing import Any

from lore.rules.models import Rule
from lore.rules.store.rules.base import _RULE_COLUMNS, RulesTables, _rule, text_key


class RuleReads(RulesTables):
    """The reads of rules; nothing here writes."""

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
