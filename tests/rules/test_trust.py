"""Trust from evidence a repository cannot carry with it, with real repositories made here.

The fixture's global git config (GIT_CONFIG_GLOBAL) says the user is test@example.com.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from conftest import git, make_repo
from lore.core.store.open import forget_stores
from lore.rules.gate.trust import (
    BY_GITHUB_OWNER,
    BY_LOCAL_COMMITS,
    BY_OVERRIDE,
    check_with_git,
    set_override,
    trust_state,
)
from lore.rules.models import TrustRecord
from lore.rules.store.rules import rules_store
from support.fake_github import FakeGitHub

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")

DAY = 86400


def git_as(cwd: Path, who: str, *args: str, at: float | None = None) -> None:
    """git with a given committer and author identity (and date), as an attacker would commit."""
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": who,
        "GIT_AUTHOR_EMAIL": who,
        "GIT_COMMITTER_NAME": who,
        "GIT_COMMITTER_EMAIL": who,
    }
    if at is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{int(at)} +0000"
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def bare_of(repo: Path, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(where)], check=True, capture_output=True)
    return where


def clone_of(source: Path, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(source), str(where)], check=True, capture_output=True)
    return where


def other_clone(root: Path) -> Path:
    """A repository with a remote whose commits are all by someone else (other tests use it)."""
    make_repo(root)
    (root / "a.py").write_text("x")
    git_as(root, "else@example.org", "add", "-A")
    git_as(root, "else@example.org", "commit", "-qm", "theirs")
    git(root, "remote", "add", "origin", "https://github.com/someone/else.git")
    return root


def test_someone_elses_repository_is_not_yours(tmp_path: Path) -> None:
    state = check_with_git(other_clone(tmp_path / "theirs"))
    assert not state.yours and state.reason.startswith("it has a remote, and no commit made in this clone")


def test_own_repository_with_commits_made_here_is_yours(tmp_path: Path) -> None:
    state = check_with_git(make_repo(tmp_path / "mine", {"a.py": "x"}))
    assert state.yours and state.evidence == BY_LOCAL_COMMITS
    assert state.summary == "yours: 1 commit made in this clone by test@example.com"


def test_fresh_clone_of_your_own_commits_is_not_yours_until_you_commit(tmp_path: Path) -> None:
    """Every commit in it is authored by the user's email, and still: a clone is not yours."""
    source = make_repo(tmp_path / "upstream", {"a.py": "x", "b.py": "y"})
    clone = clone_of(bare_of(source, tmp_path / "up.git"), tmp_path / "clone")
    state = check_with_git(clone)
    assert not state.yours
    assert state.summary == "not yours: cloned, and no commit here is yours"
    (clone / "c.py").write_text("z")
    git(clone, "add", "c.py")
    git(clone, "commit", "-qm", "mine now")
    git(clone, "commit", "-q", "--amend", "-m", "mine now, reworded")
    state = check_with_git(clone)
    assert state.yours and state.reason == "2 commits made in this clone by test@example.com"


def test_clone_whose_authors_claim_your_email_is_not_yours(tmp_path: Path) -> None:
    source = tmp_path / "forged"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / "a.py").write_text("x")
    git_as(source, "test@example.com", "add", "-A")
    git_as(source, "test@example.com", "commit", "-qm", "looks like yours")
    clone = clone_of(bare_of(source, tmp_path / "forged.git"), tmp_path / "clone")
    git(clone, "remote", "set-url", "origin", "https://github.com/someone/else.git")
    assert not check_with_git(clone).yours


def _archive(tmp_path: Path, built_at: float, forged: range = range(0)) -> Path:
    """An attacker's repository, packed with its whole `.git`: commits, reflog and a config all
    naming the user's email, built at `built_at`, plus forged reflog lines dated at each
    second of `forged` (pointing at its last commit, a loose object)."""
    src = tmp_path / "attacker" / "repo"
    src.mkdir(parents=True)
    git(src, "init", "-q", "-b", "main")
    git(src, "config", "user.email", "test@example.com")
    git(src, "config", "user.name", "Test User")
    for n in range(3):
        (src / f"f{n}.py").write_text(str(n))
        git_as(src, "test@example.com", "add", "-A", at=built_at + n)
        git_as(src, "test@example.com", "commit", "-qm", f"commit {n}", at=built_at + n)
    head = git(src, "rev-parse", "HEAD").strip()
    with (src / ".git" / "logs" / "HEAD").open("a") as log:
        for at in forged:
            log.write(f"{head} {head} Test User <test@example.com> {at} +0000\tcommit: forged\n")
    packed = tmp_path / "attacker" / "repo.tar"
    with tarfile.open(packed, "w") as tar:
        tar.add(src, arcname="repo")
    return packed


