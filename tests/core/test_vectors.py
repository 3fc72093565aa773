"""The vector index: exact neighbours, filters applied before top-k, models kept apart."""

from __future__ import annotations

import os
import subprocess
import sys
from itertools import pairwise

import numpy as np
import pytest

from lore.core.embed import HashEmbedder
from lore.core.errors import InvalidInput
from lore.core.store.base import Store
from lore.core.store.move import check, move
from lore.core.store.open import forget_stores, open_database, open_store
from lore.core.store.vectors.schema import MIGRATIONS
from lore.core.vectors import (
    VectorIndex,
    VectorSpace,
    collections,
    drop_collection,
    sqlite_vec_status,
)

pytestmark = pytest.mark.usefixtures("backend")

SPACE = VectorSpace("random-test", 16)


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


LATE = np.eye(16, dtype=np.float32)[0]  # a direction the late chapters lean towards


def _filled(n: int = 400, seed: int = 7, store: Store | None = None) -> tuple[VectorIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, SPACE.dim)).astype(np.float32)
    vectors[[i for i in range(n) if i % 40 + 1 >= 30]] += 3 * LATE
    vectors = _unit(vectors)
    index = VectorIndex("passages", SPACE, store)
    index.add((f"p{i}", vectors[i], {"chapter_seq": i % 40 + 1, "book": "ab"[i % 2]}) for i in range(n))
    return index, vectors


def _oracle(vectors: np.ndarray, query: np.ndarray, allowed: list[int], k: int) -> list[str]:
    """Brute force, independent of the index: score every allowed row, best first."""
    scored = sorted(allowed, key=lambda i: (-float(vectors[i] @ query), i))
    return [f"p{i}" for i in scored[:k]]


def test_exact_neighbours_match_brute_force() -> None:
    index, vectors = _filled()
    query = vectors[5] + 0.1 * vectors[9]
    query = query / np.linalg.norm(query)
    hits = index.search(query, k=8)
    assert [h.key for h in hits] == _oracle(vectors, query, list(range(len(vectors))), 8)
    assert hits[0].key == "p5"
    assert hits[0].meta == {"chapter_seq": 6, "book": "b"}
    assert all(a.score >= b.score for a, b in pairwise(hits))


def test_filter_applies_before_top_k_and_never_returns_fewer_than_exist() -> None:
    index, vectors = _filled()
    query = LATE
    unfiltered = index.search(query, k=10)
    assert all(h.meta["chapter_seq"] >= 30 for h in unfiltered)  # a post-filter would find none

    capped = index.search(query, k=10, where={"chapter_seq": ("<=", 3)})
    early = [i for i in range(len(vectors)) if i % 40 + 1 <= 3]
    assert [h.key for h in capped] == _oracle(vectors, query, early, 10)
    assert len(capped) == 10

    # asking for more than the filter holds returns exactly what it holds
    only_one_chapter = index.search(query, k=100, where={"chapter_seq": 1})
    assert len(only_one_chapter) == index.count({"chapter_seq": 1}) == 10
    assert index.search(query, k=5, where={"chapter_seq": ("<", 0)}) == []


def test_or_filters_express_per_book_caps() -> None:
    index, vectors = _filled()
    where = [{"book": "a"}, {"book": "b", "chapter_seq": ("<=", 6)}]
    hits = index.search(vectors[3], k=400, where=where)
    allowed = [i for i in range(len(vectors)) if i % 2 == 0 or (i % 2 == 1 and i % 40 + 1 <= 6)]
    assert [h.key for h in hits] == _oracle(vectors, vectors[3], allowed, 400)
    assert index.count(where) == len(allowed)


