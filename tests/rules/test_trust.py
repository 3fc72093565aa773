"""Trust decided by asking git, with real repositories."""

import json
import os
import subprocess
import time
from pathlib import Path

from conftest import git, make_repo
from lore.rules.gate.trust import check_with_git, set_override, trust_state


def other_clone(root: Path) -> Path:
    """A repository with a remote whose commits are all by someone else."""
    make_repo(root)
    (root / "a.py").write_text("x")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Someone Else",
        "GIT_AUTHOR_EMAIL": "else@example.org",
        "GIT_COMMITTER_NAME": "Someone Else",
        "GIT_COMMITTER_EMAIL": "else@example.org",
    }
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "theirs"], cwd=root, check=True, env=env)
    git(root, "remote", "add", "origin", "https://github.com/someone/else.git")
    return root


def test_no_remote_is_yours(tmp_path: Path) -> None:
    state = check_with_git(make_repo(tmp_path / "mine", {"a.py": "x"}))
    assert state.yours and "no remote" in state.reason


def test_remote_with_your_commits_is_yours(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mine", {"a.py": "x"})
    git(repo, "remote", "add", "origin", "https://github.com/me/mine.git")
    state = check_with_git(repo)
    assert state.yours and "your git identity" in state.reason


def test_someone_elses_clone_is_not_yours(tmp_path: Path) -> None:
    state = check_with_git(other_clone(tmp_path / "theirs"))
    assert not state.yours


def test_folder_git_does_not_recognise_is_not_yours(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    (fake / ".git").mkdir(parents=True)  # looks like a repository, is not one
    assert not check_with_git(fake).yours


def test_answer_remembered_for_a_week_and_overrides_win(tmp_path: Path, lore_home: Path) -> None:
    repo = other_clone(tmp_path / "theirs")
    assert not trust_state(repo).yours
    data = json.loads((lore_home / "trust.json").read_text())
    key = str(repo.resolve())
    assert data[key]["yours"] is False
    # a remembered answer is used as is while fresh (pretend it said yes), re-checked when old
    data[key]["yours"] = True
    (lore_home / "trust.json").write_text(json.dumps(data))
    assert trust_state(repo).yours
    data[key]["checked_at"] = time.time() - 8 * 86400
    (lore_home / "trust.json").write_text(json.dumps(data))
    assert not trust_state(repo).yours
    assert set_override(repo, "trust").yours and trust_state(repo).override == "trust"
    assert not set_override(repo, "untrust").yours
    assert not set_override(repo, None).yours and trust_state(repo).override is None


def test_unreadable_trust_file_is_rechecked(tmp_path: Path, lore_home: Path) -> None:
    lore_home.mkdir(parents=True, exist_ok=True)
    (lore_home / "trust.json").write_text("{broken")
    assert trust_state(make_repo(tmp_path / "mine", {"a.py": "x"})).yours


def test_a_name_that_only_contains_yours_is_not_you(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no global git identity
    root = other_clone(tmp_path / "theirs")
    git(root, "config", "--unset", "user.email")
    git(root, "config", "user.name", "Someone")  # commits are by "Someone Else"
    assert not check_with_git(root).yours
    git(root, "config", "user.name", "Someone Else")
    assert check_with_git(root).yours
