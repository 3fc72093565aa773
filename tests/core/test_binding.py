"""The one helper for `IN (...)` placeholders: every list size binds, an empty list matches nothing."""

from __future__ import annotations

from pathlib import Path

from lore.core.store.binding import bind_named, in_marks
from lore.core.store.open import open_store


def test_positional_and_named_lists_select_what_they_name(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "b.db").connect()
    conn.execute("CREATE TABLE t (v INTEGER)")
    conn.executemany("INSERT INTO t (v) VALUES (?)", [(i,) for i in range(10)])
    for wanted in ([], [3], [1, 5, 7]):
        rows = conn.execute(f"SELECT v FROM t WHERE v IN ({in_marks(wanted)}) ORDER BY v", wanted)
        assert [r[0] for r in rows] == wanted
        params: dict = {}
        marks = bind_named(params, "x", wanted)
        rows = conn.execute(f"SELECT v FROM t WHERE v IN ({marks}) ORDER BY v", params)
        assert [r[0] for r in rows] == wanted