def test_questions_under_one_cap_stay_exact_and_see_every_write() -> None:
    """The rows a filter keeps, and for a narrow one their vectors, are remembered per loaded
    matrix; each question is still the brute force's answer, and a write (a new matrix) is seen."""
    index, vectors = _filled()
    narrow = {"chapter_seq": ("<=", 3)}  # 30 of 400 rows: scored from a copy of its rows
    broad = [{"book": "a"}, {"book": "b", "chapter_seq": ("<=", 30)}]  # most rows: scored in place
    early = [i for i in range(len(vectors)) if i % 40 + 1 <= 3]
    kept = [i for i in range(len(vectors)) if i % 2 == 0 or i % 40 + 1 <= 30]
    for seed in range(6):
        query = _unit(np.random.default_rng(seed).normal(size=(1, SPACE.dim)).astype(np.float32))[0]
        assert [h.key for h in index.search(query, k=5, where=narrow)] == _oracle(vectors, query, early, 5)
        assert [h.key for h in index.search(query, k=5, where=broad)] == _oracle(vectors, query, kept, 5)
    # a new passage under the cap, pointing where the question points, is the next answer
    index.add([("late-added", LATE, {"chapter_seq": 2, "book": "a"})])
    assert index.search(LATE, k=1, where=narrow)[0].key == "late-added"
    assert index.count(narrow) == len(early) + 1


def test_in_not_in_text_ordering_and_missing_fields() -> None:
    index = VectorIndex("mixed", SPACE)
    base = np.eye(16, dtype=np.float32)
    index.add(
        [
            ("n1", base[0], {"seq": 1, "tag": "alpha"}),
            ("n2", base[1], {"seq": 2, "tag": "beta"}),
            ("n3", base[2], {"seq": "3", "tag": "gamma"}),  # text, not a number
            ("n4", base[3], {}),
            ("n5", base[4], {"seq": 5.5, "flag": True}),
        ]
    )
    keys = lambda where: sorted(h.key for h in index.search(base[0], k=10, where=where))  # noqa: E731
    assert keys({"seq": ("in", [1, 5.5])}) == ["n1", "n5"]
    assert keys({"seq": ("not in", [1])}) == ["n2", "n5"]  # n3 is text, n4 has no seq
    assert keys({"seq": ("!=", 2)}) == ["n1", "n5"]
    assert keys({"seq": "3"}) == ["n3"]
    assert keys({"tag": (">=", "beta")}) == ["n2", "n3"]
    assert keys({"flag": 1}) == ["n5"]
    assert keys([]) == []
    with pytest.raises(InvalidInput):
        index.search(base[0], where={"seq": ("~", 1)})
    with pytest.raises(InvalidInput):
        index.search(base[0], where={"bad field": 1})
    with pytest.raises(InvalidInput):
        index.search(base[0], where={"seq": ("in", [1, "x"])})


def test_counting_asks_the_store_until_the_matrix_is_loaded_and_both_agree() -> None:
    """`count` before any search is the database's count (nothing loaded: a collection that
    pgvector searches in place is never pulled into memory just to be counted), and every
    filter shape counts the same from the store as from the loaded matrix."""
    from lore.core import vector_matrix

    index, _ = _filled()
    base = np.eye(16, dtype=np.float32)
    index.add([("t", base[0], {"chapter_seq": "3", "book": "a"}), ("m", base[1], {"book": 7})])
    wheres = [
        None,
        {"chapter_seq": 3},
        {"chapter_seq": "3"},
        {"book": "a", "chapter_seq": ("<=", 4)},
        [{"book": "a"}, {"book": "b", "chapter_seq": ("<=", 6)}],
        {"chapter_seq": ("in", [1, 2, 40])},
        {"chapter_seq": ("not in", [1])},
        {"book": ("!=", "a")},
        {"book": (">=", "b")},
        [],
    ]
    vector_matrix._loaded.clear()
    from_store = [index.count(where) for where in wheres]
    assert not vector_matrix._loaded  # counted without loading the collection
    index.search(base[0], k=1)  # loads it
    assert vector_matrix._loaded
    assert [index.count(where) for where in wheres] == from_store
    assert from_store[:4] == [402, 10, 1, 20]  # the text "3" is no number: not under the cap


