"""The vector index's rows: writes, counts, loads and the search entry point, on either engine.

`lore.core.vectors` holds the logic (validation, the in-memory matrix, filters in numpy); this
module stores rows and reads them back as plain records (`records.py`). A collection's
generation is bumped in the same transaction as every write, so any process can tell its cached
matrix is stale with one small read. On PostgreSQL a write of many rows goes as one binary COPY
rather than an INSERT per row. A search in SQL goes to the engine's own scan: `sqlite_vec.py` on
SQLite, `pgvector.py` (the exact scan through the filter's index) on PostgreSQL.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lore.core.errors import InvalidInput
from lore.core.store.base import Store
from lore.core.store.binding import in_marks
from lore.core.store.open import open_store_for
from lore.core.store.vectors import pgvector, sqlite_vec
from lore.core.store.vectors.filters import pg_narrowed, pg_vector, sqlite_where
from lore.core.store.vectors.records import Collection, Condition, ScoredRow, StoredVectors
from lore.core.store.vectors.schema import MIGRATIONS

_CHUNK = 500  # keys per IN (...) delete
_COPY_ROWS = 200  # a PostgreSQL write this large goes by one COPY, not an INSERT per row
_COPY_BATCH = 5_000  # rows encoded per write to the COPY stream (bounds the memory it takes)
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # binary COPY header: no flags, no extension
_ANALYZE_ROWS = 1_000  # a bulk write this large refreshes the planner's statistics


def _copy_tuples(head: bytes, dim: int, chunk: Sequence[tuple[str, tuple[bytes, str]]]) -> bytes:
    """Rows of a binary COPY stream: `head` (the field count and any fields fixed for the whole
    write), then key, float32 bytes, the pgvector value and metadata, each after its length.
    pgvector's binary value is its dimension, an unused int16 and the floats big-endian."""
    vector_head = struct.pack(">hh", dim, 0)  # dimension, unused
    big_endian = np.frombuffer(b"".join(blob for _, (blob, _) in chunk), dtype="<f4").astype(">f4")
    parts = []
    for i, (key, (blob, meta)) in enumerate(chunk):
        key_bytes, meta_bytes = key.encode(), meta.encode()
        parts += [
            head,
            struct.pack(">i", len(key_bytes)),
            key_bytes,
            struct.pack(">i", len(blob)),
            blob,
            struct.pack(">i", 4 + 4 * dim),
            vector_head,
            big_endian[i * dim : (i + 1) * dim].tobytes(),
            struct.pack(">i", len(meta_bytes)),
            meta_bytes,
        ]
    return b"".join(parts)


