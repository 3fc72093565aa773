"""Rules: adding one, finding one by id or prefix, listing and grouping a project's rules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lore.core.errors import InvalidInput, NotFound
from lore.core.globs import parse_patterns
from lore.rules.gate.validation import check_rule_fields
from lore.rules.models import SOURCES, Project, Risk, Rule
from lore.rules.scopes import normalize_scope
from lore.rules.store.rules import rules_store


def parse_triggers(value: str | Iterable[str] | None) -> list[str]:
    words = parse_patterns(value if not isinstance(value, str) else value.replace(";", ","))
    return [w.strip().lower() for w in words if w.strip()]


def add_rule(
    project: Project,
    text: str,
    *,
    title: str = "",
    triggers: str | Iterable[str] | None = None,
    always: bool = False,
    scope: object = None,
    status: str = "active",
    source: str = "user",
    auto: bool = False,
    evidence: Sequence[dict[str, Any]] = (),
    tagged: bool | None = None,
    risk: Risk | None = None,
) -> Rule:
    """Store a rule after the outright refusals (hidden characters, HTML comments, length);
    `risk` is the gate's verdict on its text when one was reached (`lore.rules.risk`)."""
    text = text.strip()
    title = (title or "").strip()
    trigger_list = parse_triggers(triggers)
    check_rule_fields(text, title, trigger_list)
    if source not in SOURCES:
        raise InvalidInput(f"unknown rule source {source!r}; one of {', '.join(SOURCES)}")
    if status not in ("active", "pending"):
        raise InvalidInput(f"unknown status {status!r}; active or pending")
    entries = normalize_scope(scope, project.sections, project.path)
    is_tagged = tagged if tagged is not None else bool(title or trigger_list or always)
    return rules_store().insert_rule(
        project.id,
        {
            "text": text,
            "title": title,
            "triggers": trigger_list,
            "always": always,
            "scope": entries,
            "status": status,
            "source": source,
            "auto": auto,
            "tagged": is_tagged,
            "evidence": list(evidence),
            "risk": risk,
        },
    )


ID_PREFIX_MIN = 4  # shorter prefixes match too many rules to be worth guessing


def get_rule(rule_id: str, project: Project | None = None) -> Rule:
    """A rule by its full id or a unique prefix of at least 4 hex characters.

    The one id rule of every interface (CLI review commands, MCP include and tag_rules, the web
    UI): an ambiguous prefix is named with its candidates, an unknown id is said.
    """
    wanted = rule_id.strip().lower()
    store = rules_store()
    rule = store.rule(wanted)
    if rule is not None and (project is None or rule.project_id == project.id):
        return with_risks([rule])[0]
    where = f" in project {project.name!r}" if project else ""
    shown = wanted[:40]
    if not wanted:
        raise InvalidInput("no rule id given")
    if len(wanted) < ID_PREFIX_MIN:
        raise InvalidInput(
            f"{shown!r} is too short for a rule id: give the full id or at least "
            f"{ID_PREFIX_MIN} of its characters"
        )
    matches = store.rules_by_prefix(wanted)
    if project is not None:
        matches = [r for r in matches if r.project_id == project.id]
    if len(matches) == 1:
        return with_risks(matches)[0]
    if len(matches) > 1:
        named = ", ".join(r.id for r in matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise InvalidInput(f"{shown!r} matches {len(matches)} rules{where} ({named}); give more of the id")
    raise NotFound(f"no rule {shown!r}{where}")


def resolve_ids(project: Project, ids: Iterable[str]) -> tuple[list[str], list[str]]:
    """(full ids, one problem line per id that names no single rule of the project)."""
    found: list[str] = []
    problems: list[str] = []
    for raw in ids:
        if not raw or not raw.strip():
            continue
        try:
            rule = get_rule(raw, project)
        except (InvalidInput, NotFound) as exc:
            problems.append(str(exc))
            continue
        if rule.id not in found:
            found.append(rule.id)
    return found, problems


def list_rules(
    project: Project,
    *,
    status: str | None = None,
    auto_only: bool = False,
    source: str | None = None,
    file: str | None = None,
    scope: str | None = None,
) -> list[Rule]:
    """A project's rules, narrowed by status, automatic mark, source (`memorize`, `agent`, ...),
    the instruction file an imported rule came from, and scope (`global`, a section or a glob)."""
    rules = rules_store().rules(project.id, status)
    if auto_only:
        rules = [r for r in rules if r.auto]
    if source:
        if source not in SOURCES:
            raise InvalidInput(f"unknown rule source {source!r}; one of {', '.join(SOURCES)}")
        rules = [r for r in rules if r.source == source]
    if file:
        wanted = file.strip().removeprefix("./")
        rules = [r for r in rules if wanted in r.files() or r.origin == wanted]
    if scope:
        wanted = scope.strip()
        rules = [r for r in rules if wanted in (r.scope_text, *r.scope, *(e.rstrip("/") for e in r.scope))]
    return with_risks(rules)


def with_risks(rules: list[Rule]) -> list[Rule]:
    """The rules, each pending one carrying the gate's verdict on its text: one without a verdict
    yet (written before verdicts were kept, put back to pending, edited) is screened now and its
    verdict stored, so every list and every approval shows it."""
    if not any(r.status == "pending" and r.risk is None for r in rules):
        return rules  # the gate's modules load only when something needs screening
    from lore.rules.risk import ensure_risks

    return ensure_risks(rules)


def by_origin(rules: Iterable[Rule]) -> list[tuple[str, list[Rule]]]:
    """Rules grouped by where they came from (`Rule.origin`), groups in the order first seen."""
    groups: dict[str, list[Rule]] = {}
    for rule in rules:
        groups.setdefault(rule.origin, []).append(rule)
    return list(groups.items())