def test_models_never_mix_in_one_collection() -> None:
    a = VectorIndex("shared", VectorSpace("model-a", 4))
    b = VectorIndex("shared", VectorSpace("model-b", 4))
    a.add([("x", [1, 0, 0, 0], None)])
    b.add([("y", [1, 0, 0, 0], None)])
    assert [h.key for h in a.search([1, 0, 0, 0])] == ["x"]
    assert [h.key for h in b.search([1, 0, 0, 0])] == ["y"]
    with pytest.raises(InvalidInput, match="dimension"):
        VectorIndex("shared", VectorSpace("model-a", 8)).add([("z", np.ones(8), None)])
    with pytest.raises(InvalidInput, match="dimensions"):
        a.search(np.ones(3))
    listed = {(c["embedder"], c["dim"], c["vectors"]) for c in collections()}
    assert listed == {("model-a", 4, 1), ("model-b", 4, 1)}
    assert a.keys() == {"x"}
    assert drop_collection("shared") == 2
    assert a.search([1, 0, 0, 0]) == [] and b.keys() == set()


def test_writes_update_search_and_deletes_remove() -> None:
    index, vectors = _filled(40)
    assert index.search(vectors[0], k=1)[0].key == "p0"
    index.add([("p0", vectors[1], {"chapter_seq": 99})])  # replace p0's vector and meta
    assert index.count() == 40
    assert index.count({"chapter_seq": 99}) == 1
    assert {h.key for h in index.search(vectors[1], k=2)} == {"p0", "p1"}
    assert index.delete(["p0", "missing"]) == 1
    assert index.delete(where={"book": "a"}) == 19  # p0 was the twentieth
    assert index.count() == 20
    assert index.clear() == 20
    assert index.search(vectors[1]) == []
    with pytest.raises(InvalidInput):
        index.delete()


def test_another_process_writing_invalidates_the_in_memory_matrix(tmp_path) -> None:
    index = VectorIndex("shared", SPACE)
    index.add([("first", np.eye(16)[0], None)])
    assert [h.key for h in index.search(np.eye(16)[1], k=5)] == ["first"]
    code = (
        "import numpy as np; from lore.core.vectors import VectorIndex, VectorSpace;"
        "VectorIndex('shared', VectorSpace('random-test', 16)).add([('second', np.eye(16)[1], None)])"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))
    assert [h.key for h in index.search(np.eye(16)[1], k=5)] == ["second", "first"]


def test_texts_in_and_text_queries_with_an_embedder() -> None:
    index = VectorIndex("book:1", HashEmbedder())
    index.add_texts(
        [
            ("c1", "Holmes lit his pipe and studied the muddy footprints.", {"chapter_seq": 1}),
            ("c2", "The bank raised interest rates again.", {"chapter_seq": 2}),
            ("c3", "Footprints in the mud led to the garden gate.", {"chapter_seq": 3}),
        ]
    )
    hits = index.search("muddy footprints", k=3)
    assert {hits[0].key, hits[1].key} == {"c1", "c3"}
    capped = index.search("muddy footprints", k=3, where={"chapter_seq": ("<=", 2)})
    assert [h.key for h in capped] == ["c1", "c2"]
    raw = VectorIndex("book:1", SPACE)
    with pytest.raises(InvalidInput, match="no embedder"):
        raw.search("text")


def test_bad_vectors_and_metadata_are_refused_and_nothing_is_lost() -> None:
    index, _ = _filled(10)
    with pytest.raises(InvalidInput, match="NaN"):
        index.add([("ok", np.ones(16), None), ("bad", np.full(16, np.nan), None)])
    with pytest.raises(InvalidInput, match="number or text"):
        index.add([("bad", np.ones(16), {"nested": {"a": 1}})])
    assert index.count() == 10


def _vec_available() -> bool:
    return sqlite_vec_status()[0]


