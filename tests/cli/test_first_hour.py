"""What a newcomer runs into in the first hour, through the real commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git, make_repo
from lore.cli.app import app
from lore.rules import service
from support.fake_github import FakeGitHub

runner = CliRunner()


def lore(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_a_missing_file_or_folder_is_exit_3_in_every_command(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"a.py": "x\n"})
    lore("projects", "add", str(repo))
    gone = tmp_path / "nonexistent"
    for args in (
        ("projects", "add", str(gone)),
        ("memorize", str(gone)),
        ("discover", str(gone)),
        ("learn", str(gone)),
        ("train", str(gone / "guide.md"), "--name", "shop"),
        ("books", "add", str(gone / "book.epub")),
        ("history", "ingest", str(gone)),
    ):
        result = lore(*args)
        assert result.exit_code == 3, (args, result.output)
        assert result.stderr.startswith("error: no such file or folder: ") and result.stderr.count("\n") == 1
    assert [p["name"] for p in json.loads(lore("projects", "--json").stdout)] == ["shop"]
    # a folder that exists but is no repository is still refused as such
    plain = tmp_path / "plain"
    plain.mkdir()
    refused = lore("projects", "add", str(plain))
    assert refused.exit_code == 2 and "not inside a git repository" in refused.stderr


def test_a_scope_naming_a_missing_folder_is_refused_unless_forced(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"src/api/a.py": "x\n", "src/db/m.py": "y\n"})
    lore("projects", "add", str(repo))
    refused = lore("review", "--name", "shop", "add", "Validate bodies", "--scope", "src/nope")
    assert refused.exit_code == 2
    assert "'src/nope' names a folder shop does not have" in refused.stderr
    assert "src/api" in refused.stderr and "--force" in refused.stderr
    assert json.loads(lore("review", "--name", "shop", "list", "--json").stdout) == []

    forced = lore("review", "--name", "shop", "add", "Validate bodies", "--scope", "src/nope", "--force")
    assert forced.exit_code == 0 and "[src/nope/]" in forced.stdout
    fine = lore("review", "--name", "shop", "add", "Use the repository classes", "--scope", "db")
    assert fine.exit_code == 0 and "[src/db/]" in fine.stdout and fine.stderr == ""
    glob = lore("review", "--name", "shop", "add", "Prefer unknown over any", "--scope", "**/*.ts")
    assert glob.exit_code == 0 and "warning: scope '**/*.ts' matches no file of shop yet" in glob.stderr
    assert len(json.loads(lore("review", "--name", "shop", "list", "--json").stdout)) == 3


def test_a_failed_learn_registers_nothing_and_a_good_one_registers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local_only = make_repo(tmp_path / "local", {"a.py": "x\n"})  # no GitHub remote
    failed = lore("learn", str(local_only))
    assert failed.exit_code == 2 and "origin" in failed.stderr
    with FakeGitHub("acme", "missing") as gh:
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        gone = make_repo(tmp_path / "gone", {"a.py": "x\n"})
        git(gone, "remote", "add", "origin", "https://github.com/acme/widget.git")
        assert lore("learn", str(gone)).exit_code == 3  # the repository is not on GitHub
        assert lore("learn", str(gone), "--dry-run").exit_code == 3
        assert service.list_projects() == []

    with FakeGitHub("acme", "widget") as gh:
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        gh.add_pr(1, "One")
        ok = lore("learn", str(gone), "--json")
        assert ok.exit_code == 0, ok.output
        assert [p.name for p in service.list_projects()] == ["gone"]


def test_train_checks_its_scope_the_same_way(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"src/api/a.py": "x\n", "docs/style.md": "Use tabs in Makefiles.\n"})
    lore("projects", "add", str(repo))
    guide = str(repo / "docs/style.md")
    refused = lore("train", guide, "--name", "shop", "--scope", "src/apii")
    assert refused.exit_code == 2 and "'src/apii' names a folder shop does not have" in refused.stderr
    assert json.loads(lore("review", "--name", "shop", "list", "--json").stdout) == []
    assert lore("train", guide, "--name", "shop", "--scope", "src/api").exit_code == 0
