"""Reviewing rules: approving, rejecting, pinning, tagging and editing them, one or many at once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lore.core.errors import InvalidInput, NotFound
from lore.rules.gate.validation import check_rule_fields
from lore.rules.models import Project, Rule
from lore.rules.scopes import normalize_scope
from lore.rules.service.rules import parse_triggers
from lore.rules.store.rules import rules_store

BULK_ACTIONS = ("approve", "reject")


def apply_many(action: str, rules: Sequence[Rule]) -> list[Rule]:
    """Approve or reject many rules in one transaction: approving activates them and clears the
    automatic mark, rejecting deletes them. Returns the rules as they are now (approve) or were
    (reject); rules deleted meanwhile are left out."""
    ids = [r.id for r in rules]
    if action == "approve":
        return rules_store().set_status_many(ids, "active")
    if action == "reject":
        return rules_store().delete_rules(ids)
    raise InvalidInput(f"unknown action {action!r}; one of {', '.join(BULK_ACTIONS)}")


def approve(rule: Rule) -> Rule:
    """Activate a rule by hand; a person's approval clears the automatic mark."""
    return _update(rule, status="active", auto=False)


def unapprove(rule: Rule) -> Rule:
    return _update(rule, status="pending", auto=False)


def reject(rule: Rule) -> Rule:
    """Delete a rule (pending or active)."""
    removed = rules_store().delete_rule(rule.id)
    if removed is None:
        raise NotFound(f"no rule {rule.id!r}")
    return removed


def pin(rule: Rule, always: bool = True) -> Rule:
    return _update(rule, always=always, tagged=True)


def tag(
    rule: Rule,
    *,
    title: str | None = None,
    triggers: str | Iterable[str] | None = None,
    always: bool | None = None,
) -> Rule:
    """Save an agent's or user's tags: title, trigger words, always."""
    changes: dict[str, Any] = {"tagged": True}
    if title is not None:
        changes["title"] = title.strip()
    if triggers is not None:
        changes["triggers"] = parse_triggers(triggers)
    if always is not None:
        changes["always"] = bool(always)
    check_rule_fields(rule.text, changes.get("title", ""), changes.get("triggers", ()))
    return _update(rule, **changes)


def edit(
    rule: Rule, *, text: str | None = None, scope: object = None, project: Project | None = None, **tags: Any
) -> Rule:
    changes: dict[str, Any] = {}
    if text is not None:
        check_rule_fields(text.strip())
        changes["text"] = text.strip()
        changes["risk"] = None  # a new text: screened again when next read (`with_risks`)
    if scope is not None:
        project = project or rules_store().project_by_id(rule.project_id)
        changes["scope"] = normalize_scope(scope, project.sections, project.path)  # type: ignore[union-attr]
    if changes:
        rule = _update(rule, **changes)
    return tag(rule, **tags) if tags else rule


def _update(rule: Rule, **changes: Any) -> Rule:
    updated = rules_store().update_rule(rule.id, changes)
    if updated is None:
        raise NotFound(f"no rule {rule.id!r}")
    return updated
