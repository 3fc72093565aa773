"""A real git repository with the shapes history must handle: renames, merges, a sweeping
commit, a bot, PR numbers in subjects, a path reused after a rename, a PR ref."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

DAY = 86400
T0 = 1_700_000_000  # 2023-11-14


def run_git(repo: Path, *args: str, when: int | None = None, who: tuple[str, str] | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    if who is not None:
        env["GIT_AUTHOR_NAME"], env["GIT_AUTHOR_EMAIL"] = who
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env
    ).stdout


def write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


ALICE = ("Alice", "alice@example.com")
BOB = ("Bob", "1234+bob@users.noreply.github.com")
CAROL = ("Carol", "carol@example.com")
DEPENDABOT = ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com")


class HistoryRepo:
    """Builds the repository step by step; `day` advances the clock."""

    def __init__(self, root: Path):
        self.root = root
        self.day = 0
        root.mkdir(parents=True)
        run_git(root, "init", "-q", "-b", "main")
        run_git(root, "config", "user.name", "Test User")
        run_git(root, "config", "user.email", "test@example.com")

    def commit(self, message: str, files: dict[str, str], who=ALICE, *extra: str) -> str:
        self.day += 1
        for rel, text in files.items():
            write(self.root, rel, text)
        run_git(self.root, "add", "-A")
        run_git(self.root, "commit", "-q", "-m", message, *extra, when=T0 + self.day * DAY, who=who)
        return self.head()

    def head(self) -> str:
        return run_git(self.root, "rev-parse", "HEAD").strip()

    def git(self, *args: str, who=ALICE) -> str:
        self.day += 1
        return run_git(self.root, *args, when=T0 + self.day * DAY, who=who)


def lines(n: int, tag: str) -> str:
    return "".join(f"{tag} line {i}\n" for i in range(n))


@pytest.fixture
def history_repo(tmp_path: Path) -> HistoryRepo:
    r = HistoryRepo(tmp_path / "project")
    gen = {f"gen/mod{i:02d}.py": lines(3, f"m{i}") for i in range(40)}
    r.commit(
        "Add core module",
        {
            "src/core.py": lines(10, "core"),
            "src/util.py": lines(20, "util"),
            "README.md": "# project\n",
            "docs/naïve file.md": "hi\n",
            **gen,
        },
    )
    r.commit("Improve core (#12)", {"src/core.py": lines(12, "core")})
    r.git("mv", "src/util.py", "src/helpers.py")
    r.commit("Move util to helpers (#13)", {}, BOB)
    r.commit("Tune helpers", {"src/helpers.py": lines(20, "util") + "extra\n"}, BOB)
    r.git("checkout", "-q", "-b", "feature")
    r.commit(
        "Feature work on core",
        {"src/core.py": lines(14, "core"), "src/helpers.py": lines(20, "util") + "extra\nmore\n"},
        CAROL,
    )
    r.git("checkout", "-q", "main")
    r.commit("Docs touch", {"README.md": "# project\n\nmore\n"})
    r.git("merge", "-q", "--no-ff", "feature", "-m", "Merge pull request #14 from carol/feature")
    r.commit("Bump requests from 1.0 to 2.0", {"requirements.txt": "requests==2.0\n"}, DEPENDABOT)
    r.commit(
        "Reformat everything",
        {**{k: v + "# fmt\n" for k, v in gen.items()}, "src/core.py": lines(14, "core") + "# fmt\n"},
    )
    r.commit("New util, unrelated to the old one", {"src/util.py": "fresh\n"}, CAROL)
    rebased = r.commit("Rebased change", {"src/core.py": lines(15, "core") + "# fmt\n"}, CAROL)
    run_git(r.root, "update-ref", "refs/pull/16/head", rebased)
    return r
