"""The ingest's bulk writes mean the same on both backends: on PostgreSQL they go through COPY
(and a temporary copy of the table for `INSERT OR IGNORE`), where SQLite runs `executemany`."""

from __future__ import annotations

import pytest

from lore.history import store as sql

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _graph() -> tuple[sql.HistoryStore, int, list[int]]:
    db = sql.open_history()
    with db.transaction() as tx:
        repo = tx.create_repo("bulk", "/tmp/bulk", None)
        first = tx.reserve_node_ids(4)
        ids = list(range(first, first + 4))
        tx.insert_nodes([(i, repo, "file", f"f{i}", "", float(i)) for i in ids])
    return db, repo, ids


def test_a_repeated_key_keeps_its_first_row_and_later_batches_keep_theirs() -> None:
    db, _repo, (a, b, c, _d) = _graph()
    with db.transaction() as tx:
        tx.insert_changes(
            [(a, b, "M", None, 1, 0, 10.0), (a, b, "D", None, 9, 9, 99.0), (a, c, "A", None, 2, 0, 11.0)]
        )
    with db.transaction() as tx:  # a second batch: the stored row stays, the new one is added
        tx.insert_changes([(a, b, "R", "old", 5, 5, 50.0), (b, c, "M", None, 3, 1, 12.0)])
    rows = db.store.connect().execute(
        "SELECT commit_id, file_id, status, added, at FROM history_changes ORDER BY commit_id, file_id"
    )
    assert [tuple(r) for r in rows] == [(a, b, "M", 1, 10.0), (a, c, "A", 2, 11.0), (b, c, "M", 3, 12.0)]


def test_edges_repeated_in_one_write_count_once_with_their_first_time() -> None:
    db, _repo, (a, b, c, d) = _graph()
    with db.transaction() as tx:
        added = tx.graph.add_edges([(a, b, "X", 1.0), (a, b, "X", 7.0), (c, d, "X", None), (a, b, "Y", 2.0)])
    assert added == 3
    with db.transaction() as tx:
        assert tx.graph.add_edges([(a, b, "X", 9.0), (b, c, "X", 3.0)]) == 1
    conn = db.store.connect()
    edges = conn.execute("SELECT src, dst, rel, at FROM history_edges ORDER BY src, dst, rel").fetchall()
    assert [tuple(e) for e in edges] == [
        (a, b, "X", 1.0),
        (a, b, "Y", 2.0),
        (b, c, "X", 3.0),
        (c, d, "X", None),
    ]
    degrees = dict(conn.execute("SELECT id, degree FROM history_nodes").fetchall())
    assert degrees == {a: 2, b: 3, c: 2, d: 1}
