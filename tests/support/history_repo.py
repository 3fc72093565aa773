"""A real git repository built step by step for history tests: fixed dates, chosen authors."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

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


def merge(repo: HistoryRepo, branch: str, message: str, resolve: dict[str, str | None] | None = None) -> str:
    """Merge `branch` into the current one with a merge commit; on a conflict, write `resolve`
    (path -> text, None to delete the path) and commit the resolution as the merge."""
    repo.day += 1
    when = T0 + repo.day * DAY
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_DATE": f"@{when} +0000"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    done = subprocess.run(
        ["git", "merge", "-q", "--no-ff", branch, "-m", message],
        cwd=repo.root,
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode != 0:
        for rel, text in (resolve or {}).items():
            if text is None:
                run_git(repo.root, "rm", "-q", "--ignore-unmatch", rel)
            else:
                write(repo.root, rel, text)
                run_git(repo.root, "add", rel)
        subprocess.run(["git", "commit", "-q", "--no-edit"], cwd=repo.root, check=True, env=env)
    return repo.head()


def git_commits_touching(repo: Path, path: str, *extra: str) -> list[str]:
    """What git itself lists for a path, newest first: non-merge commits, and `--full-history`
    so a side branch whose change the merge did not keep is still listed (git's default prunes
    it; Lore shows it, since it happened to the file)."""
    out = run_git(repo, "log", "--no-merges", "--full-history", "--format=%H", *extra, "--", path)
    return out.split()
