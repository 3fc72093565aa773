"""A store an older Lore wrote keeps its why texts and loses the full-text index no question reads
(FTS5 on SQLite; the generated `tsvector` column and its GIN index on PostgreSQL)."""

from __future__ import annotations

import pytest

from lore.core.store.base import Store
from lore.core.store.move import full_text_indexes
from lore.core.store.open import open_store_for
from lore.history.store.schema import MIGRATIONS as LAYER1
from lore.history.why.store import MIGRATIONS as WHY
from lore.history.why.store import open_why
from lore.history.why.symbols_store import SymbolStore

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _columns(store: Store, table: str) -> set[str]:
    conn = store.connect()
    if store.dialect == "sqlite":
        return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
    rows = conn.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ?", (table,))
    return {r[0] for r in rows}


def test_the_full_text_index_goes_and_the_texts_stay() -> None:
    store = open_store_for(LAYER1 + WHY)
    store.migrate(LAYER1)
    store.migrate(WHY[:4])  # a store from before history/why_0005
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO history_why_docs (repo_id, kind, source_id, at, version, text)"
            " VALUES (1, 'commit', 7, 0, 0, 'Round totals to cents')"
        )
        if store.dialect == "sqlite":  # the FTS5 rows were written beside each text
            conn.execute("INSERT INTO history_why_fts (rowid, text) SELECT id, text FROM history_why_docs")
    # FTS5's table on SQLite; on PostgreSQL the generated column (`full_text_indexes` is empty)
    assert ("history_why_fts" in full_text_indexes(store)) == (store.dialect == "sqlite")
    assert ("words" in _columns(store, "history_why_docs")) == (store.dialect == "postgres")

    db = open_why(store)
    assert [d.text for d in db.docs(1)] == ["Round totals to cents"]
    assert "history_why_fts" not in full_text_indexes(store)
    assert "words" not in _columns(store, "history_why_docs")


def test_the_identifier_scan_starts_again_to_read_hunk_headers() -> None:
    """A store scanned before hunk headers were read forgets where its scan ended, so the next
    ingest reads every diff again and lists the commits that changed inside a definition."""
    store = open_store_for(LAYER1 + WHY)
    store.migrate(LAYER1)
    store.migrate(WHY[:5])  # a store from before history/why_0006
    with store.transaction() as conn:
        conn.execute("INSERT INTO history_why_symbol_state (repo_id, head) VALUES (1, 'abc123')")
    open_why(store)
    assert SymbolStore(store).scanned(1) is None
