"""What agents were sent: rules by how often they were served, and each rule's last outcome."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from lore.rules.models import Project, Rule
from lore.rules.store.rules import rules_store
from lore.rules.store.sessions import session_store


def usage(project: Project) -> list[Rule]:
    """Active rules by how often agents received them, never-served first."""
    rules = rules_store().rules(project.id, "active")
    return sorted(rules, key=lambda r: (r.served_count, r.last_served_at or 0, r.created_at))


def agent_outcomes(project: Project, limit: int = 500) -> dict[str, dict[str, Any]]:
    """Per rule, the latest thing an agent's session did with it here (activated or left it
    waiting) and why, so the UI can show the gate's reason next to the rule."""
    latest: dict[str, dict[str, Any]] = {}
    for row in session_store().outcomes(project.id, limit):  # newest first
        latest.setdefault(row.rule_id, asdict(row))
    return latest
