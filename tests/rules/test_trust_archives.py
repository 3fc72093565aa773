"""Trust against repositories that arrive as archives, made and unpacked here with tarfile and
zipfile: a `.git` shipped whole, down to a reflog naming the user, must not count as theirs.

An archive packed moments before it is unpacked (as a server can build one on the fly for each
download) puts commit lines dated at the unpacking next to objects stamped with it, so the
dates alone cannot tell it from a repository just made here; git's index, which records the
inode numbers and change times of this disk, tells them apart. The fixture's global git config
says the user is test@example.com.
"""

from __future__ import annotations

import os
import subprocess
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from conftest import git, make_repo
from lore.core.git import index_write
from lore.rules.gate import authorship
from lore.rules.gate.trust import BY_LOCAL_COMMITS, check_with_git
from support.fake_github import FakeGitHub

NOT_YOURS = "not yours: no remote, and no commit has been made in this clone by you"
ONE_COMMIT = "yours: 1 commit made in this clone by test@example.com"


def _attacker_repo(root: Path) -> Path:
    """A repository built as someone else would build it to pass for yours: its config, its
    commits and its reflog all name test@example.com, and a hand-written reflog line (dated
    now, naming its last commit) says "commit:" by you."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "Test User")
    for n in range(2):
        (root / f"f{n}.py").write_text(str(n))
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"commit {n}")
    head = git(root, "rev-parse", "HEAD").strip()
    log = root / ".git" / "logs" / "HEAD"
    lines = log.read_text().splitlines(keepends=True)
    lines.append(f"{head} {head} Test User <test@example.com> {int(time.time())} +0000\tcommit: by you\n")
    log.write_text("".join(lines))
    return root


def _pack_and_unpack(source: Path, kind: str, target: Path) -> Path:
    """`source` packed as a tar (unpacked keeping the archive's modification times, as tar
    does) or a zip (unpacked as Python's zipfile does, stamping every file with the moment it
    is written), then unpacked under `target`."""
    packed = source.parent / f"{source.name}.{kind}"
    if kind == "tar":
        with tarfile.open(packed, "w") as tar:
            tar.add(source, arcname="repo")
        with tarfile.open(packed) as tar:
            tar.extractall(target, filter="fully_trusted")
    else:
        with zipfile.ZipFile(packed, "w") as archive:
            for path in sorted(source.rglob("*")):
                archive.write(path, f"repo/{path.relative_to(source).as_posix()}")
        with zipfile.ZipFile(packed) as archive:
            archive.extractall(target)
    return target / "repo"


def _aged(root: Path, seconds: int) -> Path:
    """`root` with every file's modification time set `seconds` back, as files written elsewhere
    some time before they were packed carry."""
    then = time.time() - seconds
    for path in root.rglob("*"):
        os.utime(path, (then, then), follow_symlinks=False)
    return root


def _commit_here(repo: Path, name: str) -> None:
    (repo / name).write_text("mine")
    git(repo, "add", name)
    git(repo, "commit", "-qm", f"add {name}")


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_an_archive_packed_just_before_it_is_unpacked_is_not_yours(tmp_path: Path, kind: str) -> None:
    repo = _pack_and_unpack(_attacker_repo(tmp_path / "attacker" / "repo"), kind, tmp_path / "got")
    assert check_with_git(repo).summary == NOT_YOURS
    # git run in it afterwards (an editor's `git status`) writes this disk's numbers into the
    # index, later than every object the archive brought: still no commit of yours
    assert not index_write(repo / ".git", repo).here  # the shipped index names another disk
    git(repo, "status", "--porcelain")
    assert index_write(repo / ".git", repo).here
    assert check_with_git(repo).summary == NOT_YOURS
    # your own commit in it counts, and only that one
    _commit_here(repo, "mine.py")
    assert check_with_git(repo).summary == ONE_COMMIT


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_your_repository_packed_and_moved_counts_again_from_your_next_commit(
    tmp_path: Path, kind: str
) -> None:
    own = make_repo(tmp_path / "before" / "repo", {"a.py": "x"})
    _commit_here(own, "b.py")
    # yours; how many of its commits the index vouches for depends on whether git rewrote the
    # index after the first (racy-git timing), so the count is not pinned
    assert check_with_git(own).summary.startswith("yours: ")
    moved = _pack_and_unpack(own, kind, tmp_path / "after")
    assert check_with_git(moved).summary == NOT_YOURS
    git(moved, "checkout", "-q", "-b", "elsewhere")  # looking around is no commit
    assert check_with_git(moved).summary == NOT_YOURS
    _commit_here(moved, "c.py")
    assert check_with_git(moved).summary == ONE_COMMIT


def test_your_commits_amends_and_branches_made_here_count(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mine", {"a.py": "x"})
    _commit_here(repo, "b.py")
    git(repo, "commit", "-q", "--amend", "-m", "b, reworded")
    state = check_with_git(repo)
    # the amend rewrote the second commit in place: still yours (how many commits the index
    # vouches for depends on when git last rewrote it, so the count is not pinned)
    assert state.yours and state.reason.endswith("made in this clone by test@example.com")
    git(repo, "checkout", "-q", "-b", "feature")
    _commit_here(repo, "c.py")
    assert check_with_git(repo).evidence == BY_LOCAL_COMMITS
    # a checkout rewrites the index: this close to `git init`, the commits wait for the next one
    git(repo, "checkout", "-q", "main")
    assert not check_with_git(repo).yours
    _commit_here(repo, "d.py")
    assert check_with_git(repo).summary == ONE_COMMIT


def test_long_after_arrival_a_commit_counts_without_the_index(tmp_path: Path, monkeypatch) -> None:
    """Far from the folder's arrival (here: the window set to nothing, as if `git init` was long
    ago), a commit counts by its dates alone, through checkouts; an object whose modification
    time predates the folder's arrival (tar restores the archive's) is not git's work here."""
    monkeypatch.setattr(authorship, "NEAR_ARRIVAL_SECONDS", 0)
    repo = make_repo(tmp_path / "mine", {"a.py": "x"})
    _commit_here(repo, "b.py")
    git(repo, "checkout", "-q", "-b", "feature")
    assert check_with_git(repo).reason == "2 commits made in this clone by test@example.com"
    # the archive's files were written elsewhere before it was packed, as any download's are (made
    # here milliseconds before, their times could fall within the clock's slack of the unpacking)
    attacker = _aged(_attacker_repo(tmp_path / "attacker" / "repo"), 120)
    unpacked = _pack_and_unpack(attacker, "tar", tmp_path / "got")
    assert check_with_git(unpacked).summary == NOT_YOURS


