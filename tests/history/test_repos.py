"""Which repository is which: a folder by its path, a GitHub repository by OWNER/REPO, never by
the display name; a failed first ingest leaves nothing registered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git, make_repo
from lore.cli.app import app
from lore.core.errors import InvalidInput
from lore.core.github import GitHubClient, GitHubError
from lore.history import queries as q
from lore.history import store as sql
from lore.history.ingest.git import ingest_git
from lore.history.ingest.github import ingest_github
from lore.history.repos import all_repos, resolve_repo
from support.fake_github import FakeGitHub

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

runner = CliRunner()


def _subjects(repo) -> set[str]:
    rows = (
        sql.open_history()
        .store.connect()
        .execute("SELECT subject FROM history_commits WHERE repo_id = ?", (repo.id,))
    )
    return {r[0] for r in rows}


def _app(root: Path, tag: str, commits: int) -> Path:
    make_repo(root, {"README.md": f"{tag}\n"})
    for i in range(commits - 1):
        (root / "main.py").write_text(f"# {tag} {i}\n", encoding="utf-8")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"{tag} change {i}")
    return root


def test_two_folders_with_the_same_name_are_two_repositories(tmp_path, monkeypatch) -> None:
    x = _app(tmp_path / "x" / "app", "x", 3)
    y = _app(tmp_path / "y" / "app", "y", 2)
    ingest_git(x)
    ingest_git(y)
    repos = {r.name: r for r in all_repos()}
    assert set(repos) == {"app", "app-2"}
    assert (repos["app"].path, repos["app-2"].path) == (str(x.resolve()), str(y.resolve()))
    assert _subjects(repos["app"]) == {"initial", "x change 0", "x change 1"}
    assert _subjects(repos["app-2"]) == {"initial", "y change 0"}
    # a second run of each stays in its own graph and keeps its own path
    assert ingest_git(x).commits_added == 0 and ingest_git(y).commits_added == 0
    assert {r.name: r.path for r in all_repos()} == {"app": str(x.resolve()), "app-2": str(y.resolve())}
    # --repo: a name, a path, or the folder you stand in
    assert resolve_repo("app-2").path == str(y.resolve())
    assert resolve_repo(str(y)).name == "app-2"
    assert resolve_repo(cwd=y / ".").name == "app-2"
    assert q.stats(resolve_repo(str(x)))["commits"] == 3
    # standing in y/, "app" is both the first repository's name and the second's folder
    monkeypatch.chdir(tmp_path / "y")
    with pytest.raises(InvalidInput, match=r"name of app .* and the folder of app-2"):
        resolve_repo("app")
    assert resolve_repo("./app").name == "app-2"
    result = runner.invoke(app, ["history", "stats", "--repo", str(y), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["commits"] == 2


def test_clones_join_their_github_repository_once(tmp_path, monkeypatch) -> None:
    first = _app(tmp_path / "one" / "widget", "one", 2)
    second = _app(tmp_path / "two" / "widget", "two", 2)
    for root in (first, second):
        git(root, "remote", "add", "origin", "https://github.com/acme/widget.git")
    ingest_git(first)
    ingest_git(second)  # another clone of the same GitHub repository: its own graph
    repos = {r.name: r for r in all_repos()}
    assert {n: (r.path, r.github) for n, r in repos.items()} == {
        "acme/widget": (str(first.resolve()), "acme/widget"),
        "acme/widget-2": (str(second.resolve()), None),
    }
    assert _subjects(repos["acme/widget-2"]) == {"initial", "two change 0"}
    with FakeGitHub("acme", "widget") as gh:
        gh.add_issue(1, "Broken", created_at="2024-01-01T00:00:00Z")
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        ingest_github("acme/widget", clone=first)  # the GitHub repository is the first clone
    assert len(all_repos()) == 2
    widget = resolve_repo("acme/widget")
    assert q.stats(widget)["items_fetched"] == {"issue": 1} and widget.path == str(first.resolve())


def test_a_failed_first_ingest_registers_nothing(tmp_path) -> None:
    real = _app(tmp_path / "real", "real", 2)
    ingest_git(real)
    empty = make_repo(tmp_path / "empty", commit=False)
    with pytest.raises(InvalidInput, match="no commits"):
        ingest_git(empty)
    assert [r.name for r in all_repos()] == ["real"]
    result = runner.invoke(app, ["history", "ingest", str(empty)])
    assert result.exit_code == 2 and "no commits" in result.output
    # commands without --repo still find the only repository
    result = runner.invoke(app, ["history", "stats", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["repo"] == "real"
    assert sql.open_history().store.connect().execute("SELECT COUNT(*) FROM history_repos").fetchone()[0] == 1


def test_a_failed_first_github_ingest_registers_nothing(monkeypatch, tmp_path) -> None:
    with FakeGitHub("acme", "widget") as gh:
        gh.add_issue(1, "Broken", created_at="2024-01-01T00:00:00Z")
        gh.trouble("/issues/1/timeline", "drop", times=50)
        client = GitHubClient(
            base_url=gh.url,
            store=sql.open_history().store,
            max_retries=1,
            backoff=0.01,
            sleep=lambda s, r: None,
        )
        with pytest.raises(GitHubError):
            ingest_github("acme/widget", client=client)
        empty = make_repo(tmp_path / "empty", commit=False)
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        with pytest.raises(InvalidInput, match="no commits"):
            ingest_github("acme/widget", clone=empty)
    assert all_repos() == []


def test_an_ingest_held_on_another_machine_refuses_a_second_and_the_first_stays_whole(tmp_path) -> None:
    """On a shared database the lock row's process id means nothing to another machine, so the
    ingest also holds the store's `exclusive` lock; a second store object (a separate pool, as
    another member's process would have) stands in for the other machine."""
    from lore.core.store.open import open_store
    from lore.core.store.postgres import PgStore

    app_dir = _app(tmp_path / "app", "a", 2)
    ingest_git(app_dir)
    repo = next(iter(all_repos()))
    store = open_store()
    if store.dialect != "postgres":
        with store.exclusive("anything") as mine:
            assert mine  # one machine's file: the process row is the whole lock
        return
    elsewhere = PgStore(store.url)
    try:
        with elsewhere.exclusive(f"history ingest {repo.id}") as theirs:
            assert theirs
            (app_dir / "main.py").write_text("# later\n", encoding="utf-8")
            git(app_dir, "commit", "-qam", "later")
            with pytest.raises(InvalidInput, match="another ingest of app is running on another machine"):
                ingest_git(app_dir)
            assert _subjects(repo) == {"initial", "a change 0"}
        assert ingest_git(app_dir).commits_added == 1  # released: the next ingest runs
    finally:
        elsewhere.close()
