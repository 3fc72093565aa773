"""The rules store turns the driver's integrity error into AlreadyExists and returns records."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.core.errors import AlreadyExists
from lore.rules.store.rules import rules_store
from lore.rules.store.sessions import session_store
from support.records import records_only

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


def test_a_second_project_at_the_same_path_is_already_exists_and_the_first_is_kept(tmp_path: Path) -> None:
    rules = rules_store()
    first = rules.insert_project("app", tmp_path / "app", ["src"])
    with pytest.raises(AlreadyExists, match="already exists"):
        rules.insert_project("other", tmp_path / "app", [])
    with pytest.raises(AlreadyExists):
        rules.insert_project("app", tmp_path / "elsewhere", [])
    assert rules.projects() == [first]
    sessions = session_store()
    sessions.record_outcome("s1", "r1", first.id, "activated", "fine")
    records_only(projects=rules.projects(), outcomes=sessions.outcomes(first.id))
