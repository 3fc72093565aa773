"""core.git: git runs in hostile repositories without running anything they name."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import git as git_cli
from conftest import make_repo
from lore.core import git
from support.hostile_repo import HostileRepo, make_hostile_repo


@pytest.fixture
def hostile(tmp_path: Path) -> HostileRepo:
    return make_hostile_repo(tmp_path / "hostile")


def test_the_hostile_config_is_real(hostile: HostileRepo) -> None:
    """Plain git does run the payload: fsmonitor on `ls-files --others`, textconv on `log -p`,
    hooks on commit. The tests below mean something only because of this."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (
        ["ls-files", "--others", "--exclude-standard"],
        ["log", "-p", "-1"],
        ["commit", "--allow-empty", "-qm", "plain"],
    ):
        before = hostile.fired()
        subprocess.run(["git", *args], cwd=hostile.root, capture_output=True, env=env, check=False)
        assert hostile.fired() != before, args


def test_every_helper_runs_nothing_the_repository_names(hostile: HostileRepo) -> None:
    root = hostile.root
    assert "untracked.py" in git.ls_files(root) and "src/app/main.py" in git.ls_files(root)
    assert git.toplevel(root / "src") == root.resolve()
    assert git.is_work_tree(root) and git.git_dir(root) == (root / ".git").resolve()
    assert git.remote_url(root).startswith("ext::")
    assert [e.action for e in git.reflog(root)] == ["commit (initial)", "commit"]
    for args in (["log", "-p", "-2"], ["show", "HEAD"], ["diff", "HEAD~1"], ["status", "--short"]):
        result = git.run(args, root)
        assert result.ok, (args, result.error_line)
    assert "return 3" in git.run(["log", "-p", "-1"], root).text  # the real diff, not textconv's
    assert git.run(["commit", "--allow-empty", "-qm", "through lore"], root).ok  # no hooks
    assert not git.run(["fetch", "origin"], root).ok  # no transport at all, ext:: included
    with tempfile.TemporaryFile() as errors:
        proc = git.stream(["log", "-p", "--format=%H"], root, errors)
        out, _ = proc.communicate()
    assert proc.returncode == 0 and out
    assert hostile.fired() == ""


def test_global_identity_ignores_the_repository_config(tmp_path: Path, monkeypatch) -> None:
    repo = make_repo(tmp_path / "r", {"a": "x"})
    git_cli(repo, "config", "user.email", "claimed@example.org")
    monkeypatch.chdir(repo)
    assert git.config_get_global("user.email") == "test@example.com"
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    assert git.config_get_global("user.email") == ""


def test_environment_cannot_redirect_git(tmp_path: Path, monkeypatch) -> None:
    mine = make_repo(tmp_path / "mine", {"a.py": "x"})
    other = make_repo(tmp_path / "other", {"b.py": "y"})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='/bin/false'")
    assert git.ls_files(mine) == ["a.py"]


def test_a_folder_git_does_not_know_is_walked(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    (plain / "src" / "a.py").write_text("x")
    (plain / ".git").mkdir()  # not a repository, and never listed
    (plain / ".git" / "config").write_text("[core]\n")
    (plain / "outside").symlink_to(tmp_path, target_is_directory=True)  # links are not followed
    assert git.ls_files(plain) == ["src/a.py"]


def test_timeout_is_one_line_lore_error(tmp_path: Path) -> None:
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)  # git blocks opening it: nothing will ever write
    with pytest.raises(git.GitError) as caught:
        git.run(["hash-object", str(fifo)], tmp_path, timeout=0.5)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("git hash-object took longer than 0.5 s")
    assert caught.value.exit_code == 1


def test_missing_git_is_one_line_lore_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no git here
    with pytest.raises(git.GitError, match=r"^cannot run git .*is git installed\?$"):
        git.run(["status"], tmp_path)


def test_failures_are_returned_with_git_s_reason(tmp_path: Path) -> None:
    result = git.run(["rev-parse", "--show-toplevel"], tmp_path)
    assert not result.ok and "not a git repository" in result.error_line
    assert git.toplevel(tmp_path / "missing" / "file.py") is None
    gone = git.run(["status"], tmp_path / "deleted-project")  # a registered folder removed since
    assert not gone.ok and gone.error_line.endswith("no such folder")
    assert git.remotes(tmp_path / "deleted-project") == {}


def test_a_caller_cannot_undo_the_safe_options(hostile: HostileRepo) -> None:
    result = git.run(
        ["ls-files", "--others"],
        hostile.root,
        config=(("core.fsmonitor", str(hostile.marker.parent / "payload.sh")),),
    )
    assert result.ok and hostile.fired() == ""


def test_reflog_lines_that_are_not_git_s_are_skipped(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a": "x"})
    with (repo / ".git" / "logs" / "HEAD").open("a") as log:
        log.write("garbage line\n" + "0" * 40 + " " + "1" * 40 + " No Email 12 +0000\tcommit: x\n")
    entries = git.reflog(repo)
    assert [(e.email, e.action) for e in entries] == [("test@example.com", "commit (initial)")]


def test_remote_urls_parse() -> None:
    for url in (
        "git@github.com:acme/widget.git",
        "https://github.com/acme/widget",
        "ssh://git@github.com/acme/widget.git",
    ):
        remote = git.parse_remote(url)
        assert remote is not None and (remote.host, remote.slug) == ("github.com", "acme/widget")
    assert git.parse_remote("not a url") is None
