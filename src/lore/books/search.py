"""Hybrid passage search under the reader's cap, and the spoiler-free "not reached yet" probe.

A question is first read twice: `query.parse` (its content words, each standing for the words a
story may use for it, "killer": murderer, murdered, slain..., and for "who is the ROLE?" the
role a passage must give someone by name) and `question.understand` (its answer type, the names
it uses, its cue words). Two rankings of the visible passages are fused with reciprocal-rank
fusion:
- BM25 over the passages the full-text index finds (stemmed words: SQLite's FTS5, or the
  `tsvector` column on PostgreSQL), scored from the statistics
  of the visible passages only (FTS5's own `bm25()` counts every passage of every book), and
- cosine similarity from the passage vectors (filters applied inside the scan);
then each candidate is raised when it (or the passage before it) names the question's
characters, as the visible text names them, each by how rarely the visible book names them, and
when it holds its answer type's cue words (`retrieve.boosts`).

Relevance is one scale (`Signals.strength`: IDF-weighted coverage of the question's word groups,
or cosine similarity, each over its floor). A search is answered when a visible passage reaches
`SEEN_THRESHOLD`, and shows the passages reaching `HIT_FLOOR`. A "who is the ROLE?" question is
answered by passages naming someone as the role; when none does, here or further on, the
relevant passages are the answer. When nothing visible answers, one uncapped probe (the same
searches, no model call) says "you haven't reached the part that answers this" only when a
passage past the cap reaches the stricter `AHEAD_THRESHOLD`; else the visible passages reaching
`WEAK_FLOOR` with two words of the question are the closest the book comes (the answer says the
match is weak), and only when none does, "the book does not say". The probe returns nothing
else: no passage, no chapter, no score.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.books.library import Book, Stores, caps_for, find_book, open_books, series_books
from lore.books.passage_vectors import embedder, vector_search
from lore.books.retrieve.boosts import boosts
from lore.books.retrieve.query import Query, names_the_role, parse
from lore.books.retrieve.question import understand
from lore.books.retrieve.story import Story, named_story, without
from lore.books.store import BooksStore
from lore.books.store.cap import END, Cap
from lore.books.store.records import PassageRow
from lore.core.config import load_settings

RRF_K = 5
BM25_K1, BM25_B = 1.2, 0.75
CANDIDATES = 50
# Measured on the dev half of bench/data/book_questions.jsonl (bench/books_ask.py prints both
# halves): a sharp fusion (k 5: the first ranks decide), a passage shares its neighbours' word
# scores in full (an answer often runs over a passage boundary, or follows the passage naming the
# topic), the vector ranking counts 0.3 of the words (static word vectors rank 60-140-word
# passages loosely), and half of the question's IDF weight is the unit of relevance (at 75%, 34
# of 40 "the book doesn't say" on dev were false). Asking the embedder a second, declarative form
# of the question (FORMS = 2) gave the same top 3 at twice the vector time.
NEIGHBOUR_WEIGHT = 1.0
DENSE_WEIGHT = 0.3
COVERAGE_FLOOR = 0.5
FORMS = 1
# Calibrated on the dev half of the questions (bench/books_ask.py prints both halves), on the
# relevance scale of `Signals.strength` (1.0: half the question's IDF weight, or the embedder's
# cosine floor). "Found" when a visible passage reaches SEEN_THRESHOLD; hits shown are those
# reaching HIT_FLOOR (an answer often holds only a quarter of the question's words: at 0.8, 4 of
# the 20 dev answers in the top 3 fell out); "not reached" only when a passage past the cap
# reaches AHEAD_THRESHOLD, stricter, so a loose match further on says "the book doesn't say".
SEEN_THRESHOLD = 1.0
HIT_FLOOR = 0.5
AHEAD_THRESHOLD = 1.2
# below HIT_FLOOR, a visible passage holding this much of the question's words (two of them at
# least) still counts as the closest the book comes when nothing past the cap is strong: "the book
# doesn't say" is kept for questions nothing in the book relates to
WEAK_FLOOR = 0.4
# cosine similarity a passage must reach to count as relevant, per embedder (scales differ)
RELEVANCE_FLOORS = {
    "hash-ngram-v1": 0.5,
    "minilm-l6-v2": 0.5,
    "nomic-embed-text": 0.62,
    "wordllama-": 0.45,
}
DEFAULT_FLOOR = 0.6
FOUND, NOT_REACHED, NOT_IN_BOOK = "found", "not_reached", "not_in_book"
MESSAGES = {
    FOUND: "",
    NOT_REACHED: "You haven't reached the part of the book that answers this yet.",
    NOT_IN_BOOK: "The book doesn't say (nothing in it matches this question).",
}
# With `books.spoiler_hint` off, both verdicts read the same: nothing up to here answers it.
NOT_ANSWERED = "not_answered"
NEUTRAL = "Nothing in what you have read so far answers this."


@dataclass
class PassageHit:
    passage_id: int
    book_id: int
    chapter: int
    passage: int
    start: int
    end: int
    text: str
    score: float  # fused (reciprocal-rank) score
    bm25: float | None = None  # from the statistics of the visible passages only
    cosine: float | None = None
    coverage: float = 0.0
    strength: float = 0.0  # on the relevance scale of `Signals.strength`: 1.0 is the old floor
    held: int = 0  # how many of the question's words (each with its variants) it holds
    asked: int = 0  # how many the question has


@dataclass
class SearchResult:
    query: str
    verdict: str
    message: str
    hits: list[PassageHit] = field(default_factory=list)
    embedder: str = ""
    floor: float = 0.0
    books: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def relevance_floor(name: str) -> float:
    """The cosine floor for an embedder: config `books.relevance_floor.<name>` wins."""
    configured = load_settings().section("books").get("relevance_floor", {})
    if isinstance(configured, dict) and isinstance(configured.get(name), int | float):
        return float(configured[name])
    for prefix, floor in RELEVANCE_FLOORS.items():
        if name == prefix or name.startswith(prefix):
            return floor
    return DEFAULT_FLOOR


def spoiler_hint() -> bool:
    """Config `books.spoiler_hint` (on by default): whether a search with no visible answer says
    "not reached yet" apart from "the book doesn't say". That one bit is about the unread part:
    a reader can test a guess ("does Lydia elope?") by the verdict. Off, both are one message."""
    value = load_settings().section("books").get("spoiler_hint", True)
    return value if isinstance(value, bool) else True


def search_book(
    ref: str | int, query: str, k: int = 5, *, spoilers: bool = False, store: Stores = None
) -> SearchResult:
    """Search one book within the reader's position (`spoilers` lifts the cap)."""
    db = open_books(store)
    return search_books([find_book(ref, db)], query, k, spoilers=spoilers, store=db)


