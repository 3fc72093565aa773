"""`lore review approve|reject` on many rules at once: several ids, `--file`, or `--all`.

Which rules is decided first and in full (an unknown id refuses the whole command, so nothing
half happens); then one transaction approves or deletes them all, and one summary says how many,
from which files, and which of them the screening gate holds. `--all`, and approving any rule
the gate holds, ask before acting unless `--yes`; without a terminal to ask on, they need `--yes`.
"""

from __future__ import annotations

import sys

import typer

from lore.cli import common
from lore.cli.common import esc, print_json
from lore.cli.review_risk import confirm_held
from lore.core.errors import InvalidInput, LoreError, NotFound
from lore.rules import service
from lore.rules.models import Project, Rule

_DONE = {"approve": "approved", "reject": "rejected (deleted)"}
SHOWN = 10  # rules named one by one in the summary before it only counts


def choose(
    project: Project,
    ids: list[str],
    *,
    file: str | None,
    every: bool,
    source: str | None,
    scope: str | None,
) -> list[Rule]:
    """The rules a bulk command acts on, or a refusal saying what to give instead."""
    if ids and (file or every):
        raise InvalidInput("give rule ids, or --file / --all, not both")
    if ids:
        if source or scope:
            raise InvalidInput("--source and --scope narrow --all or --file; they do not apply to ids")
        chosen: dict[str, Rule] = {}
        for raw in ids:
            rule = service.get_rule(raw, project)  # an unknown id refuses the whole command
            chosen.setdefault(rule.id, rule)
        return list(chosen.values())
    if not (file or every):
        raise InvalidInput("give one or more rule ids, --file SOURCE or --all")
    rules = service.list_rules(project, status="pending", source=source, file=file, scope=scope)
    if file and not rules:
        origins = sorted({r.origin for r in service.list_rules(project, status="pending")})
        known = ", ".join(origins[:5]) + (", ..." if len(origins) > 5 else "") if origins else "none"
        raise NotFound(
            f"no pending rule of {project.name} came from {file!r} (pending rules come from: {known})"
        )
    return rules


def run_bulk(
    project: Project,
    action: str,
    ids: list[str],
    *,
    file: str | None,
    every: bool,
    source: str | None,
    scope: str | None,
    yes: bool,
    as_json: bool,
) -> None:
    """Choose, confirm (for --all), act in one transaction, and report."""
    rules = choose(project, ids, file=file, every=every, source=source, scope=scope)
    if not rules:
        if as_json:
            print_json({"action": action, "count": 0, "rules": [], "by_origin": {}, "held": []})
        else:
            common.console.print("No pending rule matches; nothing changed.", highlight=False)
        return
    if every and not yes:
        _confirm(action, rules)
    elif action == "approve":
        confirm_held(rules, yes=yes)
    done = service.apply_many(action, rules)
    groups = service.by_origin(done)
    held = [r for r in done if r.held]
    if as_json:
        print_json(
            {
                "action": action,
                "count": len(done),
                "rules": [r.id for r in done],
                "by_origin": {origin: len(members) for origin, members in groups},
                "held": [{"id": r.id, "held": r.held, "risk": r.risk.to_dict()} for r in held if r.risk],
            }
        )
        return
    origins = ", ".join(f"{len(members)} from {esc(origin)}" for origin, members in groups)
    common.console.print(f"{_DONE[action]} {len(done)} rule(s): {origins}.", highlight=False)
    if len(done) <= SHOWN:
        for r in done:
            common.console.print(f"  {r.id} {esc(r.label)}", highlight=False)
    if held and action == "approve":
        common.console.print(
            f"warning: {len(held)} of them were held by the screening gate; "
            "read them (`lore review list --details`) and reject any you did not mean:",
            highlight=False,
        )
        for r in held[:SHOWN]:
            common.console.print(f"  {r.id} {esc(r.held)}", highlight=False)


def _confirm(action: str, rules: list[Rule]) -> None:
    groups = service.by_origin(rules)
    held = sum(bool(r.held) for r in rules)
    what = f"{action} {len(rules)} pending rule(s) from {len(groups)} source(s)"
    if held:
        what += f", {held} of them held by the screening gate"
    if not sys.stdin.isatty():
        raise InvalidInput(f"--all would {what}; add --yes to do it without being asked")
    if not typer.confirm(f"{what[0].upper()}{what[1:]}?", default=False):
        raise LoreError("cancelled; nothing changed")
