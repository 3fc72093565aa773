"""A vector index in the store, with filters applied before the top-k is chosen.

Every vector is stored with its collection, item key, the embedder's name and dimension, and
a small map of filterable metadata (integers, numbers, text). An index is bound to one
embedder, so a search only ever compares vectors from the same model: switching models
leaves the old vectors in place but never mixes them in.

Filters are part of the scan, never applied to a finished top-k list: a reader's chapter cap
(`{"chapter_seq": ("<=", 6)}`) returns the best k passages *within* the cap, and never fewer
than exist under it. Two exact search paths give the same neighbours:

- `numpy` (the default): the collection's matrix is kept in memory, reloaded when the
  collection's generation number changes (any write, from any process), then one
  matrix-vector product and a partial sort.
- `sqlite-vec`: the same table scanned in SQL with sqlite-vec's distance function, where this
  Python's sqlite3 can load extensions, or through the `sqlean.py` build of sqlite3 when it
  cannot (`pip install 'lore-mem[vec]'`).
- `pgvector`: on PostgreSQL, the same scan with pgvector's cosine distance, filters in the
  query, the filter's rows found by an index (a b-tree over its fields, built on first use).

There is no approximate path: every search Lore makes is under a filter keeping a few thousand
rows (a book, a series, a project, a repository), which an exact scan answers faster than an
HNSW walk at a team's size (docs/store.md#vectors).

The filter syntax is in `vector_filters`; the in-memory path (the matrix held per process) is
`vector_matrix`; the rows themselves are in `core/store/vectors/`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from lore.core.errors import InvalidInput
from lore.core.store.base import Store
from lore.core.store.vectors.records import Condition as _Cond
from lore.core.store.vectors.sqlite_vec import sqlite_vec_status as sqlite_vec_status  # asked of this module
from lore.core.store.vectors.store import VectorStore
from lore.core.vector_filters import Where, clean_meta, parse_where
from lore.core.vector_matrix import Matrix, held, load, nearest

BACKENDS = ("numpy", "sqlite-vec", "pgvector")


class Space(Protocol):
    """Anything naming a vector space: every embedder is one (read-only, so a frozen
    `VectorSpace` is one too)."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...


@dataclass(frozen=True)
class VectorSpace:
    """A model name and dimension, for vectors made outside an `Embedder`."""

    name: str
    dim: int


@dataclass(frozen=True)
class Hit:
    key: str
    score: float  # cosine similarity, 1.0 = same direction
    meta: dict[str, Any] = field(default_factory=dict)


def _as_unit(vector: Any, dim: int, what: str) -> np.ndarray:
    vec = np.asarray(vector, dtype=np.float32).reshape(-1)
    if vec.shape[0] != dim:
        raise InvalidInput(f"{what} has {vec.shape[0]} dimensions, the index expects {dim}")
    if not np.all(np.isfinite(vec)):
        raise InvalidInput(f"{what} holds NaN or infinite values")
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