def search_series(
    name: str, query: str, k: int = 5, *, spoilers: bool = False, store: Stores = None
) -> SearchResult:
    """Search every book of a series, each under its own cap."""
    db = open_books(store)
    return search_books(series_books(name, db), query, k, spoilers=spoilers, store=db)


def search_books(
    books: list[Book], query: str, k: int = 5, *, spoilers: bool = False, store: Stores = None
) -> SearchResult:
    db = open_books(store)
    query = " ".join(query.split())
    space = embedder()
    floor = relevance_floor(space.name)
    caps = caps_for(books, spoilers=spoilers)
    result = SearchResult(
        query=query, verdict=FOUND, message="", embedder=space.name, floor=floor, books=[b.id for b in books]
    )
    question, story = parse(query), _story(db, books, query)
    if story is not None:  # "in The Copper Beeches, ...": that story only, its title no search word
        caps = [c for c in caps if c.book_id == story.book_id]
        question = parse(without(query, story))
    answers, related = ranked(db, caps, question, floor, CANDIDATES, SEEN_THRESHOLD, story)
    if answers:
        result.hits = answers[:k]
        return result
    beyond = any(c.chapter < END for c in caps)
    answers_ahead, related_ahead = _probe(db, caps, question, floor, story) if beyond else (False, False)
    if not answers_ahead and related:  # nothing names the one asked for, here or later: what is said
        result.hits = related[:k]
        return result
    if not answers_ahead and not related_ahead:
        # nothing strong further on either: the loosely related passages read so far are the
        # closest the book comes (the answer says the match is weak); "doesn't say" only when
        # nothing at all is related
        _, loose = ranked(db, caps, question, floor, CANDIDATES, WEAK_FLOOR, story)
        # by the question's own words, more than one of them, not a vague likeness of meaning
        loose = [h for h in loose if h.coverage / COVERAGE_FLOOR >= WEAK_FLOOR and h.held >= min(2, h.asked)]
        if loose:
            result.hits = loose[:k]
            return result
    result.verdict = NOT_REACHED if answers_ahead or related_ahead else NOT_IN_BOOK
    result.message = MESSAGES[result.verdict]
    if not spoiler_hint():
        result.verdict, result.message = NOT_ANSWERED, NEUTRAL
    return result


