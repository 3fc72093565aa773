"""The keyword arm of `why`: BM25 over the indexed texts, with each repository's own statistics.

The words are ours (`terms`: identifiers split, rough stems), the same for the texts and the
question, on either backend. How many texts hold a word and how long each text is are counted
per repository when the texts are indexed, at ingest (`terms_store`), so a word every commit of
a project carries (its own name: "click", "FastAPI") weighs little there, however rare it is in
another repository of the same store, and ingesting a second repository changes nothing of the
first's ranking. A question reads the postings of its few words and scores them here; nothing
is counted, tokenised or held in memory between questions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from lore.core.bm25 import K1, B
from lore.core.text import split_words, stem
from lore.core.vocabulary import STOPWORDS
from lore.history.why.store import DocHit, WhyStore
from lore.history.why.terms_store import TermStore

# a word of an FTS5 expression as `retrieval.fts_expression` writes it: double-quoted
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def words_of(match: str) -> list[str]:
    """The words of an FTS5 expression (`"a" OR "b"`), in order."""
    return [w.replace('""', '"') for w in _QUOTED.findall(match) if w.strip()]


_TOKEN = re.compile(r"[A-Za-z0-9_]+")


def terms(text: str) -> list[str]:
    """What BM25 counts: the stemmed words of a text, split as the questions are, and each
    identifier made of several words once more whole (`AnyIO`: `any`, `io` and `anyio`), so a
    name matches itself before it matches its parts."""
    out: list[str] = []
    for token in _TOKEN.findall(text):
        parts = split_words(token)
        out.extend(stem(w) for w in parts)
        if len(parts) > 1:
            out.append("".join(parts))
    return out


def query_weights(text: str) -> dict[str, float]:
    """The question's terms and what each weighs: a word 1; the parts of an identifier share
    one (so `FastAPI` counts `fastapi` once, not `fast` and `api` and `fastapi`); filler words
    and single letters none."""
    weights: dict[str, float] = {}
    for token in _TOKEN.findall(text):
        parts = [w for w in split_words(token) if w not in STOPWORDS and len(w) > 1]
        whole = split_words(token)
        share = 1.0 / len(whole) if len(whole) > 1 else 1.0
        for w in parts:
            t = stem(w)
            weights[t] = max(weights.get(t, 0.0), share)
        if len(whole) > 1:
            weights["".join(whole)] = 1.0
    return weights


def count(text: str) -> dict[str, int]:
    """A text's words and how often each occurs: what the index writes for BM25 (`WhyStore.sync`)."""
    return dict(Counter(terms(text)))


def idf(df: int, n: int) -> float:
    """BM25's weight of a word held by `df` of `n` texts (never negative)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def keyword_hits(db: WhyStore, repo_id: int, match: str, as_of: float | None, limit: int) -> list[DocHit]:
    """The best `limit` texts for an FTS5 expression's words, best first (lower score is
    better, as FTS5 gives it), none newer than `as_of`."""
    return ranked(db, repo_id, query_weights(" ".join(words_of(match))), as_of, limit)


def ranked(
    db: WhyStore,
    repo_id: int,
    weights: dict[str, float],
    as_of: float | None,
    limit: int,
    among: Sequence[int] | None = None,
) -> list[DocHit]:
    """The best `limit` texts for weighted terms (`query_weights`), best first (lower score is
    better), none newer than `as_of`, only of the texts `among` when given; BM25 with the
    repository's own statistics."""
    wanted = sorted(t for t, w in weights.items() if w > 0)
    if not wanted:
        return []
    store = TermStore(db.store)
    texts = store.collection(repo_id)
    if texts.count == 0:
        return []
    weight = weighted(store, repo_id, weights, texts.count)
    mean = texts.mean_length or 1.0
    scores: dict[int, float] = {}
    for p in store.postings(repo_id, wanted, as_of, among):
        norm = p.tf + K1 * (1 - B + B * p.length / mean)
        scores[p.doc_id] = scores.get(p.doc_id, 0.0) + weight[p.term] * p.tf * (K1 + 1) / norm
    best = sorted(scores, key=lambda d: (-scores[d], d))[:limit]
    return [DocHit(d, -scores[d]) for d in best]


def weighted(store: TermStore, repo_id: int, weights: dict[str, float], texts: int) -> dict[str, float]:
    """Each term the repository's texts hold, with its query weight times its BM25 weight there
    (`texts`: how many texts the repository has)."""
    df = store.frequencies(repo_id, sorted(t for t, w in weights.items() if w > 0))
    return {t: weights[t] * idf(n, texts) for t, n in df.items()}


SUBJECT = 1.0  # what a question's term in a text's first line adds, in units of its weight


def by_subject(
    db: WhyStore, repo_id: int, weights: dict[str, float], hits: Sequence[DocHit], subjects: Sequence[str]
) -> list[int]:
    """The positions of `hits` (their first lines in `subjects`, in the same order) ranked again
    with each question term in the first line counted once more, at its full weight.

    A commit's subject names what it changes; its body may list every file and follow-up, and a
    merge's the titles of what it brings in. BM25 over the whole message lets a long body that
    repeats a word outrank the commit whose subject says what the question asks; counting the
    subject's terms again (a field of its own, as BM25F weighs a title) gives that back.
    """
    store = TermStore(db.store)
    weight = weighted(store, repo_id, weights, store.collection(repo_id).count)
    score = [
        -hit.score + SUBJECT * sum(weight.get(t, 0.0) for t in set(terms(subject)))
        for hit, subject in zip(hits, subjects, strict=True)
    ]
    return sorted(range(len(hits)), key=lambda i: (-score[i], i))
