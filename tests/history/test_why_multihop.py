"""`why` over two hops: a file and a PR named by its words, to the issue that PR closed.

The shape that defeated the first ranking: a busy file (more commits than a provider ranks, so
the walk's list is full of one-hop commits and never reaches a PR), and two PRs with the same
title, only one of which changed the file. The closed issue of the right PR must come first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.history.ingest.github import Thread, ingest_threads
from lore.history.repos import resolve_repo
from lore.history.why.retrieval import POOL
from lore.history.why.service import gather, units
from support.fake_github import FakeGitHub
from support.history_repo import HistoryRepo, lines
from support.history_why import when

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

QUESTION = (
    "Which issue was behind the change to src/cache.py in the pull request 'Bound the buffer in the cache'?"
)


@pytest.fixture
def busy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_EMBED", "hash")
    r = HistoryRepo(tmp_path / "app")
    r.commit("Add the cache", {"src/cache.py": lines(10, "c"), "src/queue.py": lines(10, "q")})  # day 1
    right = r.commit("Bound the buffer in the cache (#7)", {"src/cache.py": lines(12, "c")})  # day 2
    wrong = r.commit("Bound the buffer in the cache (#9)", {"src/queue.py": lines(12, "q")})  # day 3
    for i in range(POOL + 10):  # newer one-line edits: the walk's first POOL items, all one hop away
        r.commit(f"Tune step {i}", {"src/cache.py": lines(12, "c") + f"step {i}\n"})
    gh = FakeGitHub("acme", "app")
    gh.add_issue(6, "Entries pile up under load", body="Memory grows without end.", created_at=when(1.2))
    gh.add_issue(8, "Entries pile up in the queue", body="Memory grows here too.", created_at=when(1.4))
    for number, issue, sha, path, day in ((7, 6, right, "src/cache.py", 2), (9, 8, wrong, "src/queue.py", 3)):
        gh.add_pr(
            number,
            "Bound the buffer in the cache",
            body="Keeps at most a thousand entries.",
            created_at=when(day - 0.5),
            merged_at=when(day),
            merge_commit_sha=sha,
            files=[{"filename": path, "additions": 2}],
        )
        gh.cross_reference(issue, source=number, at=when(day - 0.4))
        gh.close(issue, at=when(day), commit_id=sha)
    gh.stop()
    items = sorted(gh.items.values(), key=lambda i: (i.data["created_at"], i.data["number"]))
    ingest_threads("acme/app", [Thread(i.data, i.pull, i.files, i.review_comments, i.events) for i in items])
    ingest_threads("acme/app", [], clone=r.root)


def test_the_issue_closed_by_the_pr_that_changed_the_file_comes_first(busy: None) -> None:
    report = gather(resolve_repo("acme/app"), QUESTION)
    ranked = units(report.evidence)
    assert "issue:6" in ranked[:3]
    assert "issue:8" not in ranked or ranked.index("issue:6") < ranked.index("issue:8")
    assert ranked.index("pr:7") < ranked.index("pr:9") if "pr:9" in ranked else "pr:7" in ranked
    issue = next(e for e in report.evidence if e.unit == "issue:6")
    assert "links" in issue.via  # it was found through the PR, not by its own words


def test_without_the_file_the_same_words_cannot_tell_the_two_prs_apart(busy: None) -> None:
    """The file is what decides: asked without it, neither issue is preferred for its PR's sake."""
    report = gather(resolve_repo("acme/app"), "Which issue was behind 'Bound the buffer in the cache'?")
    ranked = units(report.evidence)
    assert {"pr:7", "pr:9"} <= set(ranked) and {"issue:6", "issue:8"} <= set(ranked)
