"""`lore memorize | discover | learn | train | export`: rules from and to files.

Thin commands: each parses its options, calls one service function of `lore.rules` and renders
the report as a table (or `--json`).
"""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from lore.cli.common import console, err_console, existing, handle_errors, print_json
from lore.rules import service
from lore.rules.export import TARGETS, export_rules
from lore.rules.intake.candidates import Candidate
from lore.rules.intake.discover import discover, discover_conventions
from lore.rules.intake.learn import learn, learn_from_reviews
from lore.rules.intake.memorize import memorize
from lore.rules.intake.train import train


def _add(table: Table, *cells: str) -> None:
    """A table row of plain text (rule text may hold `[...]`, which rich would read as markup)."""
    table.add_row(*(escape(str(c)) for c in cells))


def _short(items: list[str], limit: int = 3) -> str:
    shown = "; ".join(items[:limit])
    return shown + (f"; +{len(items) - limit} more" if len(items) > limit else "")


def _candidate_table(title: str, candidates: list[Candidate], status: dict[str, str] | None = None) -> Table:
    table = Table("convention", "rule", "scope", "evidence", *(["saved"] if status else []), title=title)
    for c in candidates:
        ev = c.evidence[0] if c.evidence else {}
        where = ev.get("ratio", "")
        if ev.get("kind") == "config":
            where = f"{ev.get('file')}: {ev.get('setting')}"
        row = [c.kind, c.text, ", ".join(c.scope) or "global", str(where)]
        if status:
            row.append(status.get(c.key, ""))
        _add(table, *row)
    return table


def _feedback_table(title: str, candidates: list[Candidate]) -> Table:
    table = Table("times", "feedback", "scope", "where", title=title)
    for c in candidates:
        where = "; ".join(
            f"#{e.get('pr')} {e.get('file')}:{e.get('line')} ({e.get('author')})" for e in c.evidence[:3]
        )
        _add(
            table,
            str(len(c.evidence)),
            c.text,
            ", ".join(c.scope) or "global",
            where + (f"; +{len(c.evidence) - 3} more" if len(c.evidence) > 3 else ""),
        )
    return table