class VectorStore:
    """The vector tables of one Store, for one collection and embedder at a time."""

    def __init__(self, store: Store | None = None):
        self.store = store or open_store_for(MIGRATIONS)
        self.store.migrate(MIGRATIONS)

    @property
    def sql_path(self) -> str:
        """The name of this backend's SQL scan: `sqlite-vec` or `pgvector`."""
        return "pgvector" if self.store.dialect == "postgres" else "sqlite-vec"

    @property
    def filtered_path(self) -> str:
        """The search path for a filtered search on this engine: the in-memory matrix on SQLite
        (the file is on this machine), pgvector's scan on PostgreSQL (the server keeps the rows
        and sends back k of them)."""
        return "pgvector" if self.store.dialect == "postgres" else "numpy"

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def key(self) -> str:
        """Names this database among others (for per-process caches)."""
        return str(self.store.path)

    def _bump(self, collection: str, embedder: str, dim: int) -> bool:
        """Mark the collection changed (invalidates every process's in-memory matrix); says
        whether this collection and embedder are new."""
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
            " DO UPDATE SET generation = core_vector_generations.generation + 1",
            (collection, embedder, dim),
        )
        return row is None

    def upsert(
        self, collection: str, embedder: str, dim: int, rows: Sequence[tuple[str, bytes, str]]
    ) -> None:
        """Insert or replace (key, vector bytes, metadata JSON) rows."""
        with self.store.transaction() as tx:
            new = self._bump(collection, embedder, dim)
            if self.store.dialect == "postgres":
                if len(rows) >= _COPY_ROWS:
                    self._pg_copy(tx, collection, embedder, dim, rows)
                else:
                    self._pg_insert(tx, collection, embedder, dim, rows)
                if new or len(rows) >= _ANALYZE_ROWS:
                    # fresh statistics, or the planner, thinking the table tiny, reads every
                    # row of it instead of the filter's rows through an index
                    tx.execute("ANALYZE core_vectors")
                return
            tx.executemany(
                "INSERT INTO core_vectors (collection, embedder, dim, item_key, vector, meta)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (collection, embedder, item_key)"
                " DO UPDATE SET vector = excluded.vector, meta = excluded.meta, dim = excluded.dim",
                [(collection, embedder, dim, key, blob, meta) for key, blob, meta in rows],
            )

    @staticmethod
    def _pg_insert(
        tx: Any, collection: str, embedder: str, dim: int, rows: Sequence[tuple[str, bytes, str]]
    ) -> None:
        """A few rows: one upserting INSERT each (a COPY's extra statements cost more)."""
        tx.executemany(
            "INSERT INTO core_vectors"
            " (collection, embedder, dim, item_key, vector, embedding, meta)"
            " VALUES (?, ?, ?, ?, ?, CAST(? AS vector), ?)"
            " ON CONFLICT (collection, embedder, item_key) DO UPDATE SET"
            " vector = excluded.vector, embedding = excluded.embedding,"
            " meta = excluded.meta, dim = excluded.dim",
            [(collection, embedder, dim, key, blob, pg_vector(blob), meta) for key, blob, meta in rows],
        )

    @staticmethod
    def _pg_copy(
        tx: Any, collection: str, embedder: str, dim: int, rows: Sequence[tuple[str, bytes, str]]
    ) -> None:
        """Many rows: one binary COPY, the rows' bytes sent as they are (no vector printed as
        text, no statement per row). A collection with no rows yet takes the COPY directly;
        otherwise the rows land in a session's scratch table and one INSERT ... SELECT upserts
        them, as `_pg_insert` would. Either way the table's trigger and generated column see
        an ordinary INSERT, and the last of two rows with one key wins, as in `_pg_insert`."""
        latest = {key: (blob, meta) for key, blob, meta in rows}
        empty = tx.execute(
            "SELECT NOT EXISTS (SELECT 1 FROM core_vectors WHERE collection = ? AND embedder = ?)",
            (collection, embedder),
        ).fetchone()[0]
        if empty:
            target = "core_vectors (collection, embedder, dim, item_key, vector, embedding, meta)"
            fixed = [collection.encode(), embedder.encode(), struct.pack(">q", dim)]
        else:
            tx.execute(
                "CREATE TEMPORARY TABLE IF NOT EXISTS core_vectors_incoming"
                " (item_key TEXT, vector BYTEA, embedding vector, meta TEXT) ON COMMIT DELETE ROWS"
            )
            target, fixed = "core_vectors_incoming (item_key, vector, embedding, meta)", []
        head = struct.pack(">h", len(fixed) + 4) + b"".join(struct.pack(">i", len(f)) + f for f in fixed)
        items = list(latest.items())
        with tx.translated(), tx.raw.cursor().copy(f"COPY {target} FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(_COPY_SIGNATURE)
            for start in range(0, len(items), _COPY_BATCH):
                copy.write(_copy_tuples(head, dim, items[start : start + _COPY_BATCH]))
            copy.write(struct.pack(">h", -1))  # the end of the stream
        if not empty:
            tx.execute(
                "INSERT INTO core_vectors (collection, embedder, dim, item_key, vector, embedding, meta)"
                " SELECT ?, ?, ?, item_key, vector, embedding, meta FROM core_vectors_incoming"
                " ON CONFLICT (collection, embedder, item_key) DO UPDATE SET"
                " vector = excluded.vector, embedding = excluded.embedding,"
                " meta = excluded.meta, dim = excluded.dim",
                (collection, embedder, dim),
            )
            tx.execute("DELETE FROM core_vectors_incoming")

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

    def count(self, collection: str, embedder: str, clauses: list[list[Condition]] | None) -> int:
        """The rows of the collection for this embedder that the filter keeps, counted by the
        database (the same filter SQL as the scans), so no process loads a matrix to count."""
        if self.store.dialect == "postgres":
            where_sql, params = pg_narrowed(clauses)
        else:
            where_sql, params = sqlite_where(clauses)
        row = (
            self.store.connect()
            .execute(
                f"SELECT count(*) FROM core_vectors WHERE collection = ? AND embedder = ? AND {where_sql}",
                (collection, embedder, *params),
            )
            .fetchone()
        )
        return int(row[0])

    def load(self, collection: str, embedder: str) -> StoredVectors:
        """Every row of the collection for this embedder, in no particular order."""
        sql = "SELECT id, item_key, vector, meta FROM core_vectors WHERE collection = ? AND embedder = ?"
        if self.store.dialect == "postgres":
            rows = self.store.connect().execute(sql, (collection, embedder)).fetchall()
        else:
            cur = self.store.connect().cursor()
            cur.row_factory = None  # plain tuples: this can be hundreds of thousands of rows
            rows = cur.execute(sql, (collection, embedder)).fetchall()
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
        """The k nearest rows by cosine distance, computed in SQL by sqlite-vec or pgvector.

        Ties break by row id on both, and a vector without direction (all zeros) scores
        distance 1, as the in-memory path does.
        """
        if self.store.dialect == "postgres":
            return pgvector.nearest(self.store, collection, embedder, query, k, clauses)
        return sqlite_vec.scan(self.store.path, collection, embedder, query, k, clauses)