def test_the_sql_scan_and_numpy_give_the_same_neighbours(backend: str) -> None:
    """sqlite-vec on SQLite, pgvector on PostgreSQL: filters inside the scan, k rows back."""
    path = "pgvector" if backend == "postgres" else "sqlite-vec"
    if path == "sqlite-vec" and not _vec_available():
        pytest.skip(f"sqlite-vec unavailable: {sqlite_vec_status()[1]}")
    index, _ = _filled(600, seed=11)
    index.add([("empty", np.zeros(16), {"chapter_seq": 1, "book": "a"})])  # no direction
    rng = np.random.default_rng(3)
    filters = [
        None,
        {"chapter_seq": ("<=", 5)},
        [{"book": "a"}, {"book": "b", "chapter_seq": ("<", 10)}],
        {"book": ("in", ["b"]), "chapter_seq": (">", 20)},
        {"chapter_seq": ("not in", [1, 2, 3])},
    ]
    for where in filters:
        for _ in range(5):
            query = rng.normal(size=16)
            fast = index.search(query, k=12, where=where, backend="numpy")
            sql = index.search(query, k=12, where=where, backend=path)
            assert [h.key for h in fast] == [h.key for h in sql]
            assert np.allclose([h.score for h in fast], [h.score for h in sql], atol=1e-5)
            assert [h.meta for h in fast] == [h.meta for h in sql]


def _sql_path(backend: str) -> str:
    path = "pgvector" if backend == "postgres" else "sqlite-vec"
    if path == "sqlite-vec" and not _vec_available():
        pytest.skip(f"sqlite-vec unavailable: {sqlite_vec_status()[1]}")
    return path


def test_the_sql_scan_reads_mixed_metadata_as_numpy_does(backend: str) -> None:
    """Text that looks like a number, booleans, missing fields, text ordering: the filters
    written in SQL (json_extract on SQLite, JSONB on PostgreSQL) agree with numpy's."""
    path = _sql_path(backend)
    index = VectorIndex("mixed", SPACE)
    base = np.eye(16, dtype=np.float32)
    metas = [{"seq": 1, "tag": "alpha"}, {"seq": 2, "tag": "Beta"}, {"seq": "3", "tag": "gamma"}, {}]
    index.add(
        [(f"n{i}", base[i], m) for i, m in enumerate(metas)] + [("n9", base[9], {"seq": 5.5, "flag": True})]
    )
    filters = [
        {"seq": ("in", [1, 5.5])},
        {"seq": ("not in", [1])},
        {"seq": ("!=", 2)},
        {"seq": "3"},
        {"seq": (">", 1.5)},
        {"tag": (">=", "alpha")},  # byte order: "Beta" sorts before "alpha"
        {"tag": ("in", ["gamma", "Beta"])},
        {"flag": 1},
        [{"tag": "alpha"}, {"seq": ("<", 0)}],
        [],
    ]
    for where in filters:
        fast = index.search(base[0] + base[1], k=10, where=where)
        sql = index.search(base[0] + base[1], k=10, where=where, backend=path)
        assert [h.key for h in sql] == [h.key for h in fast], where
    assert [h.key for h in index.search(base[0], k=10, where={"tag": (">=", "alpha")}, backend=path)] == [
        "n0",
        "n2",
    ]


