"""The in-memory search path: a collection's vectors held as one matrix per process, with its
metadata columns, the rows each filter keeps, and the exact top-k by one matrix-vector product.

A matrix is reloaded when the collection's generation number changes (any write, from any
process) and never changed in place, so what it remembers per filter stays true. Kept apart
from the index, which chooses a path and names the hits, so this path's memory (which
collections are held, what each remembers) is one module's concern.
"""

from __future__ import annotations

import json
import operator
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from lore.core.store.vectors.records import Condition as _Cond
from lore.core.store.vectors.records import clauses_key
from lore.core.store.vectors.store import VectorStore
from lore.core.vector_filters import is_number

_CACHE_SIZE = 16  # collections kept in memory per process
_MASKS_KEPT = 32  # filters whose rows each loaded matrix remembers (a bool per row each)


class Matrix:
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
                [float(v) if is_number(v := m.get(name)) else np.nan for m in self.metas],
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
_loaded: OrderedDict[tuple[str, str, str], Matrix] = OrderedDict()
_loaded_lock = threading.Lock()


def held(rows: VectorStore, collection: str, model: str) -> Matrix | None:
    """The matrix this process holds for the collection, when it is still current."""
    with _loaded_lock:
        loaded = _loaded.get((rows.key, collection, model))
    if loaded is not None and loaded.generation == rows.generation(collection, model):
        return loaded
    return None


def load(rows: VectorStore, collection: str, model: str, dim: int) -> Matrix:
    """The in-memory matrix, reloaded when the stored generation moved on."""
    ident = (rows.key, collection, model)
    generation = rows.generation(collection, model)
    with _loaded_lock:
        hit = _loaded.get(ident)
        if hit is not None and hit.generation == generation:
            _loaded.move_to_end(ident)
            return hit
    stored = rows.load(collection, model)  # row order is free: ties break by id
    ids = np.array(stored.ids, dtype=np.int64)
    matrix = np.frombuffer(b"".join(stored.vectors), dtype="<f4").reshape(len(stored.ids), dim)
    metas = json.loads("[" + ",".join(stored.metas) + "]")  # one parse, not n
    loaded = Matrix(generation, ids, stored.keys, matrix, metas)
    with _loaded_lock:
        _loaded[ident] = loaded
        _loaded.move_to_end(ident)
        while len(_loaded) > _CACHE_SIZE:
            _loaded.popitem(last=False)
    return loaded


def nearest(
    loaded: Matrix, unit: np.ndarray, k: int, clauses: list[list[_Cond]] | None
) -> list[tuple[int, float]]:
    """The `k` best rows among those the filter keeps, as (row, cosine score), best first; ties
    break by stored id, as the SQL paths break them."""
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
    return [(int(positions[o]), float(candidates[picked[o]])) for o in order]
