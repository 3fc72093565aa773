"""The keyword arm of `why`: BM25 over the indexed texts, on either backend.

On SQLite, FTS5 ranks them (`WhyStore.keyword_search`). On PostgreSQL the ranking is BM25
computed here with `lore.core.bm25`, over the rows the texts' GIN index finds: measured against
PostgreSQL's own `ts_rank_cd` on the why eval's questions it found more of the right evidence
and answered sooner (docs/store.md, "Text search for why"). Its statistics (how many texts hold
a word, how long each text is) come from every text of the repository, kept in memory per
process and brought up to date from the store's few-number state before each search, as the
vector matrix is.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from lore.core.bm25 import BM25Index
from lore.core.text import split_words, stem
from lore.history.why.store import DocHit, WhyStore

# a word of an FTS5 expression as `retrieval.fts_expression` writes it: double-quoted
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def words_of(match: str) -> list[str]:
    """The words of an FTS5 expression (`"a" OR "b"`), in order."""
    return [w.replace('""', '"') for w in _QUOTED.findall(match) if w.strip()]


def terms(text: str) -> list[str]:
    """What BM25 counts: the stemmed words of a text, split as the questions are."""
    return [stem(w) for w in split_words(text)]


@dataclass
class _Repo:
    """One repository's statistics and the store state they were read at."""

    state: tuple[int, int] = (0, 0)
    index: BM25Index = field(default_factory=BM25Index)


_indexes: dict[tuple[str, int], _Repo] = {}
_lock = threading.Lock()


def _statistics(db: WhyStore, repo_id: int) -> BM25Index:
    """The repository's BM25 index, current with the store: texts added since the last look are
    added; when texts went away (a prune), it is built again."""
    key = (str(db.store.path), repo_id)
    with _lock:
        held = _indexes.setdefault(key, _Repo())
        state = db.take_state(repo_id)
        if state == held.state:
            return held.index
        count, newest = held.state
        grown = state[1] >= newest and state[0] >= count
        if not grown or len(held.index) != count:
            held.index, newest = BM25Index(), 0
        fresh = db.docs(repo_id, after=newest)
        for doc in fresh:
            held.index.add(doc.id, terms(doc.text))
        if len(held.index) != state[0]:  # an id below `newest` arrived late: read them all
            held.index = BM25Index()
            for doc in db.docs(repo_id):
                held.index.add(doc.id, terms(doc.text))
        held.state = state
        return held.index


def keyword_hits(db: WhyStore, repo_id: int, match: str, as_of: float | None, limit: int) -> list[DocHit]:
    """The best `limit` texts for an FTS5 expression, best first (lower score is better), none
    newer than `as_of`."""
    if db.ranks_keywords:
        return db.keyword_search(repo_id, match, as_of, limit)
    words = words_of(match)
    if not words:
        return []
    index = _statistics(db, repo_id)
    candidates = set(db.keyword_candidates(repo_id, words, as_of))
    scores = index.scores({t for w in words for t in terms(w)}, among=candidates)
    best = sorted((d for d in candidates if d in scores), key=lambda d: (-scores[d], d))[:limit]
    return [DocHit(d, -scores[d]) for d in best]
