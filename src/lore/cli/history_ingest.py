"""`lore history ingest`: read a repository's history (and its GitHub issues and PRs) into the graph.

An ingest of a small repository costs little more than the `git log` it reads, so what it
imports counts: this module loads neither the query modules of the other `history`
subcommands (the group's other parts, imported only when one of them is asked for) nor rich's
progress machinery unless a person watches a terminal. With stderr a pipe, a file or a log
there is no bar, and the notes are plain lines.
"""

from __future__ import annotations

import re
import shlex
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import typer

from lore.cli.common import echo, handle_errors, print_json, stderr_is_terminal
from lore.cli.history import JSON_OPT
from lore.core.errors import InvalidInput, LoreError, NotFound
from lore.core.terminal import safe_text
from lore.history.ingest.git import ingest_git
from lore.history.ingest.gitlog import repo_root
from lore.history.ingest.progress import Progress
from lore.history.repos import resolve_repo

app = typer.Typer()

_SLUG = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


class _NotesOnly:
    """No bar (nobody would see it, or `--quiet`): only the notes, a plain line each on stderr."""

    total_wanted = False  # so the ingest does not count the commits ahead for a bar

    def start(self, label: str, total: int | None = None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def wait(self, seconds: float, reason: str) -> None:
        time.sleep(max(0.0, seconds))

    def note(self, message: str) -> None:
        echo(f"note: {message}", err=True)


def _progress(quiet: bool) -> AbstractContextManager[Progress]:
    """A bar when a person watches a terminal; elsewhere, or when asked to be quiet, the notes."""
    if quiet or not stderr_is_terminal():
        return nullcontext(_NotesOnly())
    from lore.cli.ingest_bar import RichProgress

    return RichProgress()


@app.command("ingest")
@handle_errors
def ingest(
    target: str = typer.Argument(..., help="A local git repository (PATH) or OWNER/REPO on GitHub."),
    max_pages: int = typer.Option(
        None,
        "--max-pages",
        min=1,
        help="GitHub: read at most N pages of 100 issues/PRs; commits are then pinned to their time window.",
    ),
    clone: Path = typer.Option(
        None, "--clone", help="GitHub: read commits from this local clone instead of the API."
    ),
    since: str = typer.Option(None, "--since", help="Local: only commits after this date."),
    until: str = typer.Option(None, "--until", help="Local: only commits before this date."),
    refresh: bool = typer.Option(
        False,
        "--refresh",
        help="GitHub: revalidate cached responses "
        "(304s are free) and fetch only items updated since last run.",
    ),
    rebuild: bool = typer.Option(
        False, "--rebuild", help="Delete what was ingested for this repository and read it all again."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars."),
    as_json: bool = JSON_OPT,
) -> None:
    """Ingest a repository's history (a second run adds only what is new)."""
    local = Path(target).expanduser()
    if local.exists():
        if max_pages or clone or refresh:
            raise InvalidInput("--max-pages, --clone and --refresh are for OWNER/REPO")
    elif not _SLUG.match(target):
        if "/" in target or target.startswith((".", "~")):  # a path: missing files are exit 3
            raise NotFound(f"no such file or folder: {target} (nor is it OWNER/REPO on GitHub)")
        raise InvalidInput(f"{target!r} is neither a folder nor OWNER/REPO")
    try:
        with _progress(quiet or as_json) as progress:
            if local.exists():
                result = ingest_git(
                    local, since=since, until=until, progress=progress, rebuild=rebuild
                ).as_dict()
                if result["mailmap_changed"]:
                    progress.note(
                        ".mailmap changed since the last ingest: commits read before keep their old"
                        " identities; run `lore history ingest PATH --rebuild` to apply it to all"
                    )
                if result["shallow"]:
                    progress.note(
                        f"shallow clone: history stops at {result['boundary_commits']} boundary commit(s);"
                        " run `git fetch --unshallow`, then ingest again to fill it in"
                    )
            else:  # the GitHub client (httpx) is loaded only for a GitHub ingest
                from lore.history.ingest.github import ingest_github

                result = ingest_github(
                    target,
                    max_pages=max_pages,
                    clone=clone,
                    refresh=refresh,
                    progress=progress,
                    rebuild=rebuild,
                ).as_dict()
    except KeyboardInterrupt:
        echo(_stopped(target, local), err=True)
        raise typer.Exit(130) from None
    if as_json:
        print_json(result)
        return
    _summary(result)


def _summary(result: dict[str, Any]) -> None:
    """What the ingest did, one aligned `name  value` line per counter under a title: plain
    text, so a script can read it and no table renderer is loaded for six lines."""
    rows = [
        (key.replace("_", " "), safe_text(_fmt(value), multiline=False))  # a path is one line
        for key, value in result.items()
        if key != "repo" and (key in _ALWAYS or (value and value != [None, None]))  # 0s say nothing
    ]
    width = max(len(name) for name, _ in rows)
    title = f"Ingested {safe_text(result['repo'], multiline=False)}"
    echo("\n".join([title, *(f"  {name:<{width}}  {value}" for name, value in rows)]))


# the rows an ingest summary always shows; the others only when something happened
_ALWAYS = frozenset({"path", "mode", "commits_added", "items", "commits", "seconds"})


def _stopped(target: str, local: Path) -> str:
    """What an ingest stopped by Ctrl-C kept, and how to go on (what the store holds now)."""
    from lore.history.queries import stats  # only now: the query modules are not an ingest's

    again = f"lore history ingest {shlex.quote(target)}"
    try:
        repo = resolve_repo(str(repo_root(local.resolve())) if local.exists() else target)
        data = stats(repo)
    except LoreError:  # nothing was stored: the repository was not even registered
        return f"stopped: nothing was stored yet; run `{again}` to start again"
    items = sum(data["items_fetched"].values())
    kept = f"{data['commits']:,} commit(s)" + (f" and {items:,} issue(s) and PR(s)" if items else "")
    return (
        f"stopped: {kept} of {repo.name} are stored and kept; run `{again}` again"
        " to read the rest (it goes on from where this run stopped)"
    )


def _fmt(value: Any) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, list):
        return " → ".join(str(v) for v in value)
    return str(value)
