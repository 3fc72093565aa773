"""Every test gets its own `$LORE_HOME` (a real SQLite file in a temp dir) and git identity."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lore.core.store.open import forget_stores

# The shared books and real rules next to the checkout; LORE_SHARED_DATA points elsewhere.
# A terminal size exported by the runner (pytest-xdist workers export COLUMNS=80 and LINES=24)
# would fix the width of the CLI's consoles when they are created at import, and the tests that
# set COLUMNS for one command would then see 80 columns whatever they ask for.
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)

SHARED = Path(os.environ.get("LORE_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
IN_CI = os.environ.get("LORE_CI") == "1"  # set by .ci/run


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
    # the hash embedder, not the WordLlama default: the same vectors on every machine, so search
    # results are reproducible; tests of the real default take it off (tests/core/test_default_embedder.py)
    monkeypatch.setenv("LORE_EMBED", "hash")
    for key in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "LORE_MODEL",
        "GITHUB_TOKEN",
        "LORE_DATABASE_URL",
    ):
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


_MISSING_IN_CI = "is missing; CI needs it (put it there or set LORE_SHARED_DATA)"


@pytest.fixture
def shared_data() -> Path:
    """The shared data folder. Missing, it fails the test under CI (a CI run that skips the real
    books and rules would pass without testing them) and skips it, saying why, elsewhere."""
    if not SHARED.is_dir():
        if IN_CI:
            pytest.fail(f"the shared data folder {SHARED} {_MISSING_IN_CI}", pytrace=False)
        pytest.skip(f"the shared data folder {SHARED} is not present (CI fails without it)")
    return SHARED


# -- the two backends -------------------------------------------------------------------------
BACKENDS = ("sqlite", "postgres")


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL with pgvector for this test process. When it cannot start, its tests
    fail under CI (a CI run that skipped them would pass without testing PostgreSQL at all) and
    skip, saying why, elsewhere."""
    try:
        from support.postgres import TestServer

        server = TestServer()
    except Exception as exc:
        reason = f"PostgreSQL did not start ({exc.__class__.__name__}: {str(exc)[:200]})"
        if IN_CI:
            pytest.fail(f"{reason}; CI needs it (pip install -e '.[dev]')", pytrace=False)
        pytest.skip(f"{reason}; CI fails without it")
    yield server
    server.stop()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, lore_home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test on each backend: the embedded file, then a fresh PostgreSQL database named
    by `LORE_DATABASE_URL` (which subprocesses the test starts inherit). Modules opt in with
    `pytestmark = pytest.mark.usefixtures("backend")`."""
    name = str(request.param)
    if name == "sqlite":
        monkeypatch.delenv("LORE_DATABASE_URL", raising=False)
        yield name
        return
    server = request.getfixturevalue("postgres_server")
    url = server.fresh_database()
    monkeypatch.setenv("LORE_DATABASE_URL", url)
    forget_stores()
    yield name
    forget_stores()
    server.drop(url)


class _NeverRaised(Exception):
    """Raised by nothing: an xfail that expects it turns any other failure into a failure."""


@pytest.hookimpl(trylast=True)  # after -k / -m deselection: only the tests that will run
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under CI with the shared data missing, the tests that need it must fail, including those
    marked xfail, whose failed set-up would otherwise pass for the expected failure. The closest
    xfail mark now expects an exception nothing raises, so the set-up failure is reported as
    failed (on every xdist worker too, since each one collects)."""
    if not IN_CI or SHARED.is_dir():
        return
    needed = [i for i in items if "shared_data" in getattr(i, "fixturenames", ())]
    for item in needed:
        if item.get_closest_marker("xfail") is not None:
            item.add_marker(
                pytest.mark.xfail(raises=_NeverRaised, reason="shared data missing"), append=False
            )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line at the end for all the tests the missing folder failed (read from the reports,
    so it is counted on the xdist controller as well)."""
    failed = [
        r
        for kind in ("error", "failed")
        for r in terminalreporter.stats.get(kind, [])
        if _MISSING_IN_CI in str(getattr(r, "longrepr", ""))
    ]
    if failed:
        terminalreporter.write_line(
            f"error: the shared data folder {SHARED} is missing; {len(failed)} test(s) need it "
            "and CI fails without them (put it there or set LORE_SHARED_DATA)",
            red=True,
        )


def pytest_report_header() -> str:
    state = "present" if SHARED.is_dir() else "missing: " + ("tests fail (CI)" if IN_CI else "tests skip")
    return f"shared data: {SHARED} ({state})"
