"""Eight processes write rules into one store at the same moment (issue 15.3).

Each worker saves the same shared texts as every other worker plus texts of its own, all under
one session whose activations are limited, and records what it served. Whatever the
interleaving, the duplicate check and the limit hold inside the writing transaction: every text
is stored exactly once, exactly `LIMIT` are active, and no served record or version is lost.
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import make_repo
from lore.rules import service
from lore.rules.propose import add_rule_checked
from lore.rules.store.rules import rules_store
from lore.rules.store.sessions import session_store

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")

WORKERS = 8
SHARED = [f"Name every {word} helper after what it returns" for word in ("date", "money", "user", "path")]
OWN = 6  # texts only one worker saves
LIMIT = 10  # activations the one session may make
SESSION = "race-session"


@dataclass(frozen=True)
class _Verdict:
    activate: bool
    reason: str


def _limited() -> _Verdict:
    """The check a save makes inside its transaction: activate while the session has room."""
    room = session_store().activated_count(SESSION) < LIMIT
    return _Verdict(room, "within the limit" if room else "session limit")


def _writer(n: int, repo: str, env: dict[str, str], barrier, results) -> None:
    os.environ.update(env)
    project = service.project_for_path(repo)
    assert project is not None
    texts = SHARED + [f"Keep module {n}-{k} free of global state" for k in range(OWN)]
    barrier.wait()  # all eight are ready: now they race
    saved = 0
    for text in texts:
        result = add_rule_checked(project, text, decide=_limited, session_id=SESSION)
        saved += not result.known
        rules_store().record_served(f"worker-{n}", project.id, [result.rule.id])
    results.put(saved)


def test_eight_processes_writing_at_once_lose_and_double_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"a.py": "x"})
    project, _ = service.register_project(repo)
    env = {k: v for k, v in os.environ.items() if k.startswith(("LORE_", "GIT_"))}
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(WORKERS), ctx.Queue()
    workers = [
        ctx.Process(target=_writer, args=(n, str(repo), env, barrier, results)) for n in range(WORKERS)
    ]
    for w in workers:
        w.start()
    saved = [results.get(timeout=300) for _ in range(WORKERS)]
    for w in workers:
        w.join(120)
        assert w.exitcode == 0

    rules = service.list_rules(project)
    texts = [r.text for r in rules]
    expected = len(SHARED) + WORKERS * OWN
    assert len(texts) == len(set(texts)) == expected  # nothing doubled, nothing lost
    assert sum(saved) == expected  # each text saved by exactly one worker
    assert sum(r.status == "active" for r in rules) == LIMIT
    assert session_store().activated_count(SESSION) == LIMIT
    # every worker's served record of every rule it touched: one per (worker, rule), none lost
    assert sum(r.served_count for r in rules) == WORKERS * len(SHARED) + WORKERS * OWN
    assert rules_store().rules_version(project.id) == expected  # one version bump per insert
