"""`lore learn`: PR review feedback from a real HTTP server shaped like GitHub's REST API."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git, make_repo
from lore.cli.app import app
from lore.core.errors import InvalidInput, NotFound
from lore.core.github import GitHubError
from lore.rules import service
from lore.rules.intake.learn import last_review_attempt, learn, learn_from_reviews, parse_remote, parse_since
from support.fake_github import FakeGitHub

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def gh(monkeypatch: pytest.MonkeyPatch):
    with FakeGitHub("acme", "widget") as server:
        monkeypatch.setenv("LORE_GITHUB_API", server.url)
        monkeypatch.setenv("GITHUB_TOKEN", "test-token")
        yield server


def _repo(tmp_path: Path, remote: str = "git@github.com:acme/widget.git") -> Path:
    repo = make_repo(tmp_path / "widget", {"app.py": "x = 1\n", "web/ui.ts": "let a = 1\n"})
    git(repo, "remote", "add", "origin", remote)
    return repo


def _load(gh: FakeGitHub) -> None:
    gh.add_pr(10, "Add orders", created_at="2024-03-01T00:00:00Z")
    gh.add_pr(11, "Add refunds", created_at="2024-03-05T00:00:00Z")
    gh.add_pr(12, "Add invoices", created_at="2024-03-09T00:00:00Z")
    # the same feedback three times, in three PRs, by members
    gh.add_review_comment(
        10,
        "Please use a context manager for the database connection here.",
        user="maria",
        association="OWNER",
        path="app.py",
        line=4,
        at="2024-03-02T00:00:00Z",
    )
    gh.add_review_comment(
        11,
        "Use a context manager for the database connection, please.",
        user="tom",
        association="MEMBER",
        path="orders.py",
        line=9,
        at="2024-03-06T00:00:00Z",
    )
    third = gh.add_review_comment(
        12,
        "Again: use a context manager for this database connection.",
        user="maria",
        association="COLLABORATOR",
        path="invoices.py",
        line=2,
        at="2024-03-10T00:00:00Z",
    )
    # once, on a TypeScript file
    gh.add_review_comment(
        12,
        "Prefer `unknown` over `any` in exported function signatures.",
        user="tom",
        association="MEMBER",
        path="web/ui.ts",
        line=1,
        at="2024-03-10T01:00:00Z",
    )
    # left out: an outsider, a bot, a reply, a one-word nit
    gh.add_review_comment(
        11,
        "You should rewrite the whole thing in Rust instead of Python.",
        user="drive-by",
        association="NONE",
        path="app.py",
        line=1,
    )
    gh.add_review_comment(
        11,
        "Coverage dropped by 0.3% on this file, see the report.",
        user="codecov[bot]",
        association="NONE",
        path="app.py",
        line=1,
    )
    gh.add_review_comment(
        12,
        "Done, switched to a context manager as you asked.",
        user="alice",
        association="MEMBER",
        path="invoices.py",
        line=2,
        in_reply_to=third["id"],
    )
    gh.add_review_comment(10, "nit", user="tom", association="MEMBER", path="app.py", line=7)


def test_repeated_feedback_from_the_team_is_grouped_first(tmp_path: Path, gh: FakeGitHub) -> None:
    _load(gh)
    repo = _repo(tmp_path)
    candidates = learn_from_reviews(repo)
    assert [len(c.evidence) for c in candidates] == [3, 1]
    repeated, single = candidates
    assert "context manager" in repeated.text and repeated.title.startswith("Review feedback (3x in 3 PRs): ")
    assert repeated.scope == ["**/*.py"]
    assert {e["author"] for e in repeated.evidence} == {"maria", "tom"}
    first = next(e for e in repeated.evidence if e["pr"] == 10)
    assert first["file"] == "app.py" and first["line"] == 4 and first["association"] == "OWNER"
    assert first["url"].startswith("https://github.com/acme/widget/pull/10#discussion_r")
    assert (
        single.scope == ["**/*.ts"]
        and single.title == "Review feedback: Prefer unknown over any in exported..."
    )
    assert gh.auth_seen[-1] == "Bearer test-token"
    assert service.list_rules(service.project_for_path(repo)) == []  # nothing saved


def test_external_comments_only_when_asked(tmp_path: Path, gh: FakeGitHub) -> None:
    _load(gh)
    texts = [c.text for c in learn_from_reviews(_repo(tmp_path), include_external=True)]
    assert "You should rewrite the whole thing in Rust instead of Python." in texts
    assert not any("Coverage dropped" in t for t in texts)  # bots never count


def test_since_filters_older_comments(tmp_path: Path, gh: FakeGitHub) -> None:
    _load(gh)
    candidates = learn_from_reviews(_repo(tmp_path), since="2024-03-09")
    assert [len(c.evidence) for c in candidates] == [1, 1]
    assert "since=2024-03-09T00%3A00%3A00Z" in gh.requests("pulls/comments")[0]


def test_learn_saves_pending_rules_and_rerun_adds_nothing(tmp_path: Path, gh: FakeGitHub) -> None:
    _load(gh)
    repo = _repo(tmp_path)
    project, _, saved = learn(repo)
    rules = service.list_rules(project)
    assert len(rules) == 2 and all(r.status == "pending" and r.source == "learn" for r in rules)
    assert len(saved.added[0].evidence) == 3
    _, _, again = learn(repo)
    assert again.added == [] and again.repeats == 2
    # the second run was answered from the content-hash cache: no new request to the API
    assert len(gh.requests("pulls/comments")) == 1


def test_pagination_and_server_errors_are_handled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeGitHub("acme", "widget", per_page=2) as gh:
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        gh.add_pr(1, "One")
        for i in range(7):
            gh.add_review_comment(
                1,
                f"Rename variable number {i} to something that says what it holds {'abcdefg'[i] * 6}.",
                association="MEMBER",
                path=f"m{i}.py",
            )
        gh.trouble("pulls/comments", "502", times=1)
        waits: list[tuple[float, str]] = []
        candidates = learn_from_reviews(_repo(tmp_path), sleep=lambda s, why: waits.append((s, why)))
        assert sum(len(c.evidence) for c in candidates) == 7
        assert len(gh.requests("pulls/comments")) == 5  # one 502, then four pages
        assert waits and "server error 502" in waits[0][1]


def test_failed_attempts_are_recorded_too(tmp_path: Path, gh: FakeGitHub) -> None:
    repo = make_repo(tmp_path / "other", {"a.py": ""})
    git(repo, "remote", "add", "origin", "https://github.com/acme/missing.git")
    project, _ = service.register_project(repo)
    assert last_review_attempt(project) is None
    before = time.time()
    with pytest.raises(NotFound, match="not found on GitHub"):
        learn_from_reviews(project)
    failed_at = last_review_attempt(project)
    assert failed_at is not None and failed_at >= before
    git(repo, "remote", "remove", "origin")
    with pytest.raises(InvalidInput, match="no `origin` remote"):
        learn_from_reviews(project)
    assert last_review_attempt(project) >= failed_at


def test_remote_urls_and_dates() -> None:
    for url in (
        "https://github.com/acme/widget.git",
        "https://github.com/acme/widget",
        "git@github.com:acme/widget.git",
        "ssh://git@github.com/acme/widget.git",
        "https://user@github.com/acme/widget/",
    ):
        remote = parse_remote(url)
        assert remote is not None and remote.slug == "acme/widget" and remote.host == "github.com", url
    assert parse_remote("not a url") is None
    assert parse_since("2024-01-31") == "2024-01-31T00:00:00Z"
    assert parse_since("2024-01-31T10:00:00+02:00") == "2024-01-31T08:00:00Z"
    with pytest.raises(InvalidInput, match="--since"):
        parse_since("last tuesday")


def test_learn_command(tmp_path: Path, gh: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    _load(gh)
    repo = _repo(tmp_path, "https://github.com/acme/widget.git")
    dry = CliRunner().invoke(app, ["learn", str(repo), "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    assert len(json.loads(dry.output)["candidates"]) == 2
    result = CliRunner().invoke(app, ["learn", str(repo)])
    assert result.exit_code == 0, result.output
    assert "2 new pending rule(s)" in result.output and "#10 app.py:4 (maria)" in result.output
    bad = CliRunner().invoke(app, ["learn", str(repo), "--since", "yesterday-ish"])
    assert bad.exit_code == 2 and "--since wants a date" in bad.output


def test_a_long_rate_limit_wait_fails_fast_for_agents(tmp_path: Path, gh: FakeGitHub) -> None:
    _load(gh)
    repo = _repo(tmp_path)
    project, _ = service.register_project(repo)
    gh.trouble("pulls/comments", "secondary", times=1, seconds=600)
    with pytest.raises(GitHubError, match="asks to wait 600s"):
        learn_from_reviews(project)  # an agent's call: no sleep given, so no ten-minute wait
    assert last_review_attempt(project) is not None
    waits: list[float] = []
    gh.trouble("pulls/comments", "secondary", times=1, seconds=600)
    candidates = learn_from_reviews(project, sleep=lambda s, _why: waits.append(s))  # the CLI waits
    assert waits == [600.0] and len(candidates) == 2
