"""Which ingested repository a command means: by name, by path, or the one you stand in."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lore.core.errors import InvalidInput, NotFound
from lore.history import store as sql
from lore.history.gitlog import repo_root


@dataclass(frozen=True)
class Repo:
    id: int
    name: str
    path: str | None
    github: str | None


def _repo(row) -> Repo:
    return Repo(row["id"], row["name"], row["path"], row["github"])


def all_repos() -> list[Repo]:
    return [_repo(r) for r in sql.list_repos(sql.open_history().connect())]


def resolve_repo(choice: str | None = None, cwd: Path | None = None) -> Repo:
    """`--repo NAME|PATH`, else the repository of the current folder, else the only one."""
    conn = sql.open_history().connect()
    rows = sql.list_repos(conn)
    if not rows:
        raise NotFound("no repository ingested yet: run `lore history ingest PATH` first")
    if choice:
        row = sql.find_repo(conn, name=choice, github=choice)
        if row is None and (Path(choice).exists()):
            root = str(repo_root(Path(choice).resolve()))
            row = sql.find_repo(conn, path=root)
        if row is None:
            names = ", ".join(r["name"] for r in rows)
            raise NotFound(f"no ingested repository called {choice!r} (known: {names})")
        return _repo(row)
    here = Path(cwd or os.getcwd())
    try:
        root = str(repo_root(here))
    except InvalidInput:
        root = None
    if root:
        row = sql.find_repo(conn, path=root)
        if row is not None:
            return _repo(row)
    if len(rows) == 1:
        return _repo(rows[0])
    names = ", ".join(r["name"] for r in rows)
    raise InvalidInput(f"several repositories are ingested; pick one with --repo ({names})")


def ensure_repo(*, name: str, path: str | None = None, github: str | None = None) -> Repo:
    """Find the repository by path, GitHub slug or name; create it on first ingest."""
    store = sql.open_history()
    with store.transaction() as conn:
        row = sql.find_repo(conn, path=path, github=github, name=name)
        if row is None:
            sql.create_repo(conn, name, path, github)
        else:
            sql.update_repo(conn, row["id"], path=path, github=github)
        row = sql.find_repo(conn, path=path, github=github, name=name)
    return _repo(row)


@contextmanager
def ingest_lock(repo: Repo) -> Iterator[None]:
    """One ingest per repository at a time; a lock left by a killed process is taken over."""
    store = sql.open_history()
    me = os.getpid()
    with store.transaction() as conn:
        holder = sql.lock_holder(conn, repo.id)
        if holder == me:  # re-entrant: a GitHub ingest reading its clone
            nested = True
        elif holder is not None and _alive(holder):
            raise InvalidInput(f"another ingest of {repo.name} is running (pid {holder})")
        else:
            nested = False
            sql.take_lock(conn, repo.id, me)
    if nested:
        yield
        return
    try:
        yield
    finally:
        with store.transaction() as conn:
            sql.release_lock(conn, repo.id, me)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
