"""The screening gate's verdict on a pending rule, as `lore review` shows it and asks about it.

Every pending rule carries the gate's verdict on its text (`Rule.risk`): `held` rules are marked
in red with the gate's reason, `clear` ones say they passed. Approving a held rule asks first on
a terminal; without one, or to skip the question, it takes `--yes`. Rule texts and reasons are
outside text: they are printed through the terminal-safe consoles with markup escaped.
"""

from __future__ import annotations

import sys

import typer

from lore.cli import common
from lore.cli.common import esc
from lore.core.errors import InvalidInput, LoreError
from lore.rules.models import Rule

SHOWN = 10  # held rules named one by one before the question


def mark(rule: Rule) -> str:
    """The short mark of the status column: `held` or `screened`, for pending rules."""
    if rule.status != "pending" or rule.risk is None:
        return ""
    return "[red]held[/red]" if rule.risk.held else "[dim]screened[/dim]"


def risk_line(rule: Rule) -> str:
    """One line (markup) under a pending rule: the gate's family and reason, or that it passed."""
    if rule.status != "pending" or rule.risk is None:
        return ""
    if rule.risk.held:
        return f"[red]held ({esc(rule.risk.family)}): {esc(rule.risk.reason)}[/red]"
    return f"[dim]screening: {esc(rule.risk.reason)}[/dim]"


def confirm_held(rules: list[Rule], *, yes: bool) -> None:
    """Before approving: when any of the rules is held by the screening gate, ask on a terminal
    (refuse on no), or without one refuse unless `--yes`. Nothing is changed before this."""
    held = [r for r in rules if r.status == "pending" and r.risk is not None and r.risk.held]
    if not held or yes:
        return
    if len(held) == 1:
        what = f"rule {held[0].id} is held by the screening gate ({held[0].risk.family})"  # type: ignore[union-attr]
    else:
        what = f"{len(held)} of these rules are held by the screening gate"
    if not sys.stdin.isatty():
        raise InvalidInput(f"{what}; read it with `lore review show ID`, then add --yes to approve anyway")
    for r in held[:SHOWN]:
        common.console.print(f"{r.id} {esc(r.label)}\n  {risk_line(r)}", highlight=False)
    if not typer.confirm(f"{what[0].upper()}{what[1:]}. Approve anyway?", default=False):
        raise LoreError("cancelled; nothing changed")
