"""The history store hands out records: a sample of its reads on a real ingested repository."""

from __future__ import annotations

import pytest

from lore.core.errors import AlreadyExists
from lore.history import store as sql
from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from support.records import records_only

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def test_history_reads_return_records(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    db = sql.open_history()
    file = db.find_node(repo.id, "file", "src/helpers.py")
    assert file is not None
    commits = db.find_commit_by_prefix(repo.id, "")
    segments = [(file.id, float("-inf"), float("inf"))]
    records_only(
        repos=db.list_repos(),
        repo=db.repo_by_id(repo.id),
        node=file,
        people=db.find_people(repo.id, "bob"),
        files=db.find_files_by_suffix(repo.id, "helpers.py"),
        changes=db.changes(repo.id),
        renames=db.renames(repo.id),
        timeline=db.file_timeline(segments),
        commit_details=db.commit_details([c.id for c in commits]),
        stats=db.stats(repo.id),
        walk=db.graph.walk(file.id, depth=2),
        parents=db.commit_parents(repo.id),
    )


def test_a_file_is_found_by_the_end_of_its_path_in_any_case(history_repo) -> None:
    ingest_git(history_repo.root)
    repo = resolve_repo(str(history_repo.root))
    db = sql.open_history()
    file = db.find_node(repo.id, "file", "src/helpers.py")
    assert file is not None
    assert db.find_files_by_suffix(repo.id, "helpers.py") == [file]
    assert db.find_files_by_suffix(repo.id, "Helpers.PY") == [file]
    assert db.find_files_by_suffix(repo.id, "elpers.py") == []  # whole path segments only


def test_a_taken_repository_identity_is_already_exists_and_the_first_is_kept() -> None:
    db = sql.open_history()
    first = db.repo_by_id(db.create_repo("app", "/src/app", None))
    with pytest.raises(AlreadyExists, match="already exists"):
        db.create_repo("app-2", "/src/app", None)
    with pytest.raises(AlreadyExists):
        db.create_repo("app", "/src/other", None)
    assert db.list_repos() == [first]
