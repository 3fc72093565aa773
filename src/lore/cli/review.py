"""`lore review --name NAME ...`: the user's side of a project's rules.

Loaded by every `lore review` command, `resolve` above all, which prints plain text: rich (its
tables, markup escaping, the consoles) is imported by the commands that print through it."""

from __future__ import annotations

from pathlib import Path

import typer

from lore.cli import common
from lore.cli.common import echo, esc, handle_errors, print_json
from lore.cli.review_risk import confirm_held, mark, risk_line
from lore.core.dates import local_minute
from lore.core.errors import InvalidInput
from lore.rules import service
from lore.rules.models import Project, Rule

app = typer.Typer(
    help="Review a project's rules: list, show, add, approve, reject, pin, resolve, usage, lint.",
    no_args_is_help=True,
)


@app.callback()
def review(
    ctx: typer.Context,
    name: str = typer.Option(
        None, "--name", "-n", help="Project name (default: the project of this folder)."
    ),
) -> None:
    ctx.obj = {"name": name}


def project_of(ctx: typer.Context) -> Project:
    """The project `--name` chose (or this folder's), for every `review` subcommand."""
    return service.find_project((ctx.obj or {}).get("name"))


def _when(ts: float | None) -> str:
    return local_minute(ts)


_SOURCE_HELP = "Only rules of this source: memorize, discover, learn, agent, feedback, user, trained."
_FILE_HELP = "Only rules imported from this instruction file (a path as `list` shows it)."
_SCOPE_HELP = "Only rules of this scope: global, a section (src/api) or a glob."


