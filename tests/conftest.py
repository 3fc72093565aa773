"""Every test gets its own `$LORE_HOME` (a real SQLite file in a temp dir) and git identity."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lore.core.store import forget_stores

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(autouse=True)
def lore_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "lore-home"
    monkeypatch.setenv("LORE_HOME", str(home))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test User")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test User")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")
    # the user's global git identity, which is all trust believes: one file per test
    gitconfig = tmp_path / "global.gitconfig"
    gitconfig.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.delenv("GH_TOKEN", raising=False)  # trust asks GitHub whose a token is
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "LORE_MODEL", "GITHUB_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    forget_stores()
    yield home
    forget_stores()


def git(cwd: Path, *args: str) -> str:
    """Run git in a test repository and return its stdout."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def make_repo(root: Path, files: dict[str, str] | None = None, commit: bool = True) -> Path:
    """A real git repository with the given files committed."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test User")
    git(root, "config", "user.email", "test@example.com")
    for rel, text in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if commit and files:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture
def shared_data() -> Path:
    if not SHARED.exists():
        pytest.skip("../shared/data is not present")
    return SHARED
