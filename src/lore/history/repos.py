"""Which ingested repository a command means: by name, by path, or the one you stand in."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lore.core.errors import InvalidInput, NotFound
from lore.history import store as sql
from lore.history.ingest.gitlog import repo_root
from lore.history.store import HistoryStore
from lore.history.store.records import Repo

__all__ = ["Repo", "all_repos", "ensure_repo", "ingest_lock", "registered", "remove_repo", "resolve_repo"]


def all_repos() -> list[Repo]:
    return sql.open_history().list_repos()


def resolve_repo(choice: str | None = None, cwd: Path | None = None) -> Repo:
    """`--repo NAME|OWNER/REPO|PATH`, else the repository of the current folder, else the only one."""
    db = sql.open_history()
    rows = db.list_repos()
    if not rows:
        raise NotFound("no repository ingested yet: run `lore history ingest PATH` first")
    if choice:
        return _chosen(db, choice, rows)
    here = Path(cwd or os.getcwd())
    try:
        root = str(repo_root(here))
    except InvalidInput:
        root = None
    if root:
        row = db.repo_by_path(root)
        if row is not None:
            return row
    if len(rows) == 1:
        return rows[0]
    names = ", ".join(r.name for r in rows)
    raise InvalidInput(f"several repositories are ingested; pick one with --repo ({names})")


def _chosen(db: HistoryStore, choice: str, rows: list[Repo]) -> Repo:
    """The repository a `--repo` value names; a name and a folder naming two is an error."""
    by_name = db.repo_by_name(choice) or db.repo_by_github(choice)
    by_path = None
    folder = Path(choice).expanduser()
    if folder.exists():
        try:
            by_path = db.repo_by_path(str(repo_root(folder.resolve())))
        except InvalidInput:
            by_path = None
    if by_name is not None and by_path is not None and by_name.id != by_path.id:
        raise InvalidInput(
            f"{choice!r} is the name of {by_name.name} ({by_name.path or by_name.github})"
            f" and the folder of {by_path.name}; use the other's name or a path like ./{choice}"
        )
    row = by_name or by_path
    if row is None:
        names = ", ".join(r.name for r in rows)
        raise NotFound(f"no ingested repository called {choice!r} (known: {names})")
    return row


def remove_repo(repo: Repo) -> None:
    """Forget a repository and everything ingested for it (refused while an ingest runs)."""
    with ingest_lock(repo), sql.open_history().transaction() as db:
        db.remove_repo(repo.id)


@contextmanager
def registered(**identity: str | None) -> Iterator[Repo]:
    """`ensure_repo(**identity)` for an ingest; a repository this ingest registered is forgotten
    again if the ingest fails before storing anything, so a failed run leaves nothing behind."""
    repo, created = ensure_repo(**identity)
    try:
        yield repo
    except BaseException:
        if created:
            with sql.open_history().transaction() as db:
                if db.repo_is_empty(repo.id):
                    db.delete_repo(repo.id)
        raise


def ensure_repo(
    *,
    path: str | None = None,
    origin: str | None = None,
    github: str | None = None,
    clone: str | None = None,
) -> tuple[Repo, bool]:
    """The repository of a local folder (`path`, its GitHub `origin` if any) or of a GitHub slug
    (`github`, with an optional local `clone`), registered on first sight; and whether it is new.

    Identity is the folder for a local ingest and OWNER/REPO for a GitHub one, never the display
    name: two folders called `app` are two repositories (shown as `app` and `app-2`). A clone
    joins the GitHub repository of its origin while that one has no folder, and a GitHub ingest
    with `--clone` joins the clone's repository while that one has no slug.
    """
    if (path is None) == (github is None):
        raise InvalidInput("a repository is a local folder or an OWNER/REPO")
    with sql.open_history().transaction() as db:
        if path is not None:
            row = db.repo_by_path(path)
            if row is None and origin:
                row = db.repo_by_github(origin)
                if row is not None and row.path is not None:
                    row = None  # another clone of the same GitHub repository: its own graph
                elif row is not None:
                    db.set_repo_path(row.id, path)
            if row is None:
                slug = origin if origin and db.repo_by_github(origin) is None else None
                return _create(db, origin or Path(path).name, path, slug), True
            if origin and row.github is None and db.repo_by_github(origin) is None:
                db.set_repo_github(row.id, origin)
            return db.repo_by_id(row.id), False
        assert github is not None
        row = db.repo_by_github(github)
        of_clone = db.repo_by_path(clone) if clone else None
        if of_clone is not None and (row is None or of_clone.id != row.id):
            if row is not None or (of_clone.github or github).lower() != github.lower():
                raise InvalidInput(f"{clone} is already ingested as {of_clone.name}, not as {github}")
            db.set_repo_github(of_clone.id, github)
            return db.repo_by_id(of_clone.id), False
        if row is None:
            return _create(db, github, clone, github), True
        if clone and row.path is None:
            db.set_repo_path(row.id, clone)
        return db.repo_by_id(row.id), False


def _create(db: HistoryStore, base: str, path: str | None, github: str | None) -> Repo:
    repo_id = db.create_repo(_free_name(db, base), path, github)
    return db.repo_by_id(repo_id)


def _free_name(db: HistoryStore, base: str) -> str:
    """`base`, or `base-2`, `base-3`... when another repository already shows that name."""
    name, n = base, 1
    while db.repo_by_name(name) is not None:
        n += 1
        name = f"{base}-{n}"
    return name


@contextmanager
def ingest_lock(repo: Repo) -> Iterator[None]:
    """One ingest per repository at a time; a lock left by a killed process is taken over. On a
    shared database the row names a process of one machine only, so the ingest also holds the
    store's `exclusive` lock, which members on other machines see."""
    store = sql.open_history()
    me = os.getpid()
    with store.transaction() as db:
        holder = db.lock_holder(repo.id)
        if holder == me:  # re-entrant: a GitHub ingest reading its clone
            nested = True
        elif holder is not None and _alive(holder):
            raise InvalidInput(f"another ingest of {repo.name} is running (pid {holder})")
        else:
            nested = False
            db.take_lock(repo.id, me)
    if nested:
        yield
        return
    try:
        with store.store.exclusive(f"history ingest {repo.id}") as mine:
            if not mine:  # a member on another machine, whose process this one cannot see
                raise InvalidInput(f"another ingest of {repo.name} is running on another machine")
            yield
    finally:
        with store.transaction() as db:
            db.release_lock(repo.id, me)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
