"""What every room of the rules store stands on: the rule columns, the rows turned into typed
records, the key that makes two rule texts the same rule, and the base class the rooms share.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from lore.core.store.base import Store
from lore.rules.models import Project, Risk, Rule

_IN_BATCH = 500  # ids per IN (...) list, well under every driver's limit on parameters


def text_key(text: str) -> str:
    """What makes two rule texts the same rule: case and runs of whitespace do not count."""
    return hashlib.sha256(" ".join(text.lower().split()).encode("utf-8")).hexdigest()


_RULE_COLUMNS = (
    "id, project_id, text, title, triggers, always, scope, status, source, auto, tagged, "
    "evidence, created_at, updated_at, served_count, last_served_at, risk_verdict, risk_family, risk_reason"
)


def risk_columns(risk: Risk | None) -> tuple[str | None, str, str]:
    """A rule's risk as its three columns (verdict NULL: not screened yet)."""
    if risk is None:
        return None, "", ""
    return risk.verdict, risk.family, risk.reason


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
        risk=Risk(row["risk_verdict"], row["risk_family"], row["risk_reason"])
        if row["risk_verdict"]
        else None,
    )


class RulesTables:
    """The rules tables of one Store: the base of every room of `RulesStore`.

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
