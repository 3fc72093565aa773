"""JSON routes of the web UI: each parses its input, calls one rules-service function, answers.

Every route is a plain `def`, so FastAPI runs it in a worker thread; the store gives each thread
its own SQLite connection.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from lore.core.errors import InvalidInput
from lore.rules import service
from lore.rules.gate.trust import TrustState, set_override, trust_state
from lore.rules.models import Project, Rule

router = APIRouter()

ACTIONS = {
    "approve": service.approve,
    "unapprove": service.unapprove,
    "reject": service.reject,
    "pin": lambda rule: service.pin(rule, True),
    "unpin": lambda rule: service.pin(rule, False),
}


class NewRule(BaseModel):
    text: str = Field(max_length=2000)
    title: str = ""
    triggers: str | list[str] | None = None
    always: bool = False
    scope: str | list[str] | None = None


class RuleChanges(BaseModel):
    """Only the fields given are changed; an empty scope makes the rule global."""

    text: str | None = Field(default=None, max_length=2000)
    title: str | None = None
    triggers: str | list[str] | None = None
    always: bool | None = None
    scope: str | list[str] | None = None


class BulkChange(BaseModel):
    """Approve or reject many rules at once: the ids given, or every pending rule imported from
    one file (`file`), in one transaction."""

    action: Literal["approve", "reject"]
    ids: list[str] = Field(default_factory=list, max_length=10_000)
    file: str | None = None


class TrustChange(BaseModel):
    action: Literal["trust", "untrust", "reset"]


class ResolveRequest(BaseModel):
    paths: str | list[str]
    task: str | None = None
    max_tokens: int | None = None


def _trust(state: TrustState) -> dict[str, Any]:
    return {
        "yours": state.yours,
        "reason": state.reason,
        "evidence": state.evidence,
        "override": state.override,
        "label": state.label,
    }


def _project_view(project: Project) -> dict[str, Any]:
    rules = service.list_rules(project)
    counts = {
        "active": sum(r.status == "active" for r in rules),
        "pending": sum(r.status == "pending" for r in rules),
        "auto": sum(r.auto for r in rules),
    }
    return {**project.to_dict(), "trust": _trust(trust_state(project.path)), "counts": counts}


def _rule_view(rule: Rule, agent: dict[str, Any] | None = None) -> dict[str, Any]:
    """A rule as the page shows it; `agent` is what an agent's session last did with it and why."""
    return {**rule.to_dict(), "label": rule.label, "scope_text": rule.scope_text, "agent": agent}


def _split_paths(value: str | list[str]) -> list[str]:
    items = value if isinstance(value, list) else re.split(r"[\n,]", value)
    paths = [p.strip() for p in items if p.strip()]
    if not paths:
        raise InvalidInput("give at least one file of the change")
    return paths


@router.get("/projects")
def projects() -> list[dict[str, Any]]:
    return [_project_view(p) for p in service.list_projects()]


@router.get("/projects/{name}")
def project(name: str) -> dict[str, Any]:
    return _project_view(service.find_project(name))


@router.post("/projects/{name}/trust")
def change_trust(name: str, change: TrustChange) -> dict[str, Any]:
    found = service.find_project(name)
    set_override(found.path, None if change.action == "reset" else change.action)
    return _project_view(found)


@router.get("/projects/{name}/rules")
def rules(
    name: str, status: Literal["active", "pending", "all"] = "all", auto: bool = False
) -> list[dict[str, Any]]:
    found = service.find_project(name)
    chosen = service.list_rules(found, status=None if status == "all" else status, auto_only=auto)
    outcomes = service.agent_outcomes(found)
    return [_rule_view(r, outcomes.get(r.id)) for r in chosen]


@router.post("/projects/{name}/rules")
def add_rule(name: str, new: NewRule) -> dict[str, Any]:
    """A rule the user adds is active at once: they chose it."""
    found = service.find_project(name)
    rule = service.add_rule(
        found,
        new.text,
        title=new.title,
        triggers=new.triggers,
        always=new.always,
        scope=new.scope,
        source="user",
    )
    return _rule_view(rule)


@router.patch("/projects/{name}/rules/{rule_id}")
def edit_rule(name: str, rule_id: str, changes: RuleChanges) -> dict[str, Any]:
    found = service.find_project(name)
    rule = service.get_rule(rule_id, found)
    tags = {
        k: v
        for k, v in (("title", changes.title), ("triggers", changes.triggers), ("always", changes.always))
        if v is not None
    }
    scope = changes.scope
    if scope is not None and not (scope if isinstance(scope, list) else scope.strip()):
        scope = "global"
    edited = service.edit(rule, text=changes.text, scope=scope, project=found, **tags)
    return _rule_view(edited)


@router.post("/projects/{name}/rules/{rule_id}/{action}")
def rule_action(
    name: str, rule_id: str, action: Literal["approve", "unapprove", "reject", "pin", "unpin"]
) -> dict[str, Any]:
    found = service.find_project(name)
    result = ACTIONS[action](service.get_rule(rule_id, found))
    return {"action": action, **_rule_view(result)}


@router.post("/projects/{name}/rules/bulk")
def bulk_action(name: str, change: BulkChange) -> dict[str, Any]:
    """Approve or reject the given rules (or a file's pending rules) in one transaction; an
    unknown id refuses the whole request, so nothing half happens."""
    found = service.find_project(name)
    if bool(change.ids) == bool(change.file):
        raise InvalidInput("give the rules' ids or a file, not both and not neither")
    if change.file:
        chosen = service.list_rules(found, status="pending", file=change.file)
    else:
        chosen = list({r.id: r for r in (service.get_rule(i, found) for i in change.ids)}.values())
    done = service.apply_many(change.action, chosen)
    return {
        "action": change.action,
        "count": len(done),
        "rules": [r.id for r in done],
        "held": [r.id for r in done if r.held],
    }


@router.get("/projects/{name}/usage")
def usage(name: str) -> dict[str, Any]:
    rules = service.usage(service.find_project(name))
    return {
        "rules": [
            {
                "id": r.id,
                "label": r.label,
                "served": r.served_count,
                "last_served_at": r.last_served_at,
                "always": r.always,
                "scope_text": r.scope_text,
            }
            for r in rules
        ],
        "total": len(rules),
        "never_served": sum(r.served_count == 0 for r in rules),
    }


@router.post("/projects/{name}/resolve")
def resolve(name: str, request: ResolveRequest) -> dict[str, Any]:
    """Exactly what an agent would be sent; nothing is recorded as served."""
    found = service.find_project(name)
    reply = service.rules_for_change(
        found, _split_paths(request.paths), task=request.task or None, max_tokens=request.max_tokens
    )
    return reply.to_dict()
