"""`lore history`: the command group, and the options and path handling its parts share.

The group's commands live in its parts (`history_ingest`, `history_queries`, `history_graph`,
`history_lines`, `history_decisions`, `history_why`, `history_owners`: see `cli/lazy.py`), each
imported only when one of its commands is asked for; this module imports no more than an
ingest needs.
"""

from __future__ import annotations

from pathlib import Path

import typer

from lore.history.ingest.gitlog import stored_path
from lore.history.repos import Repo

app = typer.Typer(
    help="Engineering history: a graph of commits, files, PRs, issues and people.",
    no_args_is_help=True,
)

JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of a table.")
REPO_OPT = typer.Option(
    None,
    "--repo",
    "-r",
    help="Ingested repository (name or path); default: the one of this folder, or the only one.",
)
NO_BOTS_OPT = typer.Option(False, "--no-bots", help="Leave out commits by bots (dependabot, renovate...).")
PATH_OPT = typer.Option(
    None, "--path", help="Only files matching this glob (repeatable), e.g. 'src/**/*.py'."
)
SINCE_HELP = "a date, or an age such as 90d counted back from the last commit"
# the history as it stood at a moment: only commits up to it count
UNTIL_OPT = typer.Option(
    None, "--until", help="Count only commits up to this date (the history as it stood then)."
)


def day(value: str | None) -> str:
    """The date of a stored moment, or `-` when there is none."""
    return value[:10] if value else "-"


def clip(body: str, lines: int = 6) -> str:
    """The first `lines` lines of a message body, with `…` when more were cut."""
    kept = body.strip().splitlines()
    return "\n".join(kept[:lines]) + ("\n…" if len(kept) > lines else "")


def in_repo(repo: Repo, path: str) -> str:
    """A path as typed, made relative to the repository when it names a file from this folder
    (`lore history file ./core.py` inside `src/`), in the form the history stores it (bytes
    that are not UTF-8, which a shell passes on as they are, written as `\\xNN`)."""
    if not repo.path or Path(path).is_absolute():
        return stored_path(path)
    here = Path.cwd().resolve()
    candidate = (here / path).resolve()
    root = Path(repo.path)
    if candidate.is_relative_to(root) and (candidate.exists() or here != root):
        return stored_path(candidate.relative_to(root).as_posix())
    return stored_path(path)
