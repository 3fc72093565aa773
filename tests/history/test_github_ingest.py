"""GitHub ingest against a real local server: links with the three filters, comments, review
comments, bounded eras, a re-run that costs nothing, and resuming after a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from lore.core.errors import InvalidInput
from lore.core.github import GitHubClient, GitHubError
from lore.history import store as sql
from lore.history.ingest.github import Thread, ingest_github, ingest_threads
from support.fake_github import FakeGitHub
from support.history_graph import graph_snapshot, stale_degrees

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

MERGE = "a" * 40
REFERENCING = "b" * 40


def day(d: int, hh: str = "00:00:00") -> str:
    return f"2024-01-{d:02d}T{hh}Z"


def load(gh: FakeGitHub) -> None:
    gh.add_issue(1, "Crash on start", body="It crashes", user="alice", created_at=day(1))
    gh.add_pr(
        2,
        "Fix crash on start",
        body="Fixes #1",
        user="bob",
        association="MEMBER",
        created_at=day(2),
        merged_at=day(5),
        merge_commit_sha=MERGE,
        files=[
            {"filename": "app.py", "additions": 3},
            {"filename": "core/start.py", "status": "renamed", "previous_filename": "start.py"},
        ],
    )
    gh.add_review_comment(
        2,
        "Please use a context manager here",
        user="carol",
        association="CONTRIBUTOR",
        path="app.py",
        line=3,
        at=day(3),
    )
    first = gh.items[2].review_comments[0]["id"]
    gh.add_review_comment(
        2,
        "Done, thanks",
        user="bob",
        association="OWNER",
        path="app.py",
        line=3,
        at=day(4),
        in_reply_to=first,
    )
    gh.add_issue(3, "Related report", user="dave", created_at=day(3))
    gh.add_comment(1, "Same here", user="dave", association="NONE", at=day(2, "06:00:00"))
    gh.add_comment(
        1, "Stale issue check", user="github-actions[bot]", association="NONE", at=day(2, "07:00:00")
    )
    gh.cross_reference(1, source=2, at=day(2, "12:00:00"))  # PR before the close: CLOSES
    gh.cross_reference(1, source=99, source_repo="someone/tutorial", at=day(3))  # dropped
    gh.cross_reference(1, source=3, at=day(3, "01:00:00"))  # an issue: MENTIONS
    gh.reference(1, sha=REFERENCING, at=day(4))  # a commit of this repo: MENTIONS
    gh.reference(1, sha="c" * 40, at=day(4), repo="someone/fork")  # dropped
    gh.close(1, at=day(5), commit_id=MERGE)
    gh.add_issue(5, "Typo in docs", created_at=day(5, "06:00:00"), closed_at=day(6, "12:00:00"))
    gh.add_pr(4, "Docs", created_at=day(6), merged_at=day(7))
    gh.cross_reference(5, source=4, at=day(7))  # PR after the close: MENTIONS
    gh.add_issue(6, "Slow startup", created_at=day(9), closed_at=day(12))
    gh.add_pr(7, "Speed up startup", created_at=day(10), merged_at=day(11))
    gh.add_pr(8, "Abandoned attempt", created_at=day(10, "01:00:00"), closed_at=day(10, "02:00:00"))
    gh.cross_reference(6, source=7, at=day(10))
    gh.connect(6, at=day(10, "00:00:30"))  # linked through the UI: pairs with PR 7
    gh.cross_reference(6, source=8, at=day(10, "01:30:00"))  # never merged: MENTIONS
    gh.add_issue(9, "Bad default", created_at=day(13), closed_at=day(20))
    gh.add_pr(10, "Change default", body="Resolves #9", created_at=day(14), merged_at=day(19))
    gh.add_commit("1" * 40, "Initial import", at=day(1), files=[{"filename": "start.py"}])
    gh.add_commit(
        MERGE,
        "Fix crash on start (#2)",
        at=day(5),
        parents=["1" * 40],
        files=[{"filename": "app.py", "additions": 3}],
    )
    gh.add_commit(
        "3" * 40, "Much later", at="2024-02-01T00:00:00Z", parents=[MERGE], files=[{"filename": "later.py"}]
    )


@pytest.fixture
def gh(monkeypatch):
    server = FakeGitHub("acme", "widget", per_page=4)
    load(server)
    with server:
        monkeypatch.setenv("LORE_GITHUB_API", server.url)
        yield server


def _links(rel: str) -> set[tuple[str, str]]:
    conn = sql.open_history().store.connect()
    rows = conn.execute(
        "SELECT a.kind || ':' || a.key, b.kind || ':' || b.key FROM history_edges e"
        " JOIN history_nodes a ON a.id = e.src JOIN history_nodes b ON b.id = e.dst"
        " WHERE e.rel = ?",
        (rel,),
    )
    return {(a, b) for a, b in rows}


def test_timeline_links_with_three_filters(gh: FakeGitHub) -> None:
    report = ingest_github("acme/widget")
    assert (report.items, report.prs, report.issues, report.pages) == (10, 5, 5, 3)
    closes = _links("CLOSES")
    assert closes == {("pr:2", "issue:1"), ("pr:7", "issue:6"), ("pr:10", "issue:9")}
    assert report.keyword_closes == 1  # only #10 needed the keyword fallback
    mentions = _links("MENTIONS")
    assert ("issue:3", "issue:1") in mentions
    assert ("pr:4", "issue:5") in mentions  # the reference came after the close
    assert ("pr:8", "issue:6") in mentions  # never merged
    assert (f"commit:{REFERENCING}", "issue:1") in mentions
    assert not any("99" in a for a, _b in mentions | closes)
    assert report.dropped_cross_repo == 2
    # PR files, the rename inside a merged PR, the merge commit
    modified = _links("MODIFIED")
    assert {("pr:2", "file:app.py"), ("pr:2", "file:core/start.py")} <= modified
    assert ("file:core/start.py", "file:start.py") in _links("RENAMED_FROM")
    assert (f"commit:{MERGE}", "pr:2") in _links("PART_OF")
    # comments from the timeline, review comments with their association, bots marked
    assert ("person:@dave", "issue:1") in _links("COMMENTED_ON")
    conn = sql.open_history().store.connect()
    comments = conn.execute(
        "SELECT kind, author, author_association, is_bot FROM history_comments ORDER BY created_at"
    ).fetchall()
    assert [tuple(c) for c in comments] == [
        ("issue_comment", "dave", "NONE", 0),
        ("issue_comment", "github-actions[bot]", "NONE", 1),
        ("review_comment", "carol", "CONTRIBUTOR", 0),
        ("review_comment", "bob", "OWNER", 0),
    ]
    # commits came from the API (no clone), all of them: the run was not bounded
    assert report.commits == 3


def test_rerun_costs_nothing_and_changes_nothing(gh: FakeGitHub) -> None:
    first = ingest_github("acme/widget")
    conn = sql.open_history().store.connect()
    before = [
        conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
        for t in ("history_nodes", "history_edges", "history_items", "history_comments")
    ]
    sent = len(gh.log)
    again = ingest_github("acme/widget")
    assert len(gh.log) == sent and again.requests == 0 and again.cache_hits > 0
    after = [
        conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
        for t in ("history_nodes", "history_edges", "history_items", "history_comments")
    ]
    assert after == before and first.requests > 0


def test_bounded_run_pins_commits_to_the_item_window(gh: FakeGitHub) -> None:
    report = ingest_github("acme/widget", max_pages=1)
    assert report.items == 4 and report.window == [day(1), day(5, "06:00:00")]
    shas = {r[0] for r in sql.open_history().store.connect().execute("SELECT sha FROM history_commits")}
    assert shas == {"1" * 40, MERGE}  # "Much later" is outside the era of the items
    assert any("until=" in r for r in gh.requests("/commits?"))


def test_bounded_run_with_a_clone_pins_git_too(gh: FakeGitHub, history_repo) -> None:
    report = ingest_github("acme/widget", max_pages=1, clone=history_repo.root)
    assert report.commits == 0  # the clone's commits are from late 2023, outside the window
    report = ingest_github("acme/widget", clone=history_repo.root)
    assert report.commits == 11
    assert not gh.requests("/commits")  # a clone replaces the API for commits


def test_injected_failure_then_clean_resume(gh: FakeGitHub, fresh_store) -> None:
    gh.trouble("/issues/6/timeline", "drop", times=50)
    client = GitHubClient(
        base_url=gh.url, store=sql.open_history().store, max_retries=2, backoff=0.01, sleep=lambda s, r: None
    )
    with pytest.raises(GitHubError, match="gave up"):
        ingest_github("acme/widget", client=client)
    assert sql.open_history().get_sync(1, "github")["pages"] == 1  # page 1 was checkpointed
    gh.troubles.clear()
    pulls_before = len(gh.requests("/pulls/2?")) + len(gh.requests("/pulls/2/"))
    report = ingest_github("acme/widget")
    assert report.resumed_from_page == 2 and report.items == 6
    assert len(gh.requests("/pulls/2?")) + len(gh.requests("/pulls/2/")) == pulls_before
    _assert_complete_without_duplicates()
    _assert_same_as_a_straight_run(gh, fresh_store)


def test_killed_process_resumes_without_duplicates(gh: FakeGitHub, lore_home, fresh_store) -> None:
    gh.trouble("/issues/6/timeline", "slow", seconds=30)
    env = {**os.environ, "LORE_GITHUB_API": gh.url, "LORE_HOME": str(lore_home)}
    code = "from lore.history.ingest.github import ingest_github; ingest_github('acme/widget')"
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        assert gh.wait_for_request("/issues/6/timeline"), "the ingest never reached page 2"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert sql.open_history().get_sync(1, "github")["pages"] == 1
    report = ingest_github("acme/widget")
    assert report.resumed_from_page == 2
    _assert_complete_without_duplicates()
    _assert_same_as_a_straight_run(gh, fresh_store)


def _assert_same_as_a_straight_run(gh: FakeGitHub, fresh_store) -> None:
    """Degrees and edges after the resume equal those of an uninterrupted run in a fresh store
    (page 1's nodes were left at degree 0 before degrees were kept with the edges)."""
    assert stale_degrees() == 0
    resumed = graph_snapshot(1)
    fresh_store("straight-home")
    ingest_github("acme/widget")
    assert stale_degrees() == 0
    assert graph_snapshot(1) == resumed


def _assert_complete_without_duplicates() -> None:
    conn = sql.open_history().store.connect()
    items = conn.execute("SELECT COUNT(*), COUNT(DISTINCT number) FROM history_items").fetchone()
    assert tuple(items) == (10, 10)
    comments = conn.execute("SELECT COUNT(*) FROM history_comments").fetchone()[0]
    assert comments == 4
    nodes = conn.execute("SELECT COUNT(*), COUNT(DISTINCT kind || key) FROM history_nodes").fetchone()
    assert nodes[0] == nodes[1]
    assert _links("CLOSES") == {("pr:2", "issue:1"), ("pr:7", "issue:6"), ("pr:10", "issue:9")}


def test_no_token_says_what_the_limit_means(gh: FakeGitHub) -> None:
    notes: list[str] = []

    class Recorder:
        def start(self, label, total=None):
            pass

        def advance(self, n=1):
            pass

        def wait(self, seconds, reason):
            pass

        def note(self, message):
            notes.append(message)

    ingest_github("acme/widget", max_pages=1, progress=Recorder())
    assert any("60 requests an hour" in n for n in notes)


def test_bad_names_are_refused(gh: FakeGitHub) -> None:
    with pytest.raises(InvalidInput):
        ingest_github("not a repo")
    from lore.core.errors import NotFound

    with pytest.raises(NotFound):
        ingest_github("acme/missing")


def test_threads_in_hand_make_the_same_graph_as_fetched_ones(
    gh: FakeGitHub, history_repo, fresh_store
) -> None:
    """`ingest_threads` (what the benchmark loads 5,000 threads with) writes what `ingest_github`
    writes for the same API payloads: nodes, edges, degrees, items and comments."""
    fetched = ingest_github("acme/widget", clone=history_repo.root)
    conn = sql.open_history().store.connect()
    rows = (
        "SELECT number, kind, title, state, author_association, merged_at FROM history_items ORDER BY number"
    )
    items, comments = (
        conn.execute(rows).fetchall(),
        conn.execute("SELECT COUNT(*) FROM history_comments").fetchone(),
    )
    snapshot = graph_snapshot(1)
    fresh_store("direct-home")
    payloads = sorted(gh.items.values(), key=lambda i: (i.data["created_at"], i.data["number"]))
    threads = [Thread(i.data, i.pull, i.files, i.review_comments, i.events) for i in payloads]
    direct = ingest_threads("acme/widget", threads, clone=history_repo.root, page_size=4)
    assert (direct.items, direct.pages, direct.closes, direct.keyword_closes) == (10, 3, fetched.closes, 1)
    assert direct.commits == fetched.commits == 11 and direct.requests == 0
    conn = sql.open_history().store.connect()
    assert conn.execute(rows).fetchall() == items
    assert conn.execute("SELECT COUNT(*) FROM history_comments").fetchone() == comments
    assert graph_snapshot(1) == snapshot
    assert stale_degrees() == 0