def register(root: typer.Typer) -> None:
    """Add the file commands at the top level of `lore`."""

    @root.command("memorize")
    @handle_errors
    def memorize_cmd(
        path: Path = typer.Argument(Path("."), help="The repository (or one instruction file)."),
        details: bool = typer.Option(False, "--details", help="List every note and refusal."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        """Import the instruction files of a repository as pending rules.

        Reads AGENTS.md, CLAUDE.md and the Copilot, Cursor, Windsurf and Cline instruction
        files; approve the rules with `lore review`."""
        report = memorize(existing(path))
        if as_json:
            print_json(report.to_dict())
            return
        if not report.files:
            console.print(
                f"No instruction files found in {report.project.path}.", highlight=False, markup=False
            )
            return
        table = Table(
            "file",
            "kind",
            "scope",
            "pieces",
            "new",
            "merged",
            "known",
            "refused",
            title=f"memorize → project {report.project.name}",
        )
        for f in report.files:
            scope = ", ".join(f.scope) or "global"
            if f.skipped:
                _add(table, f.path, f.kind, scope, "-", "-", "-", "-", "-")
                continue
            _add(
                table,
                f.path,
                f.kind,
                scope,
                str(len(f.candidates)),
                str(f.added),
                str(f.merged),
                str(f.repeats),
                str(len(f.refused)),
            )
        console.print(table)
        for f in report.files:
            lines = (
                ([f"skipped: {f.skipped}"] if f.skipped else [])
                + [f"front matter: {p}" for p in f.problems]
                + [f"refused {r}" for r in f.refused]
                + f.notes
            )
            if lines:
                text = "\n  ".join(lines) if details else _short(lines)
                console.print(f"[yellow]{escape(f.path)}[/yellow]: {escape(text)}", highlight=False)
        s = report.saved
        console.print(
            f"{len(s.outcomes)} piece(s): {s.count('new')} new pending rule(s), {s.count('merged')} merged "
            f"into another rule, {s.count('known')} already known, {s.count('refused')} refused. "
            f"Review: lore review --name {report.project.name} list --pending",
            highlight=False,
        )

    @root.command("discover")
    @handle_errors
    def discover_cmd(
        path: Path = typer.Argument(Path("."), help="The repository."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Show the candidates; save nothing."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        """Find the conventions the code follows and save them as pending rules.

        A convention counts when at least 90% of at least 5 files follow it, or when the
        repository's tool configuration declares it."""
        existing(path)
        if dry_run:
            candidates = discover_conventions(path)
            if as_json:
                print_json({"candidates": [c.to_dict() for c in candidates]})
            else:
                console.print(_candidate_table("discover (dry run)", candidates))
            return
        project, candidates, saved = discover(path)
        if as_json:
            print_json(
                {
                    "project": project.name,
                    "candidates": [c.to_dict() for c in candidates],
                    "added": [r.id for r in saved.added],
                    "repeats": saved.repeats,
                }
            )
            return
        added = {r.text for r in saved.added}
        status = {
            c.key: ("new " + next((r.id for r in saved.added if r.text == c.text.strip()), ""))
            if c.text.strip() in added
            else "known"
            for c in candidates
        }
        console.print(_candidate_table(f"discover → project {project.name}", candidates, status))
        console.print(
            f"{len(saved.added)} new pending rule(s), {saved.repeats} already known. "
            f"Review: lore review --name {project.name} list --pending",
            highlight=False,
            markup=False,
        )

    @root.command("learn")
    @handle_errors
    def learn_cmd(
        path: Path = typer.Argument(Path("."), help="The repository (its `origin` is on GitHub)."),
        include_external: bool = typer.Option(
            False, "--include-external", help="Also count comments by people outside the repository."
        ),
        since: str = typer.Option(None, "--since", help="Only comments from this date on (2024-01-31)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Show the grouped feedback; save nothing."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        """Save repeated pull-request review feedback as pending rules.

        Reads PR review comments by owners, members and collaborators (on GitHub) and saves
        the feedback given most often first."""

        def wait(seconds: float, reason: str) -> None:
            err_console.print(f"waiting {seconds:.0f}s: {reason}", highlight=False, markup=False)
            time.sleep(seconds)

        existing(path)
        if dry_run:
            candidates = learn_from_reviews(path, include_external, since, sleep=wait)
            if as_json:
                print_json({"candidates": [c.to_dict() for c in candidates]})
            else:
                console.print(_feedback_table("learn (dry run)", candidates))
            return
        project, candidates, saved = learn(path, include_external, since, sleep=wait)
        if as_json:
            print_json(
                {
                    "project": project.name,
                    "candidates": [c.to_dict() for c in candidates],
                    "added": [r.id for r in saved.added],
                    "merged": len(saved.merged),
                    "repeats": saved.repeats,
                }
            )
            return
        console.print(_feedback_table(f"learn → project {project.name}", candidates))
        console.print(
            f"{len(saved.added)} new pending rule(s), {len(saved.merged)} with new evidence, "
            f"{saved.repeats} already known. Review: lore review --name {project.name} list "
            "--pending --details",
            highlight=False,
            markup=False,
        )

    @root.command("train")
    @handle_errors
    def train_cmd(
        files: list[Path] = typer.Argument(..., help="Markdown or text documents (style guide, design doc)."),
        name: str = typer.Option(None, "--name", "-n", help="Project name (default: this folder's)."),
        scope: str = typer.Option(None, "--scope", help="Scope for every rule (default: global)."),
        force: bool = typer.Option(False, "--force", help="Keep a scope naming a folder the project lacks."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        """Turn your own documents into rules, active at once.

        They are active because you chose them."""
        from lore.cli.review import check_scope

        documents = [existing(f) for f in files]
        project = service.find_project(name)
        check_scope(project, scope, force)
        report = train(project, documents, scope)
        if as_json:
            print_json(report.to_dict())
            return
        table = Table(
            "document",
            "pieces",
            "new",
            "merged",
            "known",
            "refused",
            title=f"train → project {report.project.name}",
        )
        for f in report.files:
            _add(
                table,
                f.path,
                str(len(f.candidates)),
                str(f.added),
                str(f.merged),
                str(f.repeats),
                str(len(f.refused)),
            )
        console.print(table)
        for f in report.files:
            for line in [*f.refused, *f.notes, *(f"front matter: {p}" for p in f.problems)]:
                console.print(f"[yellow]{escape(f.path)}[/yellow]: {escape(line)}", highlight=False)
        console.print(
            f"{len(report.saved.added)} new active rule(s). See: lore review --name "
            f"{report.project.name} list",
            highlight=False,
            markup=False,
        )

    @root.command("export")
    @handle_errors
    def export_cmd(
        name: str = typer.Option(None, "--name", "-n", help="Project name (default: this folder's)."),
        to: str = typer.Option(..., "--to", help=f"Client format: {', '.join(TARGETS)}."),
        out: Path = typer.Option(None, "--out", help="Folder to write under (default: the project root)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        """Write the active rules in a client's format (for clients without MCP).

        The written block is marked as generated; rules that came from the file being
        written are not written into it again."""
        project = service.find_project(name)
        result = export_rules(project, to, out)
        if as_json:
            print_json(result.to_dict())
            return
        for path in result.written:
            console.print(f"wrote     {path}", highlight=False, markup=False)
        for path in result.unchanged:
            console.print(f"unchanged {path}", highlight=False, markup=False)
        for path in result.removed:
            console.print(f"removed   {path}", highlight=False, markup=False)
        left_out = (
            f"; {result.left_out} left out: the client already reads them from its own files"
            if result.left_out
            else ""
        )
        console.print(
            f"{result.rules} active rule(s) of {project.name} exported for {to}{left_out}.",
            highlight=False,
            markup=False,
        )
        if not result.rules and not result.left_out:
            err_console.print("note: no active rules yet; approve some with `lore review approve ID`.")