@app.command("list")
@handle_errors
def list_cmd(
    ctx: typer.Context,
    auto: bool = typer.Option(False, "--auto", help="Only rules Lore activated by itself."),
    pending: bool = typer.Option(
        False, "--pending", help="Only rules waiting for approval, grouped by the file they came from."
    ),
    source: str = typer.Option(None, "--source", help=_SOURCE_HELP),
    file: str = typer.Option(None, "--file", help=_FILE_HELP),
    scope: str = typer.Option(None, "--scope", help=_SCOPE_HELP),
    details: bool = typer.Option(False, "--details", help="Show tags, source and evidence."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """List the project's rules. Every pending rule shows the screening gate's verdict on its
    text: "held" in red with the family and the reason (risky wording, a meaning that reads like
    an attack, a contradiction with an active rule), or "screened" when it passed; --json gives
    it as "risk": {verdict, family, reason}."""
    project = project_of(ctx)
    rules = service.list_rules(
        project,
        status="pending" if pending else None,
        auto_only=auto,
        source=source,
        file=file,
        scope=scope,
    )
    if as_json:
        print_json([r.to_dict() for r in rules])
        return
    from rich.table import Table

    untagged = sum(not r.tagged for r in rules if r.status == "active")
    table = Table(
        "id", "status", "scope", "rule", "served", title=f"Rules of {project.name}", show_lines=details
    )
    groups = service.by_origin(rules) if pending else [("", rules)]
    for n, (origin, members) in enumerate(groups):
        if origin:
            table.add_row("", "", "", f"[bold]from {esc(origin)}[/bold]: {len(members)} pending", "")
        for r in members:
            table.add_row(
                r.id,
                _status(r),
                esc(r.scope_text),
                _rule_cell(r, details, grouped=bool(origin)),
                str(r.served_count),
            )
        if origin and n < len(groups) - 1:
            table.add_section()
    common.console.print(table)
    held = sum(bool(r.held) for r in rules if r.status == "pending")
    summary = f"{len(rules)} rule(s); {untagged} active rule(s) untagged."
    if held:
        summary += f" {held} pending rule(s) held by the screening gate: read them before approving."
    common.console.print(summary, highlight=False)


def _rule_cell(r: Rule, details: bool, *, grouped: bool) -> str:
    body = f"[bold]{esc(r.label)}[/bold]" + ("" if r.title == "" and not details else f"\n{esc(r.text)}")
    if line := risk_line(r):
        body += "\n" + line
    if r.status == "pending" and not grouped and r.origin != r.source:
        body += f"\n[dim]from {esc(r.origin)}[/dim]"
    if details:
        body += (
            f"\n[dim]triggers: {esc(', '.join(r.triggers)) or '-'} | always: "
            f"{'yes' if r.always else 'no'} | source: {r.source} | tagged: "
            f"{'yes' if r.tagged else 'no'}[/dim]"
        )
        for ev in r.evidence:
            body += f"\n[dim]evidence: {esc(str(ev))}[/dim]"
    return body


def _status(rule: Rule) -> str:
    flags = (" (auto)" if rule.auto else "") + (" (always)" if rule.always else "")
    return rule.status + flags + (f"\n{mark(rule)}" if mark(rule) else "")


@app.command("add")
@handle_errors
def add(
    ctx: typer.Context,
    text: str = typer.Argument(..., help="The rule, at most 500 characters."),
    scope: str = typer.Option(None, "--scope", help="A section (src/api) or file globs ('**/*.ts, *.tsx')."),
    title: str = typer.Option("", "--title", help="A short title (default: the rule's first words)."),
    triggers: str = typer.Option(None, "--triggers", help="Comma-separated trigger words."),
    always: bool = typer.Option(False, "--always", help="Send on every request."),
    force: bool = typer.Option(False, "--force", help="Keep a scope naming a folder the project lacks."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Add a rule; it is active at once because you chose it."""
    check_scope(project_of(ctx), scope, force)
    rule = service.add_rule(
        project_of(ctx), text, title=title, triggers=triggers, always=always, scope=scope, source="user"
    )
    if as_json:
        print_json(rule.to_dict())
    else:
        common.console.print(f"added {rule.id} \\[{esc(rule.scope_text)}] {esc(rule.label)}", highlight=False)


def check_scope(project: Project, scope: str | None, force: bool) -> None:
    """Refuse a scope naming a folder the project does not have (a typo would make the rule
    silently cover nothing), unless `force`; warn about globs no file matches yet."""
    from lore.core.git import ls_files
    from lore.rules.scopes import entry_coverage, normalize_scope

    entries = normalize_scope(scope, project.sections, project.path)
    if not entries:
        return
    files = ls_files(project.path)
    empty = [e for e in entries if not any(entry_coverage(e, f) for f in files)]
    missing = [e for e in empty if e.endswith("/") and not (project.path / e).is_dir()]
    if missing and not force:
        sections = ", ".join(project.sections) or "none"
        raise InvalidInput(
            f"scope {missing[0].rstrip('/')!r} names a folder {project.name} does not have "
            f"(its sections: {sections}); fix the path, or pass --force to keep it"
        )
    for entry in empty:
        if not entry.endswith("/"):
            common.err_console.print(
                f"warning: scope {entry!r} matches no file of {project.name} yet",
                markup=False,
                highlight=False,
            )


def _change(ctx: typer.Context, rule_id: str, action: str, as_json: bool, yes: bool = False) -> None:
    project = project_of(ctx)
    rule = service.get_rule(rule_id, project)
    if action == "approve":
        confirm_held([rule], yes=yes)
    actions = {
        "approve": service.approve,
        "unapprove": service.unapprove,
        "reject": service.reject,
        "pin": lambda r: service.pin(r, True),
        "unpin": lambda r: service.pin(r, False),
    }
    result = actions[action](rule)
    if as_json:
        print_json({"action": action, **result.to_dict()})
        return
    done = {
        "approve": "approved (active)",
        "unapprove": "back to pending",
        "reject": "rejected (deleted)",
        "pin": "pinned (sent on every request)",
        "unpin": "unpinned",
    }[action]
    common.console.print(f"{result.id} {done}: {esc(result.label)}", highlight=False)


def _action_command(action: str, help_text: str) -> None:
    @app.command(action, help=help_text)
    @handle_errors
    def command(
        ctx: typer.Context,
        rule_id: str = typer.Argument(..., metavar="ID", help="Rule id (or a unique prefix)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        _change(ctx, rule_id, action, as_json)


def _bulk_command(action: str, help_text: str) -> None:
    @app.command(action, help=help_text)
    @handle_errors
    def command(
        ctx: typer.Context,
        rule_ids: list[str] = typer.Argument(
            None, metavar="[ID]...", help="Rule ids (or unique prefixes), any number."
        ),
        file: str = typer.Option(None, "--file", help="Every pending rule imported from this file."),
        every: bool = typer.Option(
            False, "--all", help="Every pending rule (narrowed by --source, --scope, --file)."
        ),
        source: str = typer.Option(None, "--source", help=_SOURCE_HELP),
        scope: str = typer.Option(None, "--scope", help=_SCOPE_HELP),
        yes: bool = typer.Option(
            False,
            "--yes",
            "-y",
            help="Do not ask before acting on --all or approving a rule the screening gate holds.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        from lore.cli.review_bulk import run_bulk

        ids = list(rule_ids or [])
        if len(ids) == 1 and not (file or every or source or scope):
            _change(ctx, ids[0], action, as_json, yes)  # one rule: the one-rule reply, as before
            return
        run_bulk(
            project_of(ctx),
            action,
            ids,
            file=file,
            every=every,
            source=source,
            scope=scope,
            yes=yes,
            as_json=as_json,
        )


_bulk_command(
    "approve",
    "Activate rules (clears their automatic mark): give ids, --file SOURCE for every pending rule "
    "imported from one file, or --all for every pending rule (with --source/--scope/--file to "
    "narrow it; asks first unless --yes). Approving a rule the screening gate holds asks first "
    "too (without a terminal it needs --yes). All in one transaction.",
)
_bulk_command(
    "reject",
    "Delete rules: give ids (any status), --file SOURCE for every pending rule imported from one "
    "file, or --all for every pending rule (with --source/--scope/--file; asks first unless "
    "--yes). All in one transaction.",
)
_action_command("unapprove", "Put an active rule back to pending.")
_action_command("pin", "Send a rule on every request (always).")
_action_command("unpin", "Stop sending a rule on every request.")


@app.command("show")
@handle_errors
def show(
    ctx: typer.Context,
    rule_id: str = typer.Argument(..., metavar="ID", help="Rule id (or a unique prefix)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """One rule in full: its text, tags, scope, where it came from and, while it is pending, the
    screening gate's verdict on it with the reason."""
    rule = service.get_rule(rule_id, project_of(ctx))
    if as_json:
        print_json(rule.to_dict())
        return
    lines = [
        f"{rule.id} {_status(rule).replace(chr(10), ' ')}: [bold]{esc(rule.label)}[/bold]",
        esc(rule.text),
    ]
    if line := risk_line(rule):
        lines.append(line)
    lines.append(
        f"[dim]scope: {esc(rule.scope_text)} | triggers: {esc(', '.join(rule.triggers)) or '-'}"
        f" | from: {esc(rule.origin)} | served: {rule.served_count}[/dim]"
    )
    common.console.print("\n".join(lines), highlight=False)


@app.command("resolve")
@handle_errors
def resolve(
    ctx: typer.Context,
    paths: list[str] = typer.Argument(..., help="Files of the change."),
    task: str = typer.Option(None, "--task", help="One sentence about the change."),
    max_tokens: int = typer.Option(None, "--max-tokens", min=100, help="Token cap (at least 100)."),
    mode: str = typer.Option(
        None, "--mode", help="hybrid (words and meaning) or spec (keywords only); default: config."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Exactly what an agent would be sent (never counts as served)."""
    project = project_of(ctx)
    files = [str(Path(p).resolve()) if Path(p).exists() else p for p in paths]
    reply = service.rules_for_change(project, files, task=task, max_tokens=max_tokens, mode=mode)
    if as_json:
        print_json(reply.to_dict())
    else:
        echo(reply.render())


@app.command("usage")
@handle_errors
def usage(
    ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text.")
) -> None:
    """Which active rules agents actually receive, never-served first."""
    project = project_of(ctx)
    rules = service.usage(project)
    if as_json:
        print_json(
            [
                {
                    "id": r.id,
                    "title": r.label,
                    "served": r.served_count,
                    "last_served_at": r.last_served_at,
                    "always": r.always,
                }
                for r in rules
            ]
        )
        return
    from rich.table import Table

    table = Table("id", "served", "last served", "always", "rule", title=f"Usage in {project.name}")
    for r in rules:
        table.add_row(
            r.id, str(r.served_count), _when(r.last_served_at), "yes" if r.always else "", esc(r.label)
        )
    common.console.print(table)
    unused = sum(r.served_count == 0 for r in rules)
    common.console.print(f"{unused} of {len(rules)} active rule(s) never served.", highlight=False)


@app.command("search")
@handle_errors
def search(
    ctx: typer.Context,
    query: str = typer.Argument(..., help="Words to look for."),
    limit: int = typer.Option(10, "--limit", min=1, help="At most N rules."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Search the project's active rules (scope words included)."""
    hits = service.search_rules(project_of(ctx), query, limit)
    if as_json:
        print_json(
            [{**h.rule.to_dict(), "score": round(h.score, 4), "by_meaning": h.by_meaning} for h in hits]
        )
        return
    if hits and hits[0].by_meaning:
        echo("No rule shares a word with the query; the nearest by meaning:")
    echo("\n".join(h.line() for h in hits) or "No matching rules.")


@app.command("trust")
@handle_errors
def trust(
    ctx: typer.Context,
    reset: bool = typer.Option(False, "--reset", help="Forget the override; weigh the evidence again."),
) -> None:
    """Treat the project's repository as yours: agents may activate rules there."""
    from lore.rules.gate.trust import set_override

    project = project_of(ctx)
    state = set_override(project.path, None if reset else "trust")
    common.console.print(f"{esc(project.name)}: {state.label}: {esc(state.reason)}", highlight=False)


@app.command("untrust")
@handle_errors
def untrust(ctx: typer.Context) -> None:
    """Never let agents activate rules in this project by themselves."""
    from lore.rules.gate.trust import set_override

    project = project_of(ctx)
    state = set_override(project.path, "untrust")
    common.console.print(f"{esc(project.name)}: {state.label}: {esc(state.reason)}", highlight=False)
