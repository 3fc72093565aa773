"""An unrestricted walk (`max_degree` None) reaches thousands of nodes: its answer must be the
one the repository's own history gives, and the store's work must grow with the nodes and edges
reached, not with their square (the relevance weights once probed every pair of reached ids)."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from lore.core.store.base import Store
from lore.history import queries as q
from lore.history import store as sql
from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

T0 = 1_700_000_000
PEOPLE = [(f"Dev {i}", f"dev{i}@example.com") for i in range(7)]


def _star_repo(root: Path, commits: int) -> dict[str, list[int]]:
    """A real repository written with `git fast-import`: every commit edits `core.py` and one of
    `commits // 3` side files, in turn, by one of seven people. Returns, per side file and per
    person email, the numbers of the commits that touched or were made by it."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    sides = max(commits // 3, 1)
    made: dict[str, list[int]] = {}
    stream: list[str] = []
    for i in range(commits):
        name, email = PEOPLE[i % len(PEOPLE)]
        side = f"side/f{i % sides:04d}.py"
        made.setdefault(side, []).append(i)
        made.setdefault(email, []).append(i)
        message = f"change {i}\n"
        stream.append("commit refs/heads/main\n")
        stream.append(f"author {name} <{email}> {T0 + i * 3600} +0000\n")
        stream.append(f"committer {name} <{email}> {T0 + i * 3600} +0000\n")
        stream.append(f"data {len(message.encode())}\n{message}")
        for path, body in (("core.py", f"core {i}\n"), (side, f"side {i}\n")):
            stream.append(f"M 100644 inline {path}\ndata {len(body.encode())}\n{body}")
        stream.append("\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input="".join(stream).encode(), check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)
    return made


def test_an_unrestricted_walk_matches_the_history_it_walks(tmp_path: Path) -> None:
    commits = 120
    made = _star_repo(tmp_path / "star", commits)
    ingest_git(tmp_path / "star")
    repo = resolve_repo(str(tmp_path / "star"))

    found = q.walk_from(repo, "core.py", depth=2, max_degree=None, limit=None)["results"]

    by_kind: dict[str, dict[str, tuple[int, int]]] = {}
    for r in found:
        by_kind.setdefault(r["kind"], {})[r["key"]] = (r["depth"], r["weight"])
    # every commit edits core.py: one hop, tied to the start by that one edge
    assert len(by_kind["commit"]) == commits
    assert set(by_kind["commit"].values()) == {(1, 1)}
    # two hops: each side file and each person, weighed by the commits that tie it to the start
    sides = {k: v for k, v in made.items() if k.startswith("side/")}
    assert by_kind["file"] == {path: (2, len(ids)) for path, ids in sides.items()}
    people = {r["key"]: r["weight"] for r in found if r["kind"] == "person"}
    emails = {k: len(v) for k, v in made.items() if "@" in k}
    assert sorted(people.values()) == sorted(emails.values())
    assert sum(people.values()) == commits


def _work(store: Store, call) -> int:
    """SQLite virtual-machine steps (in thousands) spent by `call` on this thread's connection:
    a count of the work done, the same on every run, whatever the machine's load."""
    conn = store.connect()
    steps = Counter[str]()

    def tick() -> int:
        steps["k"] += 1
        return 0

    conn.set_progress_handler(tick, 1000)
    try:
        call()
    finally:
        conn.set_progress_handler(None, 0)
    return steps["k"]


def test_an_unrestricted_walk_costs_what_it_reaches(backend: str, tmp_path: Path) -> None:
    if backend != "sqlite":
        pytest.skip("counts SQLite's own steps; the answer itself is checked on both backends")
    store = sql.open_history().store
    work = {}
    reached = {}
    for commits in (150, 600):
        root = tmp_path / f"star{commits}"
        _star_repo(root, commits)
        ingest_git(root)
        repo = resolve_repo(str(root))
        out: dict[str, int] = {}

        def walk(repo=repo, out=out) -> None:
            out["n"] = len(q.walk_from(repo, "core.py", depth=3, max_degree=None, limit=None)["results"])

        work[commits] = _work(store, walk)
        reached[commits] = out["n"]
    # every commit, side file and person is reached ...
    assert reached == {n: n + n // 3 + len(PEOPLE) for n in reached}
    # ... and four times the history costs about four times the work (eight leaves room for
    # the walk's sort); a cost in the square of the nodes reached is twelve times and more
    assert work[600] < 8 * work[150], work
