"""Why a file is there is answered by the change that brought it in: asked as a bare path or as
a question of the kind "why does PATH exist", the commit that created the file (before its move
into another folder) ranks above the later changes that touched it, mentioned it or moved it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from lore.history.why.asks import asks_existence
from lore.history.why.service import gather, units
from support.history_repo import HistoryRepo, lines

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

CONSOLE = "def wrap(stream):\n    return stream\n"


def _console_history(r: HistoryRepo) -> tuple[str, str]:
    """A console module created, moved into src/, then touched by sweeps and fixes whose
    subjects name it; returns the creating commit and the move."""
    r.commit("Start the project", {"app/core.py": lines(5, "core")})
    created = r.commit("Support unicode output on the Windows terminal", {"app/console.py": CONSOLE})
    r.git("mv", "app", "src")
    r.git("commit", "-q", "-m", "Move to a src directory")
    moved = r.head()
    r.commit("Fix a typo in console.py", {"src/console.py": CONSOLE + "# the console\n"})
    r.commit(
        "Add type annotations to console.py and core",
        {
            "src/console.py": "def wrap(stream: object) -> object:\n    return stream\n# the console\n",
            "src/core.py": lines(5, "core") + "x: int = 1\n",
        },
    )
    r.commit("Use the console in core", {"src/core.py": lines(5, "core") + "import console\n"})
    r.commit(
        "Check the stream exists before the console wraps it",
        {"src/console.py": "def wrap(stream):\n    assert stream is not None\n    return stream\n"},
    )
    return created, moved


def test_a_bare_path_ranks_the_commit_that_created_the_file_first(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "shell")
    created, moved = _console_history(r)
    ingest_git(r.root)
    ranked = units(gather(resolve_repo(str(r.root)), "src/console.py").evidence)
    assert ranked[0] == f"commit:{created}"
    assert ranked.index(f"commit:{created}") < ranked.index(f"commit:{moved}")


def test_asking_why_a_file_exists_ranks_its_creation_first(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "shell")
    created, _moved = _console_history(r)
    ingest_git(r.root)
    repo = resolve_repo(str(r.root))
    for question in ("Why does src/console.py exist?", "Why is there a src/console.py?"):
        assert units(gather(repo, question).evidence)[0] == f"commit:{created}", question


def test_existence_is_asked_only_by_its_own_words() -> None:
    assert asks_existence("Why does click ship src/click/_winconsole.py?")
    assert asks_existence("Why does src/click/_textwrap.py exist as its own module?")
    assert not asks_existence("Why does src/console.py flush the stream twice?")


def test_a_project_having_a_file_asks_why_it_is_there() -> None:
    assert asks_existence("Why does fastapi have scripts/add_release_date.py?")
    assert asks_existence("Why does the repo keep .github/workflows/guard.yml?")
    assert not asks_existence("Why does wrap() have a second argument?")


def test_a_dot_file_named_in_a_question_keeps_its_leading_dot(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "dots")
    r.commit("Start the project", {"app/core.py": lines(5, "core")})
    created = r.commit(
        "Only let maintainers change the dependency pins",
        {".github/workflows/guard.yml": "on: pull_request\n"},
    )
    r.commit("Rename the guard job", {".github/workflows/guard.yml": "on: [pull_request]\n"})
    r.commit(
        "Fix a typo in the workflows' comments", {".github/workflows/guard.yml": "on: [pull_request]\n# ok\n"}
    )
    ingest_git(r.root)
    repo = resolve_repo(str(r.root))
    ranked = units(gather(repo, "Why does the project have .github/workflows/guard.yml?").evidence)
    assert ranked[0] == f"commit:{created}"
