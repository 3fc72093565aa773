"""`lore install` / `lore uninstall`: register `lore mcp` with each agent client, in its own file.

Only Lore's own entry is touched. A file is rewritten only when its content changes (so a second
run changes nothing), after a timestamped backup under `$LORE_HOME/backups/`. Uninstall writes
the pre-install bytes back when the file, without Lore's entry, still says the same as them, so
the round trip is byte for byte.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from lore.core.config import load_settings, update_settings
from lore.core.errors import InvalidInput
from lore.install.block import BLOCK_END, instruction_block, plan_block
from lore.install.changes import FileChange, InstallReport, apply_changes, read_file, remove_empty_folders
from lore.install.clients import (
    CLIENT_SPECS,
    CLIENTS,
    SERVER_NAME,
    Client,
    choose_clients,
    copilot_instructions_path,
    server_command,
    server_env,
)
from lore.install.entries import is_empty, servers_in, with_entry, without_entry, without_lore
from lore.install.state import created_by_lore, pristine


def install(
    clients: list[str] | None = None, approval: str | None = None, dry_run: bool = False
) -> InstallReport:
    """Register `lore mcp` with the clients and write the approval setting."""
    if approval is not None and approval not in ("auto", "manual"):
        raise InvalidInput(f"--approval must be auto or manual, not {approval!r}")
    chosen, how = choose_clients(clients)
    effective = approval or load_settings().approval
    command, env = server_command(), server_env()
    report = InstallReport(how, command, effective, dry_run=dry_run)
    for client in chosen:
        report.changes.append(_plan(client, functools.partial(with_entry, client, command=command, env=env)))
        if client.name == "copilot":
            report.changes.append(plan_block(copilot_instructions_path(), instruction_block(effective)))
    block_file = copilot_instructions_path()
    if (
        approval is not None
        and "copilot" not in {c.name for c in chosen}
        and BLOCK_END in (read_file(block_file) or "")
    ):
        # the block states the approval setting, so it follows a change made for other clients too
        report.changes.append(plan_block(block_file, instruction_block(effective)))
    if not dry_run:
        apply_changes(report.changes)
        if approval is not None or "approval" not in load_settings().raw:
            update_settings({"approval": effective})
    return report


def uninstall(clients: list[str] | None = None, dry_run: bool = False) -> InstallReport:
    """Remove Lore's entry (and the Copilot block) from the clients; nothing else changes."""
    chosen = [CLIENT_SPECS[n] for n in CLIENTS] if not clients else choose_clients(clients)[0]
    report = InstallReport(
        "all clients" if not clients else "chosen clients",
        server_command(),
        load_settings().approval,
        dry_run=dry_run,
    )
    for client in chosen:
        report.changes.append(_plan(client, functools.partial(without_entry, client), removing=True))
        if client.name == "copilot":
            report.changes.append(plan_block(copilot_instructions_path(), None))
    if not dry_run:
        apply_changes(report.changes)
        report.folders_removed = remove_empty_folders()
    return report


def _plan(client: Client, edit: Callable[[str], str], removing: bool = False) -> FileChange:
    path = client.config()
    before = None
    try:
        before = read_file(path)
        if removing and before is None:
            return FileChange(client.name, path, None, None, "absent")
        after: str | None = edit(before or "")
    except InvalidInput as exc:
        return FileChange(client.name, path, before, before, "error", str(exc))
    if removing and after is not None and created_by_lore(path) and is_empty(client, after):
        after = None  # Lore created this file; leave nothing behind
    elif removing and after is not None and after != before:
        after = pristine(path, after, lambda text: without_lore(client, text))
    if after == before:
        return FileChange(client.name, path, before, after, "absent" if removing else "unchanged")
    action = (
        "removed"
        if removing
        else ("added" if before is None or SERVER_NAME not in servers_in(client, before or "") else "updated")
    )
    return FileChange(client.name, path, before, after, action)