def test_bulk_writes_keep_every_row_and_the_last_of_a_repeated_key(backend: str) -> None:
    """Writes of a few hundred rows (one binary COPY on PostgreSQL: straight into a new
    collection, through a scratch table into one that has rows) and a few rows (an INSERT each)
    leave the same rows as a Python dict of the writes would: a repeated key keeps its last
    vector and metadata, a rewrite replaces, another collection with the same keys is untouched,
    and the cap, the book filter and the scores (from the stored `embedding` on PostgreSQL) come
    out as brute force over the dict says, on every search path of the backend."""
    rng = np.random.default_rng(12)
    other = VectorIndex("other", SPACE)
    other.add((f"k{i}", rng.normal(size=16), {"chapter_seq": 1, "book": "z"}) for i in range(250))
    index = VectorIndex("bulk", SPACE)
    expected: dict[str, tuple[np.ndarray, dict[str, object]]] = {}

    def write(keys: list[int]) -> None:
        batch = [
            (
                f"k{i}",
                _unit(rng.normal(size=(1, 16)))[0],
                {"chapter_seq": int(rng.integers(1, 20)), "book": "ab"[i % 2]},
            )
            for i in keys
        ]
        assert index.add(batch) == len(batch)
        for key, vec, meta in batch:
            expected[key] = (vec, meta)

    write([*range(300), 7, 8])  # a new collection; two keys written twice in one batch
    write(list(range(200, 450)))  # 100 keys rewritten, 150 new
    write([1, 2, 460])  # a few rows
    assert index.count() == len(expected) == 451
    assert other.count(where={"book": "z"}) == 250
    paths = ["numpy", _sql_path(backend)] if backend == "postgres" or _vec_available() else ["numpy"]
    keys = sorted(expected)
    matrix = np.stack([expected[k][0] for k in keys])
    for where, allowed in (
        (None, keys),
        (
            {"book": "a", "chapter_seq": ("<=", 6)},
            [k for k in keys if expected[k][1]["book"] == "a" and expected[k][1]["chapter_seq"] <= 6],
        ),
    ):
        for _ in range(4):
            query = _unit(rng.normal(size=(1, 16)))[0]
            scores = {k: float(matrix[keys.index(k)] @ query) for k in allowed}
            oracle = sorted(allowed, key=lambda k: -scores[k])[:10]
            for path in paths:
                hits = index.search(query, k=10, where=where, backend=path)
                assert [h.key for h in hits] == oracle, path
                assert np.allclose([h.score for h in hits], [scores[k] for k in oracle], atol=1e-5)
                assert [h.meta for h in hits] == [expected[k][1] for k in oracle]


def test_a_store_moved_to_postgres_gives_the_same_neighbours(backend: str, tmp_path, postgres_server) -> None:
    """The same seeded vectors in an embedded file and, moved by `lore store migrate`'s copy
    (bytes only: PostgreSQL derives each pgvector value itself), in PostgreSQL: equal top-k
    from numpy on either, sqlite-vec and pgvector, filtered or not."""
    if backend == "postgres":
        pytest.skip("opens both backends itself")
    source = open_store(tmp_path / "lore.db")
    embedded, _ = _filled(500, seed=21, store=source)
    url = postgres_server.fresh_database()
    try:
        target = open_database(url)
        move(source, target, [MIGRATIONS])
        moved = VectorIndex("passages", SPACE, target)
        paths = [(embedded, "numpy"), (moved, "numpy"), (moved, "pgvector")]
        if _vec_available():
            paths.append((embedded, "sqlite-vec"))
        rng = np.random.default_rng(4)
        for where in (None, {"chapter_seq": ("<=", 4)}, {"book": "b", "chapter_seq": (">=", 35)}):
            for _ in range(4):
                query = rng.normal(size=16)
                results = [
                    [h.key for h in index.search(query, k=10, where=where, backend=b)] for index, b in paths
                ]
                assert len(results[0]) == 10
                assert all(r == results[0] for r in results), where
    finally:
        forget_stores()
        postgres_server.drop(url)


