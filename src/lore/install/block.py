"""The short Lore block in Copilot's instructions file: what Copilot reads every session, written
between two markers so uninstall removes exactly it."""

from __future__ import annotations

import re
from pathlib import Path

from lore.install.changes import FileChange, read_file
from lore.install.state import created_by_lore, pristine

BLOCK_BEGIN = "<!-- lore-install:begin (written by `lore install`; `lore uninstall` removes it) -->"
BLOCK_END = "<!-- lore-install:end -->"
_BLOCK = re.compile(r"\n*<!-- lore-install:begin\b.*?-->.*?<!-- lore-install:end -->\n?", re.S)


def instruction_block(approval: str) -> str:
    """What Copilot reads every session: when to ask Lore, and what saving a rule does."""
    if approval == "manual":
        saving = (
            "Rules you save with `propose_rules` or `record_feedback` wait for the user's "
            "approval; never say a saved rule is active."
        )
    else:
        saving = (
            "Rules you save with `propose_rules` or `record_feedback` are screened: Lore's reply "
            "says which are active and which wait for approval; tell the user in one line."
        )
    return "\n".join(
        [
            BLOCK_BEGIN,
            "## Project rules (Lore)",
            "",
            "- Before editing code in a git repository, call the Lore MCP tool `get_rules` with the files "
            "you will change and one sentence about the change, and follow the rules it returns.",
            "- After your context was reset, call it again with `refresh=true`.",
            "- When the user corrects how you write code, save the correction with `record_feedback`.",
            f"- {saving}",
            BLOCK_END,
            "",
        ]
    )


def plan_block(path: Path, block: str | None) -> FileChange:
    before = read_file(path)
    current = before or ""
    stripped = _BLOCK.sub("\n", current).rstrip("\n")
    stripped = stripped + "\n" if stripped else ""
    if block is None:
        after: str | None = stripped
        if not stripped.strip() and created_by_lore(path):
            after = None
        elif before is not None and BLOCK_END in before:
            after = pristine(path, stripped, lambda text: _BLOCK.sub("\n", text).strip())
    else:
        after = (stripped + "\n" if stripped else "") + block
    if before is None and block is None:
        return FileChange("copilot", path, None, None, "absent")
    if after == before:
        return FileChange("copilot", path, before, after, "unchanged" if block else "absent")
    action = "removed" if block is None else ("added" if BLOCK_END not in current else "updated")
    return FileChange("copilot", path, before, after, action)