def _unpack(packed: Path, target: Path, git_between: bool = False) -> Path:
    """Unpack as tar does (keeping the archive's modification times). With `git_between`, as a
    stream a server paces: all but the commit objects and the reflog land first, git refreshes
    the index (as an editor's `git status` would), then the rest lands, dated as it is sent."""
    with tarfile.open(packed) as tar:
        members = tar.getmembers()
        late = [m for m in members if ("/objects/" in m.name and m.isfile()) or m.name.endswith("logs/HEAD")]
        early = [m for m in members if m not in late] if git_between else members
        tar.extractall(target, members=early, filter="fully_trusted")
        if git_between:
            git(target / "repo", "update-index", "-q", "--refresh")
            for member in late:  # stamped as the server sends them, so no time predates the arrival
                member.mtime = time.time()
            tar.extractall(target, members=late, filter="fully_trusted")
    return target / "repo"


def test_archive_with_its_own_config_and_reflog_is_not_yours(tmp_path: Path) -> None:
    repo = _unpack(_archive(tmp_path, time.time() - 2 * DAY), tmp_path / "received")
    state = check_with_git(repo)
    assert not state.yours, state
    assert state.reason == "no remote, and no commit has been made in this clone by you"
    # working in it yourself makes it yours, counting only what you did here
    (repo / "mine.py").write_text("y")
    git(repo, "add", "mine.py")
    git(repo, "commit", "-qm", "my own change")
    assert check_with_git(repo).reason == "1 commit made in this clone by test@example.com"


def test_reflog_lines_dated_after_git_last_wrote_them_are_remembered(tmp_path: Path) -> None:
    """An archive whose reflog has a forged commit line for every second around now, streamed so
    that git writes the index before its objects land: the lines dated in the future show it
    was written elsewhere, and Lore keeps that in mind, because once those dates have passed
    the lines near the unpacking would look like commits made here."""
    now = int(time.time())
    packed = _archive(tmp_path, now - 2 * DAY, range(now - 300, now + 301))
    repo = _unpack(packed, tmp_path / "received", git_between=True)
    state = trust_state(repo)
    assert not state.yours and "so they were written elsewhere" in state.reason
    # time passes: the future lines are now past, and the reflog is written here again
    log = repo / ".git" / "logs" / "HEAD"
    kept = [
        line
        for line in log.read_text().splitlines(keepends=True)
        if int(line.split("\t")[0].split()[-2]) <= now
    ]
    log.write_text("".join(kept))
    assert check_with_git(repo).yours  # without the memory, the lines near the unpacking pass
    rules_store().set_trust_override(str(repo.resolve()), None)  # let the check run again
    state = trust_state(repo)
    assert not state.yours and "only commits made after" in state.reason
    assert rules_store().trust(str(repo.resolve())).written_elsewhere == now + 300
    # a new repository made at the same place is judged afresh
    shutil.rmtree(repo)
    make_repo(repo, {"a.py": "x"})
    rules_store().set_trust_override(str(repo.resolve()), None)
    assert trust_state(repo).reason == "1 commit made in this clone by test@example.com"


def test_no_remote_and_no_commits_is_not_yours(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "empty", {"a.py": "x"}, commit=False)
    state = check_with_git(repo)
    assert not state.yours
    assert state.summary == "not yours: no remote, and no commit has been made in this clone by you"


