"""`why` without a model: ranking by the question, a path alone, a blamed line, as-of dates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lore.core.dates import to_epoch
from lore.core.store import forget_stores
from lore.history import queries
from lore.history.ingest.git import ingest_git
from lore.history.ingest.github import Thread, ingest_threads
from lore.history.ingest.github.base import WRITERS, GitHubIngestReport
from lore.history.ingest.github.threads import ThreadWriter
from lore.history.ingest.progress import QuietProgress
from lore.history.repos import resolve_repo
from lore.history.why.index import BEHIND, update_index, vector_index
from lore.history.why.service import WITHOUT_MODEL, gather, units, why
from lore.history.why.store import open_why
from support.fake_github import FakeGitHub
from support.history_repo import DAY, T0, HistoryRepo, lines, run_git, write
from support.history_why import WhyRepo, when

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def test_the_question_beats_recency(why_repo: WhyRepo) -> None:
    repo = resolve_repo("acme/app")
    walk = queries.file_history(repo, "src/auth.py")["entries"]
    newest_first = [e["key"] for e in walk if e["kind"] == "commit"][:5]
    assert set(newest_first) <= set(why_repo.typo_fixes)  # the walk alone: typo fixes first

    report = why(repo, "Why does src/auth.py use the OAuth2 authorization code flow?", use_model=False)
    top = units(report.evidence)[:4]
    assert f"commit:{why_repo.shas['oauth']}" in top[:2]
    assert {"pr:2", "issue:1"} & set(top)
    typo_units = {f"commit:{sha}" for sha in why_repo.typo_fixes}
    ranks = units(report.evidence)
    first_typo = min((ranks.index(u) for u in typo_units if u in ranks), default=len(ranks))
    assert ranks.index(f"commit:{why_repo.shas['oauth']}") < first_typo
    assert report.note == WITHOUT_MODEL and not report.answer


def test_each_item_quotes_the_reason_its_source_gives(why_repo: WhyRepo) -> None:
    report = gather(resolve_repo("acme/app"), "why the implicit flow was replaced")
    assert report.evidence
    for item in report.evidence:
        if item.reason:  # verbatim, at its place in the source
            assert item.quote == item.reason.text == item.text[item.reason.start : item.reason.end]
        else:
            assert item.quote == ""
        assert item.at is not None and item.ref
    by_key = {e.key: e for e in report.evidence}
    assert "implicit" in by_key["issue:1"].quote.lower()  # the problem an issue reports
    oauth = by_key[f"commit:{why_repo.shas['oauth']}"]
    assert oauth.quote.startswith("We use the authorization code flow with PKCE because the implicit flow")
    assert oauth.title == "Implement OAuth2 authorization code flow (#2)"
    assert by_key["pr:2"].reason is None  # "Replaces the implicit grant with ..." says what, not why


def test_a_path_alone_ranks_the_commits_that_wrote_the_file(why_repo: WhyRepo) -> None:
    report = why(resolve_repo("acme/app"), "src/auth.py", use_model=False)
    assert report.mode == "path"
    ranks = units(report.evidence)
    typo = [ranks.index(f"commit:{sha}") for sha in why_repo.typo_fixes if f"commit:{sha}" in ranks]
    for big in ("oauth", "scopes"):
        assert ranks.index(f"commit:{why_repo.shas[big]}") < min(typo, default=len(ranks))


def test_a_line_is_blamed_then_followed_to_its_pr_and_issue(why_repo: WhyRepo) -> None:
    report = gather(resolve_repo("acme/app"), "src/auth.py:150")  # a "scope" line, from PR #3
    assert report.mode == "line" and report.blamed == why_repo.shas["scopes"]
    assert report.evidence[0].unit == f"commit:{why_repo.shas['scopes']}"
    assert report.evidence[0].via == ("blame",)
    assert "pr:3" in units(report.evidence)


def test_as_of_keeps_only_what_existed_then(why_repo: WhyRepo) -> None:
    repo = resolve_repo("acme/app")
    cutoff = T0 + int(2.2 * DAY)
    report = gather(repo, "Why does src/auth.py use OAuth2 scopes?", as_of=cutoff)
    assert report.evidence
    assert all(e.at is not None and e.at <= cutoff for e in report.evidence)
    found = units(report.evidence)
    assert f"commit:{why_repo.shas['scopes']}" not in found and "pr:3" not in found
    assert f"commit:{why_repo.shas['oauth']}" in found
    later = gather(repo, "Why does src/auth.py use OAuth2 scopes?")
    assert f"commit:{why_repo.shas['scopes']}" in units(later.evidence)[:3]


def test_the_ingest_writes_the_keyword_index_and_a_why_only_reads(why_repo: WhyRepo) -> None:
    """The ingest leaves the why index current (texts and their words); a `why` adds no text and
    makes no vector (the meaning arm is not among the default providers)."""
    repo = resolve_repo("acme/app")
    db = open_why()
    texts = db.doc_state(repo.id)[0]
    assert texts > 0 and db.look(repo.id).fresh  # before any why
    gather(repo, "Why does src/auth.py use OAuth2 scopes?")
    gather(repo, "Why was the session store moved?")
    assert db.doc_state(repo.id)[0] == texts and len(vector_index(db).keys()) == 0
    assert update_index(repo) == 0
    assert to_epoch("2023-11-16") > T0  # the fixture's dates are what the tests assume


def test_an_index_behind_its_history_is_caught_up_when_writable_and_named_when_read_only(
    tmp_path: Path, lore_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads written to layer 1 without the ingest's last step leave the index behind: on a
    read-only store `why` answers from what is indexed and says so; on a writable one it indexes
    them first and finds them."""
    monkeypatch.setenv("LORE_EMBED", "hash")
    r = HistoryRepo(tmp_path / "app")
    r.commit("Add the session store", {"src/auth.py": lines(5, "s")})
    ingest_threads("acme/app", [], clone=r.root)
    question = "Why do sessions vanish after a restart?"
    assert "issue:4" not in units(gather(resolve_repo("acme/app"), question).evidence)  # every table made
    gh = FakeGitHub("acme", "app")
    gh.add_issue(4, "Sessions vanish after a restart", body="Keep them in Redis.", created_at=when(1.5))
    gh.stop()
    # layer 1 written without the ingest's last step (as a store an older Lore filled): the
    # threads' own writer, then no index
    writer = ThreadWriter(
        resolve_repo("acme/app"), "acme/app", GitHubIngestReport(repo="acme/app"), QuietProgress()
    )
    for i in gh.items.values():
        writer.write(Thread(i.data, i.pull, i.files, i.review_comments, i.events))
    writer.w.flush(WRITERS)

    lore_home.mkdir(parents=True, exist_ok=True)  # on PostgreSQL no store file made it
    (lore_home / "config.json").write_text(json.dumps({"store": {"read_only": True}}))
    forget_stores()
    behind = gather(resolve_repo("acme/app"), question)
    assert behind.note == BEHIND and "issue:4" not in units(behind.evidence)
    assert why(resolve_repo("acme/app"), question, use_model=False).note == f"{BEHIND}; {WITHOUT_MODEL}"

    (lore_home / "config.json").unlink()
    forget_stores()
    caught_up = gather(resolve_repo("acme/app"), question)
    assert caught_up.note == "" and units(caught_up.evidence)[0] == "issue:4"


