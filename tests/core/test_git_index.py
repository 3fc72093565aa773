"""`core.git.index` reads git's index as git writes it (versions 2, 3 and 4, SHA-1 and SHA-256)
and tells an index git wrote on this disk from one that came from elsewhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import git, make_repo
from lore.core.git import index_write

FILES = {
    "a.py": "x",
    "src/pkg/deep/module_with_a_long_name.py": "y",
    "src/pkg/deep/module_with_a_longer_name.py": "z",  # v4 shares the prefix with the one above
    "src/pkg/other.py": "w",
}


def _replace(path: Path) -> None:
    """The same bytes in a new file (a new inode), as an editor saves: git must look again."""
    fresh = path.with_name(path.name + ".new")
    fresh.write_bytes(path.read_bytes())
    fresh.replace(path)


@pytest.mark.parametrize("version", [2, 3, 4])
def test_each_entry_is_read_in_every_version(tmp_path: Path, version: int) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "update-index", "--index-version", str(version))
    if version == 3:  # an entry with the extended flags, before the others
        (repo / "new.py").write_text("n")
        git(repo, "add", "--intent-to-add", "new.py")
    for name in FILES:  # each entry alone must match: every other file is changed after git looked
        git(repo, "update-index", "-q", "--refresh")
        for other in FILES:
            if other != name:
                _replace(repo / other)
        written = index_write(repo / ".git", repo)
        assert written is not None and written.here, (version, name)
    for name in FILES:
        _replace(repo / name)
    written = index_write(repo / ".git", repo)
    assert written is not None and not written.here


def test_a_copied_index_matches_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy)  # new inodes and change times for the same files
    assert index_write(copy / ".git", copy).here is False
    git(copy, "update-index", "-q", "--refresh")
    assert index_write(copy / ".git", copy).here is True


def test_sha256_repositories_are_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "--object-format=sha256")
    (repo / "a.py").write_text("x")
    git(repo, "add", "a.py")
    assert index_write(repo / ".git", repo, hash_bytes=32).here


def test_no_index_or_not_an_index(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    assert index_write(repo / ".git", repo) is None
    (repo / ".git" / "index").write_bytes(b"not an index at all")
    assert index_write(repo / ".git", repo) is None
