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
  query.

One approximate path, on PostgreSQL: `pgvector-hnsw` walks the embedder's HNSW index (one
partial index per dimension, cosine) with pgvector's iterative scan, the filters inside the
walk; when the walk finds fewer than k it falls back to the exact scan, so k hits still come
back whenever k match. A filter whose equalities keep few rows (`VectorIndex.plan`) is not
walked but scanned exactly over those rows, found by an index: faster there, and exact.

Filter syntax (`where`): a mapping `{field: value}` (equality) or `{field: (op, value)}` with
op one of `= != < <= > >= in "not in"`; all conditions of a mapping must hold. A list of
mappings matches when any one of them does, e.g. per-book chapter caps:
`[{"book": "a"}, {"book": "b", "chapter_seq": ("<=", 6)}]`. Numbers compare with numbers and
text with text; a row without the field (or with the other type) never matches.
"""

from __future__ import annotations

import json
import operator
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard

import numpy as np

from lore.core.errors import InvalidInput
from lore.core.store.base import Store
from lore.core.store.vectors.records import Condition as _Cond
from lore.core.store.vectors.records import Plan, clauses_key
from lore.core.store.vectors.sqlite_vec import sqlite_vec_status as sqlite_vec_status  # asked of this module
from lore.core.store.vectors.store import VectorStore
from lore.core.store.vectors.tiers import DEPTH_FIELD as DEPTH_FIELD  # the prefix tiers' field

BACKENDS = ("numpy", "sqlite-vec", "pgvector", "pgvector-hnsw")
_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_OPS = {
    "=": "=",
    "==": "=",
    "!=": "!=",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "in": "IN",
    "not in": "NOT IN",
}
_CACHE_SIZE = 16  # collections kept in memory per process
_MASKS_KEPT = 32  # filters whose rows each loaded matrix remembers (a bool per row each)

Where = Mapping[str, Any] | Sequence[Mapping[str, Any]] | None


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


# -- filters -----------------------------------------------------------------------------------


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float)  # bools count as 0/1, as JSON stores them here


def _parse_where(where: Where) -> list[list[_Cond]] | None:
    """The filter as OR-of-ANDs, validated; None for no filter."""
    if where is None:
        return None
    clauses = [where] if isinstance(where, Mapping) else list(where)
    parsed: list[list[_Cond]] = []
    for clause in clauses:
        if not isinstance(clause, Mapping):
            raise InvalidInput("a vector filter is a mapping {field: value or (op, value)}")
        conds = []
        for name, spec in clause.items():
            if not _FIELD.match(str(name)):
                raise InvalidInput(f"bad filter field name {name!r}")
            op, value = ("=", spec) if not isinstance(spec, tuple | list) else _op_value(name, spec)
            sql_op = _OPS.get(str(op).lower())
            if sql_op is None:
                raise InvalidInput(f"unknown filter operator {op!r}: use one of {', '.join(_OPS)}")
            conds.append(_Cond(name, sql_op, *_checked_value(name, sql_op, value)))
        parsed.append(conds)
    return parsed


def _op_value(name: str, spec: Sequence[Any]) -> tuple[Any, Any]:
    if len(spec) != 2:
        raise InvalidInput(f"filter on {name!r} must be a value or an (op, value) pair")
    return spec[0], spec[1]


def _checked_value(name: str, op: str, value: Any) -> tuple[Any, bool]:
    if op in ("IN", "NOT IN"):
        if isinstance(value, str | bytes) or not isinstance(value, Iterable):
            raise InvalidInput(f"filter {name!r} {op.lower()} needs a list of values")
        values = list(value)
        if all(_is_number(v) for v in values):
            return tuple(float(v) for v in values), True
        if all(isinstance(v, str) for v in values):
            return tuple(values), False
        raise InvalidInput(f"filter {name!r} {op.lower()} needs all numbers or all text")
    if _is_number(value):
        return float(value), True
    if isinstance(value, str):
        return value, False
    raise InvalidInput(f"filter value for {name!r} must be a number or text, not {value!r}")


# -- the in-memory matrix ----------------------------------------------------------------------


class _Loaded:
    """One collection's vectors for one embedder, as a matrix plus metadata columns."""

    def __init__(
        self,
        generation: int,
        ids: np.ndarray,
        keys: list[str],
        matrix: np.ndarray,
        metas: list[dict[str, Any]],
    ):
        self.generation = generation
        self.ids = ids
        self.keys = keys
        self.matrix = matrix
        self.metas = metas
        self._numeric: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._text: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._masks: OrderedDict[tuple[tuple[_Cond, ...], ...], np.ndarray] = OrderedDict()
        self._memory_lock = threading.Lock()
        # a narrow filter's rows of the matrix, copied once: a reader asks many questions under
        # one cap, and the copy (scattered rows) costs more than scoring it (`kept_rows`)
        self._kept: OrderedDict[tuple[tuple[_Cond, ...], ...], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._kept_bytes = 0

    def numeric(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The field as numbers (NaN where it is not one) and where it is one."""
        col = self._numeric.get(name)
        if col is None:
            values = np.array(
                [float(v) if _is_number(v := m.get(name)) else np.nan for m in self.metas],
                dtype=np.float64,
            )
            col = (values, ~np.isnan(values))
            self._numeric[name] = col
        return col

    def text(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        col = self._text.get(name)
        if col is None:
            raw = [m.get(name) for m in self.metas]
            present = np.array([isinstance(v, str) for v in raw], dtype=bool)
            values = np.array([v if isinstance(v, str) else "" for v in raw], dtype=str)
            col = (values, present)
            self._text[name] = col
        return col

    def mask(self, clauses: list[list[_Cond]]) -> np.ndarray:
        """The rows the filter keeps (read-only: it may be shared by later calls).

        Remembered per filter for this matrix (which is never changed: a write loads a new one),
        because a reader asks many questions under one cap, and a cap over many books is many
        passes over every row, which costs more than scoring the rows it keeps."""
        key = clauses_key(clauses)
        found = self._recalled(self._masks, key)
        if found is not None:
            return found
        total = np.zeros(len(self.keys), dtype=bool)
        for clause in clauses:
            part = np.ones(len(self.keys), dtype=bool)
            for cond in clause:
                part &= self._test(cond)
            total |= part
        total.flags.writeable = False
        with self._memory_lock:
            self._masks[key] = total
            while len(self._masks) > _MASKS_KEPT:
                self._masks.popitem(last=False)
        return total

    def kept_rows(self, clauses: list[list[_Cond]]) -> tuple[np.ndarray, np.ndarray | None]:
        """The row numbers the filter keeps and, for a narrow filter (under a quarter of the
        rows), their vectors as one matrix, kept for the next question under the same filter
        while all such copies stay within half the matrix's size (least recently used first out).
        None for a broad filter: scoring every row and picking is cheaper than a copy."""
        key = clauses_key(clauses)
        kept = self._recalled(self._kept, key)
        if kept is not None:
            return kept
        rows = np.flatnonzero(self.mask(clauses))
        if rows.size * 4 >= len(self.keys):
            return rows, None
        part = self.matrix[rows]
        part.flags.writeable = False
        with self._memory_lock:
            if part.nbytes <= self.matrix.nbytes // 2 and key not in self._kept:
                self._kept[key] = (rows, part)
                self._kept_bytes += part.nbytes
                while self._kept_bytes > self.matrix.nbytes // 2:
                    _, (_, dropped) = self._kept.popitem(last=False)
                    self._kept_bytes -= dropped.nbytes
        return rows, part

    def _recalled(self, cache: OrderedDict[Any, Any], key: Any) -> Any:
        """What `cache` remembers for `key` (None if nothing), now its most recently used."""
        with self._memory_lock:
            found = cache.get(key)
            if found is not None:
                cache.move_to_end(key)
            return found

    def _test(self, c: _Cond) -> np.ndarray:
        if c.numeric:
            col, present = self.numeric(c.field)
        else:
            col, present = self.text(c.field)
        if c.op == "IN":
            return np.isin(col, np.array(c.value)) & present
        if c.op == "NOT IN":
            return ~np.isin(col, np.array(c.value)) & present
        return _COMPARE[c.op](col, c.value) & present


_COMPARE = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_loaded: OrderedDict[tuple[str, str, str], _Loaded] = OrderedDict()
_loaded_lock = threading.Lock()


# -- the index ---------------------------------------------------------------------------------


def _as_unit(vector: Any, dim: int, what: str) -> np.ndarray:
    vec = np.asarray(vector, dtype=np.float32).reshape(-1)
    if vec.shape[0] != dim:
        raise InvalidInput(f"{what} has {vec.shape[0]} dimensions, the index expects {dim}")
    if not np.all(np.isfinite(vec)):
        raise InvalidInput(f"{what} holds NaN or infinite values")
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


def _clean_meta(key: str, meta: Mapping[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in (meta or {}).items():
        if not _FIELD.match(str(name)):
            raise InvalidInput(f"bad metadata field name {name!r} for {key!r}")
        if isinstance(value, bool):
            value = int(value)
        if value is not None and not isinstance(value, int | float | str):
            raise InvalidInput(f"metadata {name!r} of {key!r} must be a number or text")
        if isinstance(value, float) and not np.isfinite(value):
            raise InvalidInput(f"metadata {name!r} of {key!r} must be finite")
        out[str(name)] = value
    return out


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
                    json.dumps(_clean_meta(key, meta), separators=(",", ":")),
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
            matched = [h.key for h in self._matching(_parse_where(where))]
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
        clauses = _parse_where(where)
        ident = (self.rows.key, self.collection, self.model)
        with _loaded_lock:
            loaded = _loaded.get(ident)
        if loaded is not None and loaded.generation == self.rows.generation(self.collection, self.model):
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
        clauses = _parse_where(where)
        if backend == "numpy":
            return self._search_numpy(unit, k, clauses)
        if backend in ("sqlite-vec", "pgvector", "pgvector-hnsw"):
            if backend.partition("-hnsw")[0] != self.rows.sql_path:
                raise InvalidInput(
                    f"the {backend} path needs the {'PostgreSQL' if backend.startswith('pgvector') else 'embedded'}"
                    f" store; this one searches in SQL with {self.rows.sql_path}"
                )
            return self._search_sql(unit, k, clauses, approximate=backend == "pgvector-hnsw")
        raise InvalidInput(f"unknown vector backend {backend!r}: use {' or '.join(BACKENDS)}")

    def plan(self, k: int = 10, where: Where = None) -> Plan | None:
        """How `search(..., backend="pgvector-hnsw")` would answer this filter: the exact scan
        over the few rows it keeps, or the walk and at what `ef_search` (None: not PostgreSQL)."""
        if self.rows.sql_path != "pgvector":
            return None
        return self.rows.plan(self.collection, self.model, self.dim, k, _parse_where(where))

    def _search_numpy(self, unit: np.ndarray, k: int, clauses: list[list[_Cond]] | None) -> list[Hit]:
        loaded = self._load()
        if not loaded.keys:
            return []
        rows, part = loaded.kept_rows(clauses) if clauses is not None else (None, None)
        if rows is None:
            candidates = loaded.matrix @ unit
        elif part is not None:  # a narrow filter: score only the rows it keeps
            candidates = part @ unit
        else:
            candidates = (loaded.matrix @ unit)[rows]
        if candidates.size == 0:
            return []
        take = min(k, candidates.size)
        if take < candidates.size:
            # everything at least as good as the k-th score, so ties break by id, as in SQL
            kth = np.partition(candidates, candidates.size - take)[candidates.size - take]
            picked = np.flatnonzero(candidates >= kth)
        else:
            picked = np.arange(candidates.size)
        positions = picked if rows is None else rows[picked]
        order = np.lexsort((loaded.ids[positions], -candidates[picked]))[:take]
        return [
            Hit(loaded.keys[positions[o]], float(candidates[picked[o]]), dict(loaded.metas[positions[o]]))
            for o in order
        ]

    def _search_sql(
        self, unit: np.ndarray, k: int, clauses: list[list[_Cond]] | None, *, approximate: bool = False
    ) -> list[Hit]:
        query = unit.astype("<f4").tobytes()
        rows = self.rows.scan_nearest(self.collection, self.model, query, k, clauses, approximate=approximate)
        return [Hit(r.key, 1.0 - r.distance, json.loads(r.meta)) for r in rows]

    def _matching(self, clauses: list[list[_Cond]] | None) -> list[Hit]:
        loaded = self._load()
        rows = range(len(loaded.keys)) if clauses is None else np.flatnonzero(loaded.mask(clauses))
        return [Hit(loaded.keys[i], 0.0, loaded.metas[i]) for i in rows]

    def _load(self) -> _Loaded:
        """The in-memory matrix, reloaded when the stored generation moved on."""
        ident = (self.rows.key, self.collection, self.model)
        generation = self.rows.generation(self.collection, self.model)
        with _loaded_lock:
            hit = _loaded.get(ident)
            if hit is not None and hit.generation == generation:
                _loaded.move_to_end(ident)
                return hit
        stored = self.rows.load(self.collection, self.model)  # row order is free: ties break by id
        ids = np.array(stored.ids, dtype=np.int64)
        matrix = np.frombuffer(b"".join(stored.vectors), dtype="<f4").reshape(len(stored.ids), self.dim)
        metas = json.loads("[" + ",".join(stored.metas) + "]")  # one parse, not n
        loaded = _Loaded(generation, ids, stored.keys, matrix, metas)
        with _loaded_lock:
            _loaded[ident] = loaded
            _loaded.move_to_end(ident)
            while len(_loaded) > _CACHE_SIZE:
                _loaded.popitem(last=False)
        return loaded


def collections(store: Store | None = None) -> list[dict[str, Any]]:
    """Every (collection, embedder) pair in the store with its dimension and vector count."""
    return [
        {"collection": c.collection, "embedder": c.embedder, "dim": c.dim, "vectors": c.vectors}
        for c in VectorStore(store).collections()
    ]


def drop_collection(collection: str, store: Store | None = None) -> int:
    """Remove a collection's vectors of every model (e.g. when a book is removed)."""
    return VectorStore(store).drop_collection(collection)