def _commit(root: Path, message: str, text: str, day: int) -> str:
    write(root, "src/auth.py", text)
    run_git(root, "commit", "-q", "-am", message, when=T0 + day * DAY)
    return run_git(root, "rev-parse", "HEAD").strip()


def test_why_sees_a_later_ingest_in_the_same_process_and_from_another(why_repo: WhyRepo) -> None:
    """The per-process caches (commit graph, index freshness) trust themselves only while the
    store is quiet: an ingest here, or by another process, is seen by the next call."""
    repo = resolve_repo("acme/app")
    question = "Why does src/auth.py keep sessions in Redis?"
    assert not any("Redis" in e.text for e in gather(repo, question).evidence)
    here = _commit(why_repo.root, "Keep sessions in Redis", lines(3, "redis"), 30)
    ingest_git(why_repo.root)
    assert f"commit:{here}" in units(gather(repo, question).evidence)
    assert queries.file_history(repo, "src/auth.py")["entries"][0]["key"] == here
    there = _commit(why_repo.root, "Move the Redis sessions behind a pool", lines(4, "redis"), 31)
    lore = Path(sys.executable).with_name("lore")
    subprocess.run([str(lore), "history", "ingest", str(why_repo.root), "--quiet"], check=True)
    assert f"commit:{there}" in units(gather(repo, question).evidence)
    assert queries.file_history(repo, "src/auth.py")["entries"][0]["key"] == there


def test_asked_for_the_latest_change_the_newest_before_the_date_comes_first(why_repo: WhyRepo) -> None:
    """Recency is not relevance, except when the question asks for it: then the walk's
    newest-first order inside a hop counts, the file's commits are ranked newest first instead
    of biggest first, and the last change before the date beats the big OAuth2 commits."""
    repo = resolve_repo("acme/app")
    moment = T0 + int(11.5 * DAY)  # after typo fix 5 (day 11), before fix 6 (day 12)
    fix, big = f"commit:{why_repo.typo_fixes[5]}", [f"commit:{why_repo.shas[k]}" for k in ("oauth", "scopes")]
    latest = units(gather(repo, "What was the most recent change to src/auth.py?", as_of=moment).evidence)
    assert fix in latest[:5] and all(latest.index(fix) < latest.index(b) for b in big)
    assert f"commit:{why_repo.typo_fixes[6]}" not in latest  # after the date
    why_so = units(gather(repo, "Why does src/auth.py check OAuth2 scopes?", as_of=moment).evidence)
    assert all(why_so.index(b) < why_so.index(fix) for b in big if fix in why_so)


def test_the_title_says_why_once(why_repo: WhyRepo) -> None:
    """A question is shown as asked (no "why why ..."); a path or a line is preceded by the word."""
    from typer.testing import CliRunner

    from lore.cli.app import app

    runner = CliRunner()
    asked = "Why does src/auth.py use the OAuth2 authorization code flow?"
    titles = []
    for target in (asked, "what replaced the implicit flow", "src/auth.py", "src/auth.py:150"):
        result = runner.invoke(app, ["history", "why", target, "--no-model", "--repo", "acme/app"])
        assert result.exit_code == 0, result.output
        titles.append(result.stdout.splitlines()[0])
    assert titles == [asked, "what replaced the implicit flow", "why src/auth.py", "why src/auth.py:150"]