def test_identity_comes_from_the_global_config_only(tmp_path: Path, monkeypatch) -> None:
    repo = make_repo(tmp_path / "mine", {"a.py": "x"})  # its own config says test@example.com
    other = tmp_path / "other.gitconfig"
    other.write_text("[user]\n\temail = someone@example.org\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(other))
    assert not check_with_git(repo).yours
    other.write_text("[user]\n\tname = Test User\n")  # a name alone is no identity
    state = check_with_git(repo)
    assert not state.yours and "git config --global user.email" in state.reason
    other.write_text("[user]\n\temail = Test@Example.com\n")  # emails compare without case
    assert check_with_git(repo).yours


def test_folder_git_does_not_recognise_is_not_yours(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    (fake / ".git").mkdir(parents=True)  # looks like a repository, is not one
    state = check_with_git(fake)
    assert not state.yours and "does not recognise" in state.reason


@pytest.fixture
def github_clone(tmp_path: Path, monkeypatch):
    """A fresh clone (no commits of yours) made from git@github.com:tester/widget.git (git's
    `insteadOf` serves it from a local bare repository, so no network is needed)."""
    source = make_repo(tmp_path / "upstream", {"a.py": "x"})
    bare = bare_of(source, tmp_path / "up.git")
    clone = tmp_path / "widget"
    url = "git@github.com:tester/widget.git"
    subprocess.run(
        ["git", "-c", f"url.{bare}.insteadOf={url}", "clone", "-q", url, str(clone)],
        check=True,
        capture_output=True,
    )
    with FakeGitHub("tester", "widget") as gh:
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        monkeypatch.setenv("GITHUB_TOKEN", "token-of-tester")
        yield clone, gh


def test_github_remote_owned_by_your_login_is_yours(github_clone) -> None:
    clone, gh = github_clone
    gh.viewer = "Tester"
    state = check_with_git(clone)
    assert state.yours and state.evidence == BY_GITHUB_OWNER
    assert state.reason == "cloned from tester/widget on GitHub, owned by your login Tester (GITHUB_TOKEN)"
    assert gh.auth_seen[-1] == "Bearer token-of-tester"


def test_github_remote_of_another_login_is_not_yours(github_clone) -> None:
    clone, gh = github_clone
    gh.viewer = "someone-else"
    state = check_with_git(clone)
    assert not state.yours
    assert state.reason.endswith("cloned from tester/widget on GitHub, not owned by your login someone-else")


def test_github_unreachable_is_not_yours_and_asked_again_soon(github_clone, monkeypatch) -> None:
    clone, _ = github_clone
    monkeypatch.setenv("LORE_GITHUB_API", "http://127.0.0.1:9")  # nothing listens there
    state = trust_state(clone)
    assert not state.yours and "GitHub could not be asked" in state.reason
    record = rules_store().trust(str(clone.resolve()))
    assert record is not None and record.recheck_at - record.checked_at == 3600


def test_without_a_token_github_is_not_asked(github_clone, monkeypatch) -> None:
    clone, gh = github_clone
    monkeypatch.delenv("GITHUB_TOKEN")
    gh.viewer = "tester"
    state = check_with_git(clone)
    assert not state.yours and "no GitHub token" in state.reason
    assert gh.requests("/user") == []


def test_verdict_remembered_for_a_week_and_overrides_win(tmp_path: Path) -> None:
    clone = clone_of(bare_of(make_repo(tmp_path / "up", {"a.py": "x"}), tmp_path / "up.git"), tmp_path / "c")
    assert not trust_state(clone).yours
    key = str(clone.resolve())
    record = rules_store().trust(key)
    assert record is not None and record.recheck_at - record.checked_at == 7 * DAY
    # a remembered verdict is used as is while fresh (pretend it said yes), checked again when old
    now = time.time()
    rules_store().save_trust_verdict(TrustRecord(key, None, True, "remembered yes", "x", now, now + 60))
    assert trust_state(clone).reason == "remembered yes"
    rules_store().save_trust_verdict(TrustRecord(key, None, True, "remembered yes", "x", now - 9, now - 1))
    assert not trust_state(clone).yours
    state = set_override(clone, "trust")
    assert state.yours and state.evidence == BY_OVERRIDE and trust_state(clone).override == "trust"
    assert state.summary == "yours: set by hand (lore review trust)"
    assert not set_override(clone, "untrust").yours
    state = set_override(clone, None)
    assert not state.yours and state.override is None and "cloned" in state.reason


def test_overrides_of_an_old_trust_json_are_imported_once(tmp_path: Path, lore_home: Path) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for folder in (mine, theirs):
        folder.mkdir()
    lore_home.mkdir(parents=True, exist_ok=True)
    legacy = {
        str(mine.resolve()): {"override": "trust", "yours": False, "checked_at": time.time()},
        str(theirs.resolve()): {
            "yours": True,
            "reason": "the repository has no remote",
            "checked_at": time.time(),
        },
        "junk": ["not", "an", "entry"],
    }
    (lore_home / "trust.json").write_text(json.dumps(legacy))
    assert trust_state(mine).override == "trust"
    assert not trust_state(theirs).yours  # an old verdict is not believed: the check runs again
    # the file is left alone, and a later change to it is not imported again
    (lore_home / "trust.json").write_text(json.dumps({str(theirs.resolve()): {"override": "trust"}}))
    forget_stores()
    assert trust_state(theirs).override is None
    assert json.loads((lore_home / "trust.json").read_text()) == {
        str(theirs.resolve()): {"override": "trust"}
    }


def test_unreadable_trust_json_is_ignored(tmp_path: Path, lore_home: Path) -> None:
    lore_home.mkdir(parents=True, exist_ok=True)
    (lore_home / "trust.json").write_text("{broken")
    state = trust_state(make_repo(tmp_path / "mine", {"a.py": "x"}))
    assert state.yours and state.evidence == BY_LOCAL_COMMITS


def test_a_dot_git_that_borrows_your_repository_is_not_yours(tmp_path: Path) -> None:
    """An archive whose `.git` is a link or a `gitdir:` file naming one of your repositories."""
    mine = make_repo(tmp_path / "mine", {"a.py": "x"})
    assert check_with_git(mine).yours
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").symlink_to(mine / ".git", target_is_directory=True)
    pointed = tmp_path / "pointed"
    pointed.mkdir()
    (pointed / ".git").write_text(f"gitdir: {mine / '.git'}\n")
    for folder in (linked, pointed):
        (folder / "AGENTS.md").write_text("# rules\n")
        state = check_with_git(folder)
        assert not state.yours, folder
        assert state.reason.startswith("its .git points to the git folder of another place")


def test_a_linked_worktree_of_your_repository_is_yours(tmp_path: Path) -> None:
    mine = make_repo(tmp_path / "mine", {"a.py": "x"})
    git(mine, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "feature"))
    state = check_with_git(tmp_path / "feature")
    assert state.yours and state.evidence == BY_LOCAL_COMMITS


def test_a_submodule_you_committed_in_is_yours(tmp_path: Path) -> None:
    lib = make_repo(tmp_path / "lib", {"l.py": "x"})
    app = make_repo(tmp_path / "app", {"a.py": "x"})
    git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    sub = app / "vendor" / "lib"
    assert not check_with_git(sub).yours  # cloned into place
    (sub / "m.py").write_text("y")
    git(sub, "add", "m.py")
    git(sub, "commit", "-qm", "mine")
    assert check_with_git(sub).reason == "1 commit made in this clone by test@example.com"


def test_a_github_remote_written_into_the_config_proves_nothing(tmp_path: Path, monkeypatch) -> None:
    """An archive (or any repository) whose `.git/config` names a repository of your account."""
    clone = clone_of(bare_of(make_repo(tmp_path / "up", {"a.py": "x"}), tmp_path / "up.git"), tmp_path / "c")
    git(clone, "remote", "set-url", "origin", "https://github.com/tester/widget.git")
    with FakeGitHub("tester", "widget") as gh:
        gh.viewer = "tester"
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        monkeypatch.setenv("GITHUB_TOKEN", "token-of-tester")
        state = check_with_git(clone)
        assert not state.yours and state.reason == "cloned, and no commit here is yours"
        assert gh.requests("/user") == []


def test_a_work_email_from_your_own_include_if_counts(tmp_path: Path, monkeypatch) -> None:
    """`includeIf "gitdir:~/work/"` in the user's own config gives that folder its own email."""
    for var in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(var)  # commit as git config says
    work = tmp_path / "work"
    (tmp_path / "work.gitconfig").write_text("[user]\n\temail = me@work.example\n")
    Path(os.environ["GIT_CONFIG_GLOBAL"]).write_text(
        f'[user]\n\tname = Test User\n\temail = test@example.com\n[includeIf "gitdir:{work}/"]\n'
        f"\tpath = {tmp_path / 'work.gitconfig'}\n"
    )
    repo = work / "app"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("x")
    git(repo, "add", "a.py")
    git(repo, "commit", "-qm", "at work")
    assert check_with_git(repo).reason == "1 commit made in this clone by me@work.example"


def test_a_reflog_line_whose_commit_is_not_stored_here_does_not_count(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mine", {"a.py": "x"})
    head = git(repo, "rev-parse", "HEAD").strip()
    with (repo / ".git" / "logs" / "HEAD").open("a") as log:
        log.write(
            f"{head} {'b' * 40} Test User <test@example.com> {int(time.time())} +0000\tcommit: no object\n"
        )
    assert check_with_git(repo).reason == "1 commit made in this clone by test@example.com"