class VectorIndex:
    """The vectors of one collection made by one embedder (model name + dimension)."""

    def __init__(self, collection: str, space: Space, store: Store | None = None):
        if not collection:
            raise InvalidInput("a vector collection needs a name")
        self.collection = collection
        self.space = space
        self.model = space.name
        self.rows = VectorStore(store)

    @property
    def dim(self) -> int:
        """Asked of the space only when needed: a server embedder learns it from its first
        vectors, so an index that starts by embedding never pays for a probe."""
        return int(self.space.dim)

    # writes ---------------------------------------------------------------------------------

    def add(self, items: Iterable[tuple[str, Any, Mapping[str, Any] | None]]) -> int:
        """Insert or replace `(key, vector, meta)` items; vectors are stored unit-length."""
        rows = []
        for key, vector, meta in items:
            unit = _as_unit(vector, self.dim, f"vector {key!r}")
            rows.append(
                (
                    str(key),
                    unit.astype("<f4").tobytes(),
                    json.dumps(clean_meta(key, meta), separators=(",", ":")),
                )
            )
        if not rows:
            return 0
        self.rows.upsert(self.collection, self.model, self.dim, rows)
        return len(rows)

    def add_texts(
        self,
        items: Iterable[tuple[str, str, Mapping[str, Any] | None]],
        *,
        no_cache: bool | None = None,
        progress: bool | None = None,
    ) -> int:
        """Embed `(key, text, meta)` items with this index's embedder, then store them."""
        embed = getattr(self.space, "embed", None)
        if embed is None:
            raise InvalidInput(f"the index for {self.model} has no embedder to embed texts with")
        items = list(items)
        vectors = embed([text for _, text, _ in items], no_cache=no_cache, progress=progress)
        return self.add((key, vec, meta) for (key, _, meta), vec in zip(items, vectors, strict=True))

    def delete(self, keys: Iterable[str] | None = None, *, where: Where = None) -> int:
        """Remove the given keys, or every vector matching `where`; returns how many went."""
        targets = [str(k) for k in keys] if keys is not None else None
        if where is not None:
            matched = [h.key for h in self._matching(parse_where(where))]
            targets = matched if targets is None else sorted(set(targets) & set(matched))
        if targets is None:
            raise InvalidInput("name the keys to delete, or a filter (use clear() for everything)")
        return self.rows.delete(self.collection, self.model, self.dim, targets)

    def clear(self) -> int:
        """Remove every vector of this collection made by this embedder."""
        return self.rows.clear(self.collection, self.model, self.dim)

    # reads ----------------------------------------------------------------------------------

    def keys(self) -> set[str]:
        """The keys stored (e.g. to embed only the passages not yet indexed)."""
        return set(self._load().keys)

    def count(self, where: Where = None) -> int:
        """The vectors matching `where`: from the matrix when this process holds it current,
        else counted by the store, so asking how many (books check their vectors before a
        search) never loads a collection that pgvector searches in place."""
        clauses = parse_where(where)
        loaded = held(self.rows, self.collection, self.model)
        if loaded is not None:
            return len(loaded.keys) if clauses is None else int(loaded.mask(clauses).sum())
        return self.rows.count(self.collection, self.model, clauses)

    def search(self, query: Any, k: int = 10, where: Where = None, *, backend: str = "numpy") -> list[Hit]:
        """The `k` nearest vectors among those matching `where` (best first).

        `query` is a vector, or a text when the index was made with an embedder. Fewer than
        `k` hits come back only when fewer than `k` vectors match the filter.
        """
        if k <= 0:
            return []
        if isinstance(query, str):
            embed_query = getattr(self.space, "embed_query", None)
            if embed_query is None:
                raise InvalidInput(f"the index for {self.model} has no embedder for a text query")
            query = embed_query(query)
        unit = _as_unit(query, self.dim, "the query vector")
        clauses = parse_where(where)
        if backend == "numpy":
            return self._search_numpy(unit, k, clauses)
        if backend in ("sqlite-vec", "pgvector"):
            if backend != self.rows.sql_path:
                raise InvalidInput(
                    f"the {backend} path needs the {'PostgreSQL' if backend == 'pgvector' else 'embedded'}"
                    f" store; this one searches in SQL with {self.rows.sql_path}"
                )
            return self._search_sql(unit, k, clauses)
        raise InvalidInput(f"unknown vector backend {backend!r}: use {' or '.join(BACKENDS)}")

    def _search_numpy(self, unit: np.ndarray, k: int, clauses: list[list[_Cond]] | None) -> list[Hit]:
        loaded = self._load()
        return [
            Hit(loaded.keys[row], score, dict(loaded.metas[row]))
            for row, score in nearest(loaded, unit, k, clauses)
        ]

    def _search_sql(self, unit: np.ndarray, k: int, clauses: list[list[_Cond]] | None) -> list[Hit]:
        query = unit.astype("<f4").tobytes()
        rows = self.rows.scan_nearest(self.collection, self.model, query, k, clauses)
        return [Hit(r.key, 1.0 - r.distance, json.loads(r.meta)) for r in rows]

    def _matching(self, clauses: list[list[_Cond]] | None) -> list[Hit]:
        loaded = self._load()
        rows = range(len(loaded.keys)) if clauses is None else np.flatnonzero(loaded.mask(clauses))
        return [Hit(loaded.keys[i], 0.0, loaded.metas[i]) for i in rows]

    def _load(self) -> Matrix:
        """The in-memory matrix, reloaded when the stored generation moved on."""
        return load(self.rows, self.collection, self.model, self.dim)


def collections(store: Store | None = None) -> list[dict[str, Any]]:
    """Every (collection, embedder) pair in the store with its dimension and vector count."""
    return [
        {"collection": c.collection, "embedder": c.embedder, "dim": c.dim, "vectors": c.vectors}
        for c in VectorStore(store).collections()
    ]


def drop_collection(collection: str, store: Store | None = None) -> int:
    """Remove a collection's vectors of every model (e.g. when a book is removed)."""
    return VectorStore(store).drop_collection(collection)
