"""The SQL of the vector index: stored vectors, their generation counters, the sqlite-vec scan.

`lore.core.vectors` holds the logic (validation, the in-memory matrix, filters in numpy);
this module stores rows and reads them back as plain records. A collection's generation is
bumped in the same transaction as every write, so any process can tell its cached matrix is
stale with one small read.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.core.errors import InvalidInput
from lore.core.store.binding import in_marks
from lore.core.store.sqlite import Migration, Store, open_store_for

MIGRATIONS = [
    Migration(
        "core/vectors_0001_index",
        """
        CREATE TABLE core_vectors (
            id INTEGER PRIMARY KEY,
            collection TEXT NOT NULL,
            embedder TEXT NOT NULL,
            dim INTEGER NOT NULL,
            item_key TEXT NOT NULL,
            vector BLOB NOT NULL,
            meta TEXT NOT NULL DEFAULT '{}',
            UNIQUE (collection, embedder, item_key)
        );
        CREATE TABLE core_vector_generations (
            collection TEXT NOT NULL,
            embedder TEXT NOT NULL,
            dim INTEGER NOT NULL,
            generation INTEGER NOT NULL,
            PRIMARY KEY (collection, embedder)
        );
        """,
    )
]

_CHUNK = 500  # keys per IN (...) delete


@dataclass(frozen=True)
class Condition:
    """One parsed filter term on a metadata field: `op` in SQL spelling, value checked."""

    field: str
    op: str
    value: Any
    numeric: bool


@dataclass(frozen=True)
class StoredVectors:
    """A collection's rows for one embedder: row ids, keys, vector bytes and metadata JSON."""

    ids: list[int]
    keys: list[str]
    vectors: list[bytes]
    metas: list[str]


@dataclass(frozen=True)
class Collection:
    collection: str
    embedder: str
    dim: int
    vectors: int


@dataclass(frozen=True)
class ScoredRow:
    key: str
    meta: str
    distance: float


def _sql_where(clauses: list[list[Condition]]) -> tuple[str, list[Any]]:
    parts, params = [], []
    for clause in clauses:
        terms = []
        for c in clause:
            path = f"'$.{c.field}'"
            kind = "IN ('integer', 'real')" if c.numeric else "= 'text'"
            if c.op in ("IN", "NOT IN"):
                test = f"json_extract(meta, {path}) {c.op} ({in_marks(c.value)})"
                params += list(c.value)
            else:
                test = f"json_extract(meta, {path}) {c.op} ?"
                params.append(c.value)
            terms.append(f"(json_type(meta, {path}) {kind} AND {test})")
        parts.append("(" + (" AND ".join(terms) or "1") + ")")
    return "(" + (" OR ".join(parts) or "0") + ")", params


