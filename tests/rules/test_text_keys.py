"""Migration 0004 (normalised-text keys) on a store that already holds duplicates."""

from pathlib import Path

import pytest

from conftest import make_repo
from lore.core.store.open import open_store
from lore.rules import service
from lore.rules.store.rules import MIGRATIONS, rules_store, text_key

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


def test_the_migration_keys_existing_rules_duplicates_included(tmp_path: Path) -> None:
    store = open_store()
    store.migrate(MIGRATIONS[:3])  # a store from before the keys
    with store.transaction() as tx:
        tx.execute("INSERT INTO projects (name, path, created_at) VALUES ('old', '/srv/old', 0)")
        for n, text in enumerate(["Use tabs", "use   TABS", "Prefer pathlib"]):
            tx.execute(
                "INSERT INTO rules (id, project_id, text, status, source, created_at, updated_at)"
                " VALUES (?, 1, ?, 'active', 'user', ?, ?)",
                (f"0000000{n}", text, n, n),
            )
    rules = rules_store()  # applies 0004
    assert [r.id for r in rules.rules_with_text(1, "USE tabs")] == ["00000000", "00000001"]
    assert len(rules.rules(1)) == 3 and "rules/0004_rule_text_keys" in store.applied_migrations()


def test_new_and_edited_rules_are_keyed(tmp_path: Path) -> None:
    project, _ = service.register_project(make_repo(tmp_path / "shop", {"a.py": "x"}))
    rule = service.add_rule(project, "Keep handlers small")
    assert [r.id for r in rules_store().rules_with_text(project.id, " keep HANDLERS  small ")] == [rule.id]
    service.edit(rule, text="Keep handlers tiny")
    assert rules_store().rules_with_text(project.id, "keep handlers small") == []
    assert [r.id for r in rules_store().rules_with_text(project.id, "Keep handlers tiny")] == [rule.id]
    assert text_key("A  b") == text_key("a b")
