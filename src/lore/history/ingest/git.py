"""Local git history -> layer-1 graph: commits, files, people, PRs named in subjects.

No token, no network. One streaming `git log`; rows written in large transactions. The tips
read last time are remembered, so the next run asks git only for commits after them; each batch
also records how far it got, so a run killed half-way is resumed, not read again from the start.
A Ctrl-C stops at the next commit and first writes every commit read, with how far it got
(`ingest.interrupt`), then raises `KeyboardInterrupt`.

After each run every stored commit is marked reachable or not from the repository's refs
(amended, rebased and dropped commits are kept but left out of the answers). A shallow clone is
reported as such; the commits it cuts the history at are stored without their diff (git would
show every file as added there), and once the clone is deepened the next run reads them again
with the history behind them.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lore.core.errors import InvalidInput
from lore.history import store as sql
from lore.history.ingest.git_rows import CommitRows, link_prs
from lore.history.ingest.gitlog import (
    first_parent_line,
    git_output,
    github_slug,
    mailmap_digest,
    origin_url,
    pull_refs,
    reachable_shas,
    read_log,
    repo_root,
    shallow_boundary,
)
from lore.history.ingest.interrupt import deferred_interrupt
from lore.history.ingest.progress import Progress, QuietProgress
from lore.history.ingest.writer import GraphWriter
from lore.history.repos import Repo, ingest_lock, registered
from lore.history.store import HistoryStore
from lore.history.why.index import update_index as index_for_why  # the keyword rows, last
from lore.history.why.symbols import update_symbols  # which commit brought in each identifier

BATCH_COMMITS = 5000
PROGRESS_STEP = 64  # commits read between two updates of the progress bar

WRITERS: dict[str, Callable[[HistoryStore, Any], None]] = {
    "commits": HistoryStore.insert_commits,
    "changes": HistoryStore.insert_changes,
    "people": HistoryStore.upsert_people,
}


@dataclass
class GitIngestReport:
    repo: str
    path: str
    mode: str  # full | incremental | window | rebuild
    commits_added: int
    commits_skipped: int
    nodes_added: int
    edges_added: int
    seconds: float
    shallow: bool = False
    boundary_commits: int = 0
    unreachable_commits: int = 0
    lossy_commits: int = 0
    mailmap: bool = False  # a .mailmap joined identities
    mailmap_changed: bool = False  # since the last run: earlier commits keep the old identities

    def as_dict(self) -> dict:
        return asdict(self)


def ingest_git(
    path: Path,
    *,
    since: str | None = None,
    until: str | None = None,
    progress: Progress | None = None,
    repo: Repo | None = None,
    rebuild: bool = False,
) -> GitIngestReport:
    """Ingest (or top up) the history of the repository at `path`.

    `since`/`until` bound the commits by date (a windowed run, used to keep a bounded GitHub
    ingest in one era); a windowed run does not move the remembered tips. `rebuild` deletes
    what was ingested for the repository first and reads its whole history again.

    A folder inside a repository stands for that repository (as for `git log` run there): its
    whole history is read, and a note names the repository's top folder.
    """
    progress = progress or QuietProgress()
    started = time.perf_counter()
    given = Path(path).resolve()
    root = repo_root(given)
    head = head_commit(root)  # an empty repository is refused before anything is registered
    if given != root:  # git answers for the whole repository a folder is in: say which one
        progress.note(f"reading the repository at {root} (the folder given, {given}, is inside it)")
    if repo is not None:
        return _ingest(root, head, repo, since, until, progress, started, rebuild)
    with registered(path=str(root), origin=github_slug(origin_url(root))) as repo:
        return _ingest(root, head, repo, since, until, progress, started, rebuild)


def _ingest(
    root: Path,
    head: str,
    repo: Repo,
    since: str | None,
    until: str | None,
    progress: Progress,
    started: float,
    rebuild: bool = False,
) -> GitIngestReport:
    store = sql.open_history()
    with ingest_lock(repo):
        if rebuild:
            with store.transaction() as db:
                db.clear_repo(repo.id)
        windowed = bool(since or until)
        boundary = shallow_boundary(root)
        state = store.get_sync(repo.id, "git") or {}
        mailmap = mailmap_digest(root)
        tips = [] if windowed else list(state.get("tips", []))
        deepened = sorted(store.boundary_shas(repo.id) - boundary)
        if deepened:  # the clone was deepened: read those commits again, with what lies behind them
            with store.transaction() as db:
                db.forget_commits(repo.id, deepened)
            tips = []
        if windowed:
            mode, revs = "window", [head]
        elif tips == [head]:
            mode, revs = "incremental", []
        elif tips:
            mode, revs = "incremental", [head] + [f"^{t}" for t in tips]
        else:
            mode, revs = "full", [head]
        total: int | None = 0
        if tips and revs:  # the count also tells whether a remembered tip is still there
            total = _count(root, revs, since, until)
            if total is None:  # a remembered tip is gone (history rewritten): read everything
                revs = [head]
                total = _count(root, revs, since, until) if wants_total(progress) else None
        elif revs:  # a first read: counted only for a bar that shows it
            total = _count(root, revs, since, until) if wants_total(progress) else None
        known = store.known_shas(repo.id)
        # a full read into an empty history stores only HEAD's ancestors: all reachable
        all_reachable = not known and revs == [head] and not windowed
        writer = GraphWriter(store, repo.id)
        ingest = CommitRows(writer, repo.id, boundary)
        progress.start("commits", total)
        added = skipped = lossy = 0
        frontier: set[str] = set(tips) - {head}  # what was read so far, as the tips of a prefix

        def partial(db: HistoryStore) -> None:
            if not windowed:  # git log --topo-order: everything read is closed under parents
                db.set_sync(repo.id, "git", {"tips": sorted(frontier), "head": head, "complete": False})

        counted = 0  # commits shown on the progress bar: it moves as the log is read
        with deferred_interrupt() as stop, _cycles_not_collected():
            for commit in read_log(root, revs, since, until) if revs else ():
                frontier.difference_update(commit.parents)
                frontier.add(commit.sha)
                if commit.sha in known:
                    skipped += 1
                else:
                    ingest.add(commit)
                    known.add(commit.sha)
                    added += 1
                    lossy += commit.lossy
                    if added % BATCH_COMMITS == 0:
                        writer.flush(WRITERS, extra=partial)
                if added + skipped - counted >= PROGRESS_STEP:
                    progress.advance(added + skipped - counted)
                    counted = added + skipped
                if stop.requested:
                    break
            progress.advance(added + skipped - counted)
            writer.flush(WRITERS, extra=partial if revs else None)  # a stop keeps all it read
            if stop.requested:
                raise KeyboardInterrupt
        # after a run that is not windowed every ancestor of HEAD is stored, so the main line
        # is read from the store; a windowed run asks git (it stores only part of the line)
        mainline = first_parent_line(root, head) if windowed else None
        link_prs(writer, store, repo.id, pull_refs(root), mainline, head)
        reachable = None if all_reachable else reachable_shas(root)

        def checkpoint(db: HistoryStore) -> None:
            if not windowed:
                db.set_sync(
                    repo.id,
                    "git",
                    {
                        "tips": [head],
                        "head": head,
                        "complete": True,
                        "shallow": bool(boundary),
                        "mailmap": mailmap,
                        "at": time.time(),
                    },
                )

        writer.flush(WRITERS, extra=checkpoint)
        with store.transaction() as db:
            unreachable = 0 if reachable is None else db.set_reachable(repo.id, reachable)
        if not windowed:  # a window reads part of the history: the first commit may lie outside it
            update_symbols(repo, root, head, boundary, rebuild=rebuild)
    index_for_why(repo)
    return GitIngestReport(
        repo=repo.name,
        path=str(root),
        mode="rebuild" if rebuild else mode,
        commits_added=added,
        commits_skipped=skipped,
        nodes_added=writer.nodes_added,
        edges_added=writer.edges_added,
        seconds=round(time.perf_counter() - started, 3),
        shallow=bool(boundary),
        boundary_commits=len(boundary),
        unreachable_commits=unreachable,
        lossy_commits=lossy,
        mailmap=mailmap is not None,
        mailmap_changed=bool(state.get("tips")) and not rebuild and state.get("mailmap") != mailmap,
    )


@contextmanager
def _cycles_not_collected() -> Iterator[None]:
    """Pause Python's cycle collector while the log is read and written.

    The loop makes a great many small objects (commits, changes, rows) that hold no reference
    cycles: reference counting frees each batch once it is written, and the collector's passes,
    started by nothing but the count of new objects, would free nothing and cost a noticeable
    share of the ingest's own CPU. It runs again as before once the loop is left.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def head_commit(root: Path) -> str:
    """The commit HEAD points at; a repository without commits is refused."""
    try:
        return git_output(root, "rev-parse", "--verify", "HEAD^{commit}").strip()
    except InvalidInput:
        raise InvalidInput(f"{root} has no commits yet") from None


def wants_total(progress: Progress) -> bool:
    """Whether `progress` shows a total (counting costs a walk of the history by git); a
    progress that shows none says so with `total_wanted = False`."""
    return bool(getattr(progress, "total_wanted", True))


def _count(root: Path, revs: list[str], since: str | None, until: str | None) -> int | None:
    args = ["rev-list", "--count"]
    if since:
        args.append(f"--since={since}")
    if until:
        args.append(f"--until={until}")
    try:
        return int(git_output(root, *args, *revs, "--").strip())
    except (InvalidInput, ValueError):
        return None