def test_a_clone_line_in_an_archive_names_no_clone_of_yours(tmp_path: Path, monkeypatch) -> None:
    """A reflog starting with `clone: from` your GitHub repository, shipped in an archive: no
    git ran here to check the files out, so GitHub is not even asked."""
    source = tmp_path / "attacker" / "repo"
    zero = "0" * 40
    line = f"{zero} {{head}} Test User <test@example.com> {int(time.time())} +0000\tclone: from https://github.com/tester/widget.git\n"
    _attacker_repo(source)
    first = git(source, "rev-list", "--max-parents=0", "HEAD").strip()
    log = source / ".git" / "logs" / "HEAD"
    log.write_text(line.format(head=first) + "".join(log.read_text().splitlines(keepends=True)[1:]))
    with FakeGitHub("tester", "widget") as gh:
        gh.viewer = "tester"
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        monkeypatch.setenv("GITHUB_TOKEN", "token-of-tester")
        repo = _pack_and_unpack(source, "tar", tmp_path / "got")
        state = check_with_git(repo)
        assert not state.yours and state.reason == "cloned, and no commit here is yours"
        assert gh.requests("/user") == []
        # a real clone, made by git here, is asked about
        bare = tmp_path / "up.git"
        subprocess.run(
            ["git", "clone", "-q", "--bare", str(source), str(bare)], check=True, capture_output=True
        )
        url = "git@github.com:tester/widget.git"
        clone = tmp_path / "widget"
        subprocess.run(
            ["git", "-c", f"url.{bare}.insteadOf={url}", "clone", "-q", url, str(clone)],
            check=True,
            capture_output=True,
        )
        assert check_with_git(clone).reason.startswith(
            "cloned from tester/widget on GitHub, owned by your login"
        )