def test_a_filter_is_scanned_exactly_through_its_own_btree(backend: str) -> None:
    """Every path gives brute force's top-k under a selective filter, a broad one, a clause no
    b-tree narrows by and a filter keeping fewer rows than asked (all of them come back); a
    number stored as 3.0 matches a filter on 3 (the b-tree, the GIN containment and the filter
    agree). On PostgreSQL the first search of a filter's shape builds the b-tree over its fields,
    the scan reads the rows through it, and `lore store check` names it."""
    index, vectors = _filled(600, seed=11)
    index.add([("whole", np.eye(16)[1], {"n": 3}), ("float", np.eye(16)[2], {"n": 3.0})])
    paths = ["numpy", index.rows.sql_path] if backend == "postgres" or _vec_available() else ["numpy"]
    cases = [
        ({"book": "a", "chapter_seq": ("<=", 4)}, [i for i in range(600) if i % 2 == 0 and i % 40 + 1 <= 4]),
        (
            [{"book": "b"}, {"chapter_seq": (">", 10)}],
            [i for i in range(600) if i % 2 == 1 or i % 40 + 1 > 10],
        ),
        ({"book": ("!=", "a")}, [i for i in range(600) if i % 2 == 1]),  # no b-tree narrows by `!=`
        ({"book": "a", "chapter_seq": 3}, [i for i in range(600) if i % 2 == 0 and i % 40 + 1 == 3]),
    ]
    rng = np.random.default_rng(3)
    for where, allowed in cases:
        for _ in range(4):
            query = _unit(rng.normal(size=(1, 16)))[0]
            exact = _oracle(vectors, query, allowed, 10)
            for path in paths:
                hits = index.search(query, k=10, where=where, backend=path)
                assert [h.key for h in hits] == exact, (where, path)
        for path in paths:
            assert len(index.search(LATE, k=50, where=where, backend=path)) == min(50, len(allowed))
    for path in paths:
        hits = index.search(np.eye(16)[1], k=5, where={"n": 3}, backend=path)
        assert {h.key for h in hits} == {"float", "whole"}, path
        assert [h.key for h in index.search(np.eye(16)[3], k=5, where={"n": 3.5}, backend=path)] == []
    if backend == "postgres":
        from typer.testing import CliRunner

        from lore.cli.app import app
        from lore.core.store.vectors.filters import pg_vector, pg_where
        from lore.core.vector_filters import parse_where

        built = [i.name for i in check(open_store()).indexes if i.name.startswith("core_vectors_by_")]
        assert len(built) == 4  # (book, chapter_seq), (book), (chapter_seq), (n): not `!=`'s
        conn = open_store().connect()
        where_sql, params = pg_where(parse_where({"book": "a", "chapter_seq": ("<=", 4)}))
        conn.execute(
            "SELECT set_config('enable_seqscan', 'off', false)"
        )  # 600 rows: a read of all is cheaper
        try:
            shown = " ".join(
                r[0]
                for r in conn.execute(
                    "EXPLAIN SELECT id FROM core_vectors WHERE collection = ? AND embedder = ?"
                    f" AND {where_sql} ORDER BY embedding <=> CAST(? AS vector) LIMIT 10",
                    ("passages", SPACE.name, *params, pg_vector(np.eye(16, dtype="<f4")[0].tobytes())),
                ).fetchall()
            )
        finally:
            conn.execute("SELECT set_config('enable_seqscan', 'on', false)")
        assert any(name in shown for name in built), shown
        output = CliRunner().invoke(app, ["store", "check"], env={"COLUMNS": "200"})
        assert output.exit_code == 0, output.output
        assert "b-tree for one shape of filter (exact scans)" in output.output


def test_graphs_an_earlier_version_built_are_dropped(backend: str) -> None:
    """HNSW graphs (the whole one and a prefix tier) that searches built before every search
    was exact are dropped by the migration that follows, so no write keeps them up; the
    filters' b-trees stay. On SQLite the migration changes nothing."""
    store = open_store()
    store.migrate(MIGRATIONS[:2])
    if backend == "postgres":
        with store.transaction() as tx:
            for name, where in (
                ("core_vectors_hnsw_16", "dim = 16"),
                ("core_vectors_hnsw_16_depth_0500", "dim = 16"),
            ):
                tx.execute(
                    f"CREATE INDEX {name} ON core_vectors USING hnsw"
                    f" ((CAST(embedding AS vector(16))) vector_cosine_ops) WHERE {where}"
                )
            tx.execute("CREATE INDEX core_vectors_by_kept ON core_vectors (collection, embedder)")
    index, vectors = _filled(50, seed=2, store=store)  # migrates to the last
    names = {i.name for i in check(store).indexes}
    assert not any(name.startswith("core_vectors_hnsw_") for name in names), names
    if backend == "postgres":
        assert "core_vectors_by_kept" in names
    hits = index.search(vectors[3], k=1, backend=index.rows.sql_path if backend == "postgres" else "numpy")
    assert [h.key for h in hits] == ["p3"]
