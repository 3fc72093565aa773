"""A real git repository with the shapes history must handle: renames, merges, a sweeping
commit, a bot, PR numbers in subjects, a path reused after a rename, a PR ref."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lore.core.store.open import forget_stores
from support.history_repo import BOB, CAROL, DEPENDABOT, HistoryRepo, lines, run_git
from support.history_why import WhyRepo, build_why_repo, ingest_with_threads


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


@pytest.fixture
def fresh_store(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Switch the test to a second, empty store on the same backend (a run to compare with):
    a new `$LORE_HOME`, and on PostgreSQL a new database as well."""

    def switch(name: str) -> None:
        monkeypatch.setenv("LORE_HOME", str(tmp_path / name))
        if os.environ.get("LORE_DATABASE_URL"):
            server = request.getfixturevalue("postgres_server")
            url = server.fresh_database()
            monkeypatch.setenv("LORE_DATABASE_URL", url)

            def drop() -> None:
                forget_stores()
                server.drop(url)

            request.addfinalizer(drop)
        forget_stores()

    return switch


@pytest.fixture
def why_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WhyRepo:
    """The why repository, its git history and its threads (through the fake GitHub) ingested;
    modules that ingest the git history alone define their own."""
    monkeypatch.setenv("LORE_EMBED", "hash")
    built = build_why_repo(tmp_path / "app")
    ingest_with_threads(built, monkeypatch)
    return built