@dataclass
class Signals:
    """What each ranking knows of the candidate passages of one question under one set of caps."""

    lexical: dict[str, Any]  # BM25 order, scores and IDF-weighted coverage (`_lexical`)
    vectors: dict[int, float]  # best cosine over the question's forms
    boosts: dict[int, float]  # named characters present, answer-type cues
    rows: dict[int, PassageRow]  # the candidates' text and place, read under the caps

    def strength(self, pid: int, floor: float) -> float:
        """How relevant a passage is on one scale: 1.0 is the old floor (half the question's
        weight, or the embedder's cosine floor), whichever signal reaches further."""
        return max(
            self.lexical["coverage"].get(pid, 0.0) / COVERAGE_FLOOR, self.vectors.get(pid, -1.0) / floor
        )


def _story(db: BooksStore, books: list[Book], query: str) -> Story | None:
    """The story of a collection the question names ("in A Case of Identity"), with its passages."""
    story = named_story(query, {b.id: db.chapter_outline(b.id) for b in books})
    if story is not None:
        spans = db.passage_spans(story.book_id)
        story.passages.update({p.id: p.passage_seq for p in spans if p.chapter_seq == story.chapter})
    return story


def signals(
    db: BooksStore, caps: list[Cap], question: Query, limit: int, story: Story | None = None
) -> Signals:
    """The lexical, semantic and entity/cue evidence for a question's candidate passages (within
    the story the question names, when it names one)."""
    understood = understand(question.text)
    lexical = _lexical(db, caps, understood.groups or question.groups, limit, story)
    vectors: dict[int, float] = {}
    chapter = story.chapter if story is not None else None
    for form in understood.forms[:FORMS]:
        for h in vector_search(db.store, caps, form, limit, chapter=chapter):
            vectors[int(h.key)] = max(vectors.get(int(h.key), -1.0), h.score)
    candidates = list(dict.fromkeys([*lexical["order"], *vectors]))
    rows = {r.id: r for r in db.passages_by_id(caps, candidates)}
    return Signals(lexical, vectors, boosts(db, caps, understood, rows, lexical["shares"]), rows)


def fuse(sig: Signals, limit: int) -> dict[int, float]:
    """Reciprocal-rank fusion of the word and vector rankings, each passage's scaled by its boosts."""
    fused: dict[int, float] = {}
    for rank, pid in enumerate(sig.lexical["order"]):
        fused[pid] = fused.get(pid, 0.0) + 1.0 / (RRF_K + rank + 1)
    for rank, pid in enumerate(sorted(sig.vectors, key=lambda p: (-sig.vectors[p], p))[:limit]):
        fused[pid] = fused.get(pid, 0.0) + DENSE_WEIGHT / (RRF_K + rank + 1)
    return {pid: f * (1.0 + sig.boosts.get(pid, 0.0)) for pid, f in fused.items()}


def ranked(
    db: BooksStore,
    caps: list[Cap],
    question: Query,
    floor: float,
    limit: int,
    threshold: float = 1.0,
    story: Story | None = None,
) -> tuple[list[PassageHit], list[PassageHit]]:
    """Visible passages best first by fused score, when at least one reaches `threshold` on the
    relevance scale (`Signals.strength`; none otherwise): those that answer the question, and all
    those reaching `HIT_FLOOR`. They are the same list, except for "who is the ROLE?", whose
    answers must name someone as the role."""
    if not question.text or all(c.chapter <= 0 for c in caps):
        return [], []
    sig = signals(db, caps, question, limit, story)
    scores = fuse(sig, limit)
    if not any(sig.strength(pid, floor) >= threshold for pid in scores):
        return [], []
    lexical, vectors, rows = sig.lexical, sig.vectors, sig.rows
    keep = [pid for pid in scores if sig.strength(pid, floor) >= min(HIT_FLOOR, threshold)]
    related = [
        PassageHit(
            passage_id=pid,
            book_id=r.book_id,
            chapter=r.chapter_seq,
            passage=r.passage_seq,
            start=r.start,
            end=r.end,
            text=r.text,
            score=round(scores[pid], 6),
            bm25=lexical["bm25"].get(pid),
            cosine=_rounded(vectors.get(pid)),
            coverage=round(lexical["coverage"].get(pid, 0.0), 3),
            strength=round(sig.strength(pid, floor), 4),
            held=lexical["held"].get(pid, 0),
            asked=lexical["groups"],
        )
        for pid in keep
        if (r := rows.get(pid)) is not None
    ]
    related.sort(key=lambda h: (-h.score, h.passage_id))
    if question.role is None:
        return related, related
    names: dict[int, list[tuple[int, int]]] = {}
    for m in db.names_in_passages(caps, [h.passage_id for h in related]):
        names.setdefault(m.passage_id, []).append((m.start, m.end))
    answers = [
        h
        for h in related
        if h.strength >= threshold and names_the_role(h.text, names.get(h.passage_id, []), question.role)
    ]
    return answers, related


