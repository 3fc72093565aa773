"""Local git ingest on a real repository: renames, merges, bots, PR numbers, incremental runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import make_repo
from lore.core.errors import InvalidInput
from lore.history import queries as q
from lore.history import store as sql
from lore.history.ingest.git import ingest_git
from lore.history.ingest.gitlog import parse_log_stream
from lore.history.ingest.identity import closing_refs, is_bot, person_key, pr_from_subject
from lore.history.repos import resolve_repo

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _conn():
    return sql.open_history().store.connect()


def _edges(rel: str) -> set[tuple[str, str]]:
    rows = _conn().execute(
        "SELECT a.key, b.key FROM history_edges e JOIN history_nodes a ON a.id = e.src"
        " JOIN history_nodes b ON b.id = e.dst WHERE e.rel = ?",
        (rel,),
    )
    return {(a, b) for a, b in rows}


def _sha_of(subject: str) -> str:
    return _conn().execute("SELECT sha FROM history_commits WHERE subject = ?", (subject,)).fetchone()[0]


def test_ingest_builds_the_graph(history_repo) -> None:
    report = ingest_git(history_repo.root)
    assert report.mode == "full"
    assert report.commits_added == 11
    repo = resolve_repo(str(history_repo.root))
    s = q.stats(repo)
    assert s["commits"] == 11 and s["merges"] == 1 and s["bot_commits"] == 1
    assert s["nodes"]["person"] == 4
    # rename stored as an edge from the new path to the old one
    assert ("src/helpers.py", "src/util.py") in _edges("RENAMED_FROM")
    # PR numbers from squash subjects and from the merge; the branch commit joins its PR
    part_of = {
        (_conn().execute("SELECT subject FROM history_commits WHERE sha = ?", (sha,)).fetchone()[0], pr)
        for sha, pr in _edges("PART_OF")
    }
    assert ("Improve core (#12)", "12") in part_of
    assert ("Merge pull request #14 from carol/feature", "14") in part_of
    assert ("Feature work on core", "14") in part_of
    assert ("Rebased change", "16") in part_of  # from refs/pull/16/head
    assert not any(subject == "Docs touch" for subject, _ in part_of)
    # the bot is kept, marked, and shares its node with nothing else
    bots = _conn().execute("SELECT name FROM history_people WHERE is_bot = 1").fetchall()
    assert [b[0] for b in bots] == ["dependabot[bot]"]
    # a GitHub no-reply address becomes the login
    assert sql.open_history().find_node(repo.id, "person", "@bob") is not None
    # non-ASCII paths survive the NUL-separated stream unquoted
    assert sql.open_history().find_node(repo.id, "file", "docs/naïve file.md") is not None
    merge = (
        _conn()
        .execute("SELECT parents, files FROM history_commits WHERE subject LIKE ?", ("Merge pull request%",))
        .fetchone()
    )
    assert len(merge[0].split()) == 2 and merge[1] == 0


def test_file_history_follows_renames_in_time(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    story = q.file_history(repo, "src/helpers.py")
    assert [p["path"] for p in story["paths"]] == ["src/helpers.py", "src/util.py"]
    subjects = [e["label"] for e in story["entries"] if e["kind"] == "commit"]
    assert "Add core module" in subjects  # made under the old name
    assert "Move util to helpers (#13)" in subjects
    assert "Feature work on core" in subjects
    assert "New util, unrelated to the old one" not in subjects  # the path was reused later
    depths = [e["depth"] for e in story["entries"]]
    assert depths == sorted(depths)
    prs = {e["number"]: e["depth"] for e in story["entries"] if e["kind"] == "pr"}
    assert prs == {13: 2, 14: 2}
    commits = [e for e in story["entries"] if e["depth"] == 1]
    assert [c["at"] for c in commits] == sorted((c["at"] for c in commits), reverse=True)
    # the reused path has its own, short history: every entry, not only the newest
    fresh = q.file_history(repo, "src/util.py")
    assert [p["path"] for p in fresh["paths"]] == ["src/util.py"]
    assert [(e["depth"], e["kind"], e["label"]) for e in fresh["entries"]] == [
        (1, "commit", "New util, unrelated to the old one")
    ]


def test_second_run_adds_only_new_commits(history_repo) -> None:
    first = ingest_git(history_repo.root)
    again = ingest_git(history_repo.root)
    assert again.commits_added == 0 and again.edges_added == 0
    history_repo.commit("Late fix (#20)", {"src/core.py": "changed\n"})
    history_repo.commit("Later still", {"README.md": "# p\n"})
    third = ingest_git(history_repo.root)
    assert third.mode == "incremental" and third.commits_added == 2
    conn = _conn()
    total = conn.execute("SELECT COUNT(*), COUNT(DISTINCT sha) FROM history_commits").fetchone()
    assert total[0] == total[1] == first.commits_added + 2
    dup = conn.execute(
        "SELECT COUNT(*) FROM (SELECT src, dst, rel FROM history_edges"
        " GROUP BY src, dst, rel HAVING COUNT(*) > 1)"
    ).fetchone()[0]
    assert dup == 0
    # degrees are kept up to date by ingest, equal to a fresh count
    stale = conn.execute(
        "SELECT COUNT(*) FROM history_nodes n WHERE n.degree != (SELECT COUNT(*) FROM"
        " history_edges e WHERE e.src = n.id) + (SELECT COUNT(*) FROM history_edges e"
        " WHERE e.dst = n.id)"
    ).fetchone()[0]
    assert stale == 0


def test_windowed_ingest_keeps_only_that_era(history_repo) -> None:
    report = ingest_git(history_repo.root, until="2023-11-17")
    assert report.mode == "window"
    subjects = {r[0] for r in _conn().execute("SELECT subject FROM history_commits")}
    assert subjects == {"Add core module", "Improve core (#12)"}
    full = ingest_git(history_repo.root)  # a later full run fills in the rest, no duplicates
    assert full.commits_added == 9 and full.commits_skipped == 2


def test_a_windowed_run_links_only_branch_commits_to_a_merged_pr(history_repo) -> None:
    """HEAD is outside the window, yet the main line is known: a merge's walk stops there."""
    ingest_git(history_repo.root, until="2023-11-25 12:00")
    subjects = {r[0] for r in _conn().execute("SELECT subject FROM history_commits")}
    assert "Merge pull request #14 from carol/feature" in subjects and "Rebased change" not in subjects
    in_14 = {
        _conn().execute("SELECT subject FROM history_commits WHERE sha = ?", (sha,)).fetchone()[0]
        for sha, pr in _edges("PART_OF")
        if pr == "14"
    }
    assert in_14 == {"Merge pull request #14 from carol/feature", "Feature work on core"}


