"""An incremental BM25 index in plain Python.

Documents are added, replaced and removed one at a time (adding a rule never rebuilds the
index), and a query can be scored against a subset of the documents (the rules whose scope
covers the files) while the statistics stay those of the whole collection.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping
from itertools import repeat
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

K1 = 1.2
B = 0.75


class BM25Index:
    def __init__(self) -> None:
        self._postings: dict[str, dict[Hashable, int]] = {}
        self._lengths: dict[Hashable, int] = {}
        self._doc_terms: dict[Hashable, tuple[str, ...]] = {}
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._lengths)

    def __contains__(self, doc_id: Hashable) -> bool:
        return doc_id in self._lengths

    def add(self, doc_id: Hashable, terms: Iterable[str]) -> None:
        """Index a document; an existing document with the same id is replaced."""
        if doc_id in self._lengths:
            self.remove(doc_id)
        counts = Counter(terms)
        for term, tf in counts.items():
            self._postings.setdefault(term, {})[doc_id] = tf
        length = sum(counts.values())
        self._doc_terms[doc_id] = tuple(counts)
        self._lengths[doc_id] = length
        self._total_length += length

    def remove(self, doc_id: Hashable) -> None:
        length = self._lengths.pop(doc_id, None)
        if length is None:
            return
        self._total_length -= length
        for term in self._doc_terms.pop(doc_id, ()):
            docs = self._postings[term]
            docs.pop(doc_id, None)
            if not docs:
                del self._postings[term]

    def idf(self, term: str) -> float:
        df = len(self._postings.get(term, ()))
        n = len(self._lengths)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def scores(
        self, query_terms: Iterable[str], among: Collection[Hashable] | None = None
    ) -> dict[Hashable, float]:
        """BM25 score of every document (or of those in `among`) that shares a term with the query."""
        if not self._lengths:
            return {}
        avg = self._total_length / len(self._lengths) or 1.0
        lengths = self._lengths
        out: dict[Hashable, float] = {}
        for term in set(query_terms):
            docs = self._postings.get(term)
            if not docs:
                continue
            idf = self.idf(term)
            items: Iterable[tuple[Hashable, int]]
            if among is not None and len(among) < len(docs):
                items = ((d, docs[d]) for d in among if d in docs)
            else:
                items = docs.items() if among is None else ((d, tf) for d, tf in docs.items() if d in among)
            for doc_id, tf in items:
                norm = K1 * (1.0 - B + B * lengths[doc_id] / avg)
                out[doc_id] = out.get(doc_id, 0.0) + idf * tf * (K1 + 1.0) / (tf + norm)
        return out

    def scores_by_slot(self, query_terms: Iterable[str], slot: Mapping[Any, int], size: int) -> np.ndarray:
        """`scores` of every document as one array of `size` floats: document d's score at
        `slot[d]`, 0.0 where d shares no term (or has no slot).

        For callers that hold documents as the rows of a matrix (rule selection by meaning
        fuses BM25 with cosines row by row): a dict of thousands of scores, turned into rows
        afterwards, cost more than scoring. Each term's documents are scored as one array with
        the same formula, and the terms are summed in the same order, so the numbers are
        exactly those of `scores`."""
        import numpy as np

        out = np.zeros(size, dtype=np.float64)
        if not self._lengths:
            return out
        avg = self._total_length / len(self._lengths) or 1.0
        for term in set(query_terms):
            docs = self._postings.get(term)
            if not docs:
                continue
            idf = self.idf(term)
            count = len(docs)
            rows = np.fromiter(map(slot.get, docs, repeat(-1)), dtype=np.int64, count=count)
            tf = np.fromiter(docs.values(), dtype=np.float64, count=count)
            length = np.fromiter(map(self._lengths.__getitem__, docs), dtype=np.float64, count=count)
            norm = K1 * (1.0 - B + B * length / avg)
            part = idf * tf * (K1 + 1.0) / (tf + norm)
            kept = rows >= 0
            out[rows[kept]] += part[kept]
        return out