def _probe(
    db: BooksStore, caps: list[Cap], question: Query, floor: float, story: Story | None = None
) -> tuple[bool, bool]:
    """Whether a strong match lies past the caps: one that answers, and one that is related.

    The same searches over whole books, but only passages past the reader's position that reach
    the stricter `AHEAD_THRESHOLD` count, so "not reached" is never said for an answer under the
    cap or a loose match further on. Only these two bits leave this function."""
    whole = [Cap(c.book_id, END) for c in caps]
    answers, related = ranked(db, whole, question, floor, CANDIDATES, AHEAD_THRESHOLD, story)
    visible = {r.id for r in db.passages_by_id(caps, [h.passage_id for h in related])}
    sig_strong = {h.passage_id for h in related if h.strength >= AHEAD_THRESHOLD} - visible
    return any(h.passage_id in sig_strong for h in answers), bool(sig_strong)


def _lexical(
    db: BooksStore, caps: list[Cap], groups: list[tuple[str, ...]], limit: int, story: Story | None = None
) -> dict[str, Any]:
    """BM25 order of visible passages, and each candidate's IDF-weighted share of the question.

    Each group is one content word of the question with its synonyms: a passage holds the word
    when it holds any of them. BM25 is computed here from the visible passages alone (how many
    there are, their mean length, how many hold each group), not by FTS5, whose statistics
    cover every passage of every book: a score must not change with text the reader cannot see."""
    empty: dict[str, Any] = {"order": [], "bm25": {}, "coverage": {}, "held": {}, "groups": 0, "shares": {}}
    if not groups:
        return empty
    total, mean_size = db.visible_size(caps)
    if story is not None:  # the statistics of the named story's visible passages
        total = story.visible(caps)
    scores: dict[int, float] = {}
    weights: list[float] = []
    holders: list[set[int]] = []
    shares: dict[
        str, float
    ] = {}  # a one-word group (a name's word) -> the share of visible passages holding it
    for group, found in zip(groups, db.group_hits(caps, groups), strict=True):
        rows = found if story is None else [r for r in found if story.holds(r.id)]
        df = len(rows)
        holders.append({r.id for r in rows})
        if len(group) == 1:
            shares[group[0]] = df / max(total, 1)
        weights.append(math.log(1.0 + total / (df + 0.5)))
        idf = math.log(1.0 + (total - df + 0.5) / (df + 0.5))
        for r in rows:
            norm = BM25_K1 * (1.0 - BM25_B + BM25_B * r.size / max(mean_size, 1.0))
            scores[r.id] = scores.get(r.id, 0.0) + idf * r.tf * (BM25_K1 + 1.0) / (r.tf + norm)
    if NEIGHBOUR_WEIGHT:  # an answer often spans a passage boundary: the next one shares its score
        scores = {
            pid: score + NEIGHBOUR_WEIGHT * (scores.get(pid - 1, 0.0) + scores.get(pid + 1, 0.0))
            for pid, score in scores.items()
        }
    order = sorted(scores, key=lambda pid: (-scores[pid], pid))[:limit]
    whole = sum(weights) or 1.0
    coverage = {
        pid: sum(w for w, held in zip(weights, holders, strict=True) if pid in held) / whole for pid in order
    }
    held = {pid: sum(1 for h in holders if pid in h) for pid in order}
    return {
        "order": order,
        "bm25": {pid: round(scores[pid], 4) for pid in order},
        "coverage": coverage,
        "held": held,
        "groups": len(groups),
        "shares": shares,
    }


def _rounded(value: float | None) -> float | None:
    """Four decimals: the last bits of a float32 dot product vary with the index's shape."""
    return None if value is None else round(value, 4)
