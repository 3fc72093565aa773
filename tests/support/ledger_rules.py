"""The rules of the "ledger" project that the meaning-based selection tests rank.

Two rules a payment task needs (they share no word with the tasks that need them, which is where
keyword selection sends nothing useful) and ten everyday rules that must not outrank them. One
list, so the hybrid, ONNX and stored-vector tests rank the same rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lore.rules import service
from lore.rules.models import Project

PAYMENT_RULES = [
    ("Idempotency keys on money movement",
     "Endpoints that create a payment accept an Idempotency-Key header and answer a repeated key "
     "with the stored response instead of acting again."),
    ("Expand, then contract",
     "Schema changes ship in two steps: add the new table field as nullable, backfill it, and only "
     "then make it required in a later release."),
]  # fmt: skip

EVERYDAY_RULES = [
    ("Commit messages", "Write commit subjects in the imperative mood, under seventy characters."),
    ("Docstrings", "Public functions carry a docstring that says why, not what."),
    ("No print", "Use the structured logger; print statements are not allowed."),
    ("Small functions", "Keep functions under forty lines; extract helpers with clear names."),
    ("Readable names", "Name booleans as questions such as is_ready or has_items."),
    ("Early returns", "Return early instead of nesting conditionals deeply."),
    ("Composition", "Prefer composition over inheritance for sharing behaviour."),
    ("Pure core", "Keep business logic in pure functions with no input or output."),
    ("Feature flags", "Remove a feature flag within two releases of turning it on everywhere."),
    ("Markdown style", "Wrap documentation lines at one hundred characters."),
]


def register_ledger(repo: Path, rules: Sequence[tuple[str, str]] = ()) -> Project:
    """The repository registered as a project, with `rules` (title, text) added in order."""
    project, _ = service.register_project(repo)
    for title, text in rules:
        service.add_rule(project, text, title=title)
    return project
