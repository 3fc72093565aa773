"""A GitHub ingest run: the repository checked and registered under its ingest lock, the issues
stream, the closing keywords, then commits from a clone or the API; and the same writes for
threads already in hand.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from lore.core.errors import InvalidInput
from lore.core.github import (
    DEFAULT_TTL,
    UNAUTHENTICATED_NOTE,
    GitHubClient,
    api_base,
    discover_token,
)
from lore.history import store as sql
from lore.history.ingest.git import head_commit, ingest_git
from lore.history.ingest.github.base import PER_PAGE, SLUG, WRITERS, GitHubIngestReport
from lore.history.ingest.github.commits import api_commits
from lore.history.ingest.github.items import ItemPages
from lore.history.ingest.github.links import keyword_closes
from lore.history.ingest.github.threads import Thread, ThreadWriter
from lore.history.ingest.gitlog import repo_root
from lore.history.ingest.progress import Progress, QuietProgress
from lore.history.repos import ingest_lock, registered
from lore.history.why.index import update_index as index_for_why  # the keyword rows, last


def ingest_github(
    slug: str,
    *,
    max_pages: int | None = None,
    clone: Path | None = None,
    refresh: bool = False,
    progress: Progress | None = None,
    client: GitHubClient | None = None,
    rebuild: bool = False,
) -> GitHubIngestReport:
    """Ingest OWNER/REPO from the GitHub REST API (plus commits from `clone` or the API).

    `rebuild` first deletes everything ingested for the repository (items, comments, links,
    commits, checkpoints; the registration and layer 2 stay) and reads it all again; responses
    still fresh in the HTTP cache cost no request (with `refresh`, each is revalidated)."""
    if not SLUG.match(slug):
        raise InvalidInput(f"not a GitHub repository name: {slug!r} (expected OWNER/REPO)")
    if max_pages is not None and max_pages < 1:
        raise InvalidInput("--max-pages must be at least 1")
    progress = progress or QuietProgress()
    started = time.perf_counter()
    report = GitHubIngestReport(repo=slug)
    own_client = client is None
    if client is None:
        token, source = discover_token()
        report.token = source
        if token is None:
            progress.note(UNAUTHENTICATED_NOTE)
        client = GitHubClient(
            base_url=api_base(),
            token=token,
            store=sql.open_history().store,
            ttl=0 if refresh else DEFAULT_TTL,
            sleep=progress.wait,
        )
    try:
        client.get(f"repos/{slug}")  # fails early and clearly on a wrong name
        clone_root = None
        if clone is not None:
            clone_root = str(repo_root(Path(clone).resolve()))
            head_commit(Path(clone_root))  # refuse an empty clone before registering anything
        with registered(github=slug, clone=clone_root) as repo:
            with ingest_lock(repo):
                if rebuild:
                    with sql.open_history().transaction() as db:
                        db.clear_repo(repo.id)
                ItemPages(client, repo, slug, report, progress).run(max_pages, refresh)
                keyword_closes(repo, slug, report)
                bounded = max_pages is not None
                since, until = report.window if bounded else (None, None)
                if clone_root is not None:
                    report.commits = ingest_git(
                        Path(clone_root), since=since, until=until, progress=progress, repo=repo
                    ).commits_added
            if clone_root is None:
                report.commits = api_commits(client, repo, slug, since, until, max_pages, progress)
            index_for_why(repo)
    finally:
        c = client.counters
        report.requests, report.cache_hits = c.network, c.cache_hits
        report.not_modified, report.waits = c.not_modified, len(c.waits)
        report.seconds = round(time.perf_counter() - started, 3)
        if own_client:
            client.close()
    return report


def ingest_threads(
    slug: str,
    threads: Iterable[Thread],
    *,
    clone: Path | None = None,
    progress: Progress | None = None,
    page_size: int = PER_PAGE,
) -> GitHubIngestReport:
    """Ingest threads already in hand (a saved export of the API, a benchmark's corpus) exactly as
    `ingest_github` writes what it fetches: same rows, links and filters, a page per transaction,
    then the closing keywords and the clone's commits. No request is made, so nothing is cached
    and no GitHub checkpoint is kept."""
    if not SLUG.match(slug):
        raise InvalidInput(f"not a GitHub repository name: {slug!r} (expected OWNER/REPO)")
    progress = progress or QuietProgress()
    started = time.perf_counter()
    report = GitHubIngestReport(repo=slug)
    clone_root = None
    if clone is not None:
        clone_root = str(repo_root(Path(clone).resolve()))
        head_commit(Path(clone_root))
    with registered(github=slug, clone=clone_root) as repo, ingest_lock(repo):
        writer = ThreadWriter(repo, slug, report, progress)
        progress.start("issues and PRs", None)
        for n, thread in enumerate(threads, 1):
            writer.write(thread)
            progress.advance()
            if n % page_size == 0:
                writer.w.flush(WRITERS)
                report.pages += 1
        if report.items % page_size:  # the last, short page
            writer.w.flush(WRITERS)
            report.pages += 1
        keyword_closes(repo, slug, report)
        if clone_root is not None:
            report.commits = ingest_git(Path(clone_root), progress=progress, repo=repo).commits_added
        index_for_why(repo)
    report.seconds = round(time.perf_counter() - started, 3)
    return report