class VectorStore:
    """The vector tables of one Store, for one collection and embedder at a time."""

    def __init__(self, store: Store | None = None):
        self.store = store or open_store_for(MIGRATIONS)
        self.store.migrate(MIGRATIONS)

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def key(self) -> str:
        """Names this database among others (for per-process caches)."""
        return str(self.store.path)

    def _bump(self, collection: str, embedder: str, dim: int) -> None:
        """Mark the collection changed (invalidates every process's in-memory matrix)."""
        conn = self.store.connect()
        row = conn.execute(
            "SELECT dim FROM core_vector_generations WHERE collection = ? AND embedder = ?",
            (collection, embedder),
        ).fetchone()
        if row is not None and row[0] != dim:
            raise InvalidInput(
                f"collection {collection!r} holds {embedder} vectors of dimension {row[0]}, not {dim}"
            )
        conn.execute(
            "INSERT INTO core_vector_generations (collection, embedder, dim, generation)"
            " VALUES (?, ?, ?, 1) ON CONFLICT (collection, embedder)"
            " DO UPDATE SET generation = generation + 1",
            (collection, embedder, dim),
        )

    def upsert(
        self, collection: str, embedder: str, dim: int, rows: Sequence[tuple[str, bytes, str]]
    ) -> None:
        """Insert or replace (key, vector bytes, metadata JSON) rows."""
        with self.store.transaction() as tx:
            self._bump(collection, embedder, dim)
            tx.executemany(
                "INSERT INTO core_vectors (collection, embedder, dim, item_key, vector, meta)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (collection, embedder, item_key)"
                " DO UPDATE SET vector = excluded.vector, meta = excluded.meta, dim = excluded.dim",
                [(collection, embedder, dim, key, blob, meta) for key, blob, meta in rows],
            )

    def delete(self, collection: str, embedder: str, dim: int, keys: Sequence[str]) -> int:
        removed = 0
        with self.store.transaction() as tx:
            for start in range(0, len(keys), _CHUNK):
                chunk = list(keys[start : start + _CHUNK])
                removed += tx.execute(
                    "DELETE FROM core_vectors WHERE collection = ? AND embedder = ?"
                    f" AND item_key IN ({in_marks(chunk)})",
                    (collection, embedder, *chunk),
                ).rowcount
            if removed:
                self._bump(collection, embedder, dim)
        return removed

    def clear(self, collection: str, embedder: str, dim: int) -> int:
        with self.store.transaction() as tx:
            removed = tx.execute(
                "DELETE FROM core_vectors WHERE collection = ? AND embedder = ?", (collection, embedder)
            ).rowcount
            self._bump(collection, embedder, dim)
        return removed

    def generation(self, collection: str, embedder: str) -> int:
        row = (
            self.store.connect()
            .execute(
                "SELECT generation FROM core_vector_generations WHERE collection = ? AND embedder = ?",
                (collection, embedder),
            )
            .fetchone()
        )
        return int(row[0]) if row else 0

    def load(self, collection: str, embedder: str) -> StoredVectors:
        """Every row of the collection for this embedder, in no particular order."""
        cur = self.store.connect().cursor()
        cur.row_factory = None  # plain tuples: this can be hundreds of thousands of rows
        rows = cur.execute(
            "SELECT id, item_key, vector, meta FROM core_vectors WHERE collection = ? AND embedder = ?",
            (collection, embedder),
        ).fetchall()
        return StoredVectors(
            [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows]
        )

    def collections(self) -> list[Collection]:
        rows = self.store.connect().execute(
            "SELECT collection, embedder, dim, COUNT(*) FROM core_vectors"
            " GROUP BY collection, embedder, dim ORDER BY collection, embedder"
        )
        return [Collection(r[0], r[1], r[2], r[3]) for r in rows]

    def drop_collection(self, collection: str) -> int:
        with self.store.transaction() as tx:
            removed = tx.execute("DELETE FROM core_vectors WHERE collection = ?", (collection,)).rowcount
            tx.execute(
                "UPDATE core_vector_generations SET generation = generation + 1 WHERE collection = ?",
                (collection,),
            )
        return removed

    def scan_nearest(
        self, collection: str, embedder: str, query: bytes, k: int, clauses: list[list[Condition]] | None
    ) -> list[ScoredRow]:
        """The k nearest rows by cosine distance, computed in SQL by sqlite-vec."""
        conn = sqlite_vec_connection(self.store.path)
        where_sql, params = _sql_where(clauses) if clauses is not None else ("1", [])
        rows = conn.execute(
            "SELECT item_key, meta, COALESCE(vec_distance_cosine(vector, ?), 1.0) AS distance"
            " FROM core_vectors"
            f" WHERE collection = ? AND embedder = ? AND {where_sql}"
            " ORDER BY distance, id LIMIT ?",
            (query, collection, embedder, *params, k),
        ).fetchall()
        return [ScoredRow(r[0], r[1], float(r[2])) for r in rows]


# -- sqlite-vec --------------------------------------------------------------------------------

_vec_local = threading.local()


def sqlite_vec_status() -> tuple[bool, str]:
    """Whether the sqlite-vec path can run here, and which sqlite3 build carries it (or why not)."""
    try:
        sqlite_vec_connection(None)
    except InvalidInput as exc:
        return False, str(exc)
    module = "sqlite3" if hasattr(sqlite3.Connection, "enable_load_extension") else "sqlean"
    return True, f"sqlite-vec loaded through {module}"


def sqlite_vec_connection(path: Path | None) -> Any:
    """A per-thread connection with sqlite-vec loaded (`path=None`: an in-memory probe)."""
    target = str(path) if path is not None else ":memory:"
    conns = getattr(_vec_local, "conns", None)
    if conns is None:
        conns = _vec_local.conns = {}
    if target in conns:
        return conns[target]
    try:
        import sqlite_vec
    except ImportError as exc:
        raise InvalidInput("the sqlite-vec path needs `pip install 'lore-mem[vec]'`") from exc
    module: Any = sqlite3
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        try:
            import sqlean

            module = sqlean
        except ImportError as exc:
            raise InvalidInput(
                "this Python's sqlite3 cannot load extensions; `pip install 'lore-mem[vec]'`"
                " brings the sqlean.py build that can"
            ) from exc
    try:
        conn = module.connect(target, timeout=30, check_same_thread=True)
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except Exception as exc:  # any build or loader failure means the path is unavailable
        raise InvalidInput(f"sqlite-vec could not be loaded: {exc}") from exc
    conns[target] = conn
    return conn