def test_hub_suppression_on_a_sweeping_commit(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    suppressed = q.walk_from(repo, "src/helpers.py", depth=3, max_degree=20, limit=None)
    keys = {r["key"] for r in suppressed["results"]}
    sweep = _sha_of("Reformat everything")
    open_walk = q.walk_from(repo, "src/helpers.py", depth=3, max_degree=None, limit=None)
    open_keys = {r["key"] for r in open_walk["results"]}
    assert "gen/mod07.py" in open_keys and "gen/mod07.py" not in keys
    assert len(keys) < len(open_keys)
    direct = q.walk_from(repo, "src/core.py", depth=1, max_degree=20)
    hit = {r["key"]: r for r in direct["results"]}[sweep]
    assert hit["hub"] and hit["depth"] == 1  # returned when directly connected
    capped = q.walk_from(repo, "src/core.py", depth=2, max_degree=None, max_changeset=10, limit=None)
    assert "gen/mod07.py" not in {r["key"] for r in capped["results"]}
    results = suppressed["results"]
    assert [r["depth"] for r in results] == sorted(r["depth"] for r in results)


def test_churn_hotspots_and_coupling(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    churn = {r["path"]: r for r in q.churn(repo, n=100)}
    assert "src/util.py" in churn  # the new file under the reused path
    assert churn["src/helpers.py"]["commits"] == 4  # renamed history folded in
    assert churn["src/helpers.py"]["added"] >= 20
    hot = q.hotspots(repo, days=5)
    assert hot["files"][0]["path"] == "src/core.py"
    pairs = q.coupling(repo, min_revs=2, min_shared=1, min_degree=10, max_changeset=30)
    assert pairs["commits_skipped_as_large"] == 2  # the initial import and the reformat
    top = pairs["pairs"][0]
    assert {top["entity"], top["coupled"]} == {"src/core.py", "src/helpers.py"}
    assert top["shared"] == 1 and top["degree"] == 33  # 1 shared of 3 revisions each
    strict = q.coupling(repo, min_revs=2, min_shared=2, min_degree=10, max_changeset=30)
    assert strict["pairs"] == []


def test_churn_and_hotspots_count_only_commits_up_to_until(history_repo) -> None:
    """The history as it stood on day 5 ("Tune helpers"): later commits are not counted."""
    from datetime import UTC, datetime

    from support.history_repo import DAY, T0

    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    cut = datetime.fromtimestamp(T0 + 5 * DAY, UTC).isoformat()
    full = {r["path"]: r for r in q.churn(repo, n=100)}
    then = {r["path"]: r for r in q.churn(repo, n=100, until=cut)}
    assert full["src/helpers.py"]["commits"] == 4 and then["src/helpers.py"]["commits"] == 3
    assert then["src/helpers.py"]["last_changed"] == cut.replace("+00:00", "Z")
    assert "requirements.txt" in full and "requirements.txt" not in then  # day 11
    assert then["src/core.py"]["commits"] == 2  # days 1 and 2 of its 6
    assert q.churn(repo, n=100, until="2000-01-01") == []  # before the first commit
    hot = q.hotspots(repo, days=3, until=cut)
    assert hot["window_end"] == then["src/helpers.py"]["last_changed"]
    assert {f["path"] for f in hot["files"]} == {"src/core.py", "src/helpers.py"}  # days 2 to 5
    later = q.hotspots(repo, days=3, until="2030-01-01")  # after the last commit: as without
    assert later == q.hotspots(repo, days=3)


def test_resolve_node_forms(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    assert q.resolve_node(repo, "#12").kind == "pr"
    assert q.resolve_node(repo, "pr:14").key == "14"
    assert q.resolve_node(repo, "helpers.py").key == "src/helpers.py"
    assert q.resolve_node(repo, "@bob").key == "@bob"
    sha = _sha_of("Tune helpers")
    assert q.resolve_node(repo, sha[:8]).key == sha
    with pytest.raises(InvalidInput):
        q.walk_from(repo, "src/core.py", relations=["NOPE"])


def test_bad_input_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput):
        ingest_git(tmp_path)  # not a repository
    empty = make_repo(tmp_path / "empty", commit=False)
    with pytest.raises(InvalidInput, match="no commits"):
        ingest_git(empty)


def test_identity_rules() -> None:
    assert pr_from_subject("Fix the thing (#123)") == 123
    assert pr_from_subject("Merge pull request #77 from a/b") == 77
    assert pr_from_subject("Plain subject #9") is None
    assert is_bot("renovate[bot]") and is_bot("github-actions") and not is_bot("Bo Tanaka")
    assert person_key("Alice@Example.com") == ("alice@example.com", None)
    assert person_key("99+ann@users.noreply.github.com") == ("@ann", "ann")
    text = "Fixes #12, closes o/r#3 and resolves https://github.com/o/r/issues/4; see other/x#5"
    assert closing_refs(text, "o/r") == {12, 3, 4}


def test_parser_handles_chunk_boundaries(history_repo) -> None:
    """The same stream cut into 7-byte chunks parses to the same commits."""
    import subprocess

    from lore.history.ingest.gitlog import log_command

    raw = subprocess.run(log_command(["HEAD"]), cwd=history_repo.root, capture_output=True, check=True).stdout
    whole = list(parse_log_stream(iter([raw])))
    pieces = list(parse_log_stream(iter([raw[i : i + 7] for i in range(0, len(raw), 7)])))
    assert [(c.sha, [(x.path, x.added) for x in c.changes]) for c in whole] == [
        (c.sha, [(x.path, x.added) for x in c.changes]) for c in pieces
    ]
    assert len(whole) == 11


def test_one_ingest_per_repository_at_a_time(history_repo) -> None:
    import subprocess
    import sys

    from lore.history import repos

    repo = repos.ensure_repo(path=str(history_repo.root))[0]
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with repos.sql.open_history().transaction() as db:
            db.take_lock(repo.id, sleeper.pid)
        with pytest.raises(InvalidInput, match="another ingest of project is running"):
            ingest_git(history_repo.root)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert ingest_git(history_repo.root).commits_added == 11  # a dead holder's lock is taken over
