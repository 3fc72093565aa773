"""Hybrid retrieval over layer 1: keywords, meaning and the graph, fused by reciprocal rank.

Recency is not relevance. A walk from a file lists its commits newest first, so on a long
history the commits that made the file what it is sink below last month's typo fixes; here the
walk is only one voice. The others rank by the question itself (BM25 over the text, the
embedder's similarity) and, when a file is named, by how much of the file each commit wrote.
Every provider applies `as_of` inside its own query, so nothing later than the date is ever
ranked, rather than filtered out of a finished top list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import zip_longest

from lore.core.text import split_words
from lore.core.vocabulary import STOPWORDS
from lore.history import queries
from lore.history import store as layer1
from lore.history.store.base import REACHABLE_ONLY
from lore.history.why import asks, chores
from lore.history.why.evidence import Evidence, Provider, WhyQuery, fuse, with_reason
from lore.history.why.keywords import by_subject, query_weights, ranked
from lore.history.why.pickaxe import symbol_provider
from lore.history.why.sourced import evidence_of, node_docs
from lore.history.why.store import WhyStore, open_why
from lore.history.why.target import topic

DEPTH = 3  # hops of the walk from the named files
MAX_DEGREE = 20  # hub suppression, as `lore history walk` defaults
POOL = 50  # items each provider ranks
# The walk follows what ties a file to its reasons; PARENT and AUTHORED edges lead to unrelated
# commits (a parent) or to people, who are hubs.
WALK_RELATIONS = ("MODIFIED", "PART_OF", "CLOSES", "MENTIONS", "RENAMED_FROM", "COMMENTED_ON")


# -- the layer-1 providers -----------------------------------------------------------------------


def fts_expression(text: str) -> str | None:
    """An FTS5 OR of the question's words (quoted, so no word is read as an operator)."""
    words = [w for w in split_words(text) if w not in STOPWORDS and len(w) > 1]
    unique = list(dict.fromkeys(words))[:32]
    return " OR ".join(f'"{w}"' for w in unique) or None


def keyword_provider(db: WhyStore) -> Provider:
    """BM25 over the indexed texts, the question's terms in a text's first line counted once
    more (`keywords.by_subject`)."""

    def provide(q: WhyQuery) -> list[Evidence]:
        weights = query_weights(topic(q))
        hits = ranked(db, q.repo.id, weights, q.as_of, POOL)
        found = db.sourced([h.doc_id for h in hits])
        hits = [h for h in hits if h.doc_id in found]
        items = evidence_of(q.repo, [found[h.doc_id] for h in hits])
        return [items[i] for i in by_subject(db, q.repo.id, weights, hits, [e.title for e in items])]

    return provide


def graph_provider(db: WhyStore) -> Provider:
    """The hub-suppressed walk from what the question names, nearest first; each item's hop count
    is its tier, so inside a hop no order is claimed (see `fuse`)."""

    def provide(q: WhyQuery) -> list[Evidence]:
        starts = [*q.files, *q.nodes]
        if not starts:
            return []
        hits = layer1.open_history().graph.walk(
            starts,
            depth=DEPTH,
            max_degree=MAX_DEGREE,
            relations=WALK_RELATIONS,
            until=q.as_of,
            kinds=("commit", "pr", "issue"),
            limit=POOL,
            include_start=True,
            edge_filter=REACHABLE_ONLY,
        )
        found = node_docs(q, db, [h.id for h in hits])
        if q.asks_recency:  # "the most recent change": within a hop, newest first is the order
            return found
        depth = {h.id: h.depth for h in hits}
        return [replace(e, extra={**e.extra, "tier": depth.get(e.extra["node"])}) for e in found]

    return provide


def change_size_provider(db: WhyStore) -> Provider:
    """The commits that made the named files what they are (across their renames): the one that
    created each, then those that wrote most of it, biggest first; when the question asks for the
    latest change, the same commits newest first."""

    def provide(q: WhyQuery) -> list[Evidence]:
        if not q.files:
            return []
        file_ids: list[int] = []
        for fid in q.files:
            file_ids.extend(seg[0] for seg in queries.file_lineage(q.repo, fid))
        sizes = db.change_sizes(sorted(set(file_ids)), q.as_of, POOL, newest=q.asks_recency)
        return node_docs(q, db, [s.commit_node for s in sizes])

    return provide


def creation_provider(db: WhyStore) -> Provider:
    """When a bare path is asked (`why PATH`: why is this file here) or a question asks why a
    file it names is there (`asks.asks_existence`): the commits that created it (across its
    renames, so the move into `src/` is not its creation), oldest first. The other arms list
    every change of the file; this one says which brought it in."""

    def provide(q: WhyQuery) -> list[Evidence]:
        asked = q.mode == "path" or (q.mode == "question" and asks.asks_existence(q.question))
        if not q.files or not asked:
            return []
        file_ids: list[int] = []
        for fid in q.files:
            file_ids.extend(seg[0] for seg in queries.file_lineage(q.repo, fid))
        sizes = db.change_sizes(sorted(set(file_ids)), q.as_of, POOL)
        created = sorted((s for s in sizes if s.created), key=lambda s: s.at)
        return node_docs(q, db, [s.commit_node for s in created])

    return provide


# what each provider's list weighs in the fusion (1 when not named): a file's creation, asked for
# by name, outweighs the question's other words and the file's later changes together
WEIGHTS: dict[str, float] = {"created": 3.0}

TEXT_PROVIDERS = ("keywords", "meaning")  # the lists ranked by the question's words alone
NEAR_RELATIONS = ("PART_OF", "CLOSES")  # a commit to its PR, a PR to the issue it closed


def near_named(q: WhyQuery, ranked: dict[str, list[Evidence]]) -> list[Evidence]:
    """The text's candidates close to the files the question names that the walk's list left
    out: those that changed one (a commit or a PR: one hop), then those one link from such a
    change (its PR, the issue it closed: two hops), each hop a tier, in the text's order.

    The walk from a file lists what is near it but, on a busy file, its first `POOL` items are
    all one hop away, so a PR that matches the words and changed the file never gets the credit
    of being near it. Asking the other way round, of the text's candidates, gives it back; what
    the walk listed already has it, and is not counted twice.
    """
    if not q.files or q.asks_recency:  # asked for the newest, the walk's own order is the answer
        return []
    walked = {e.key for e in ranked.get("graph", [])}
    lists = [ranked.get(name, []) for name in TEXT_PROVIDERS]
    candidates: dict[int, Evidence] = {}
    for row in zip_longest(*lists):
        for e in row:
            if e is None or e.key in walked or e.kind not in ("commit", "pr", "issue"):
                continue
            node = e.extra.get("thread")
            if node is not None:
                candidates.setdefault(node, e)
    if not candidates:
        return []
    # two reads, not one: asked together, the candidates' own MODIFIED edges come too, and a
    # sweep's run to thousands of rows (measured slower than the round trip it saves)
    graph = layer1.open_history()
    changed = {other for _f, other, _r, _d in graph.links_of(list(q.files), ("MODIFIED",), q.as_of)}
    one = [n for n in candidates if n in changed]
    rest = [n for n in candidates if n not in changed]
    linked_to = {n for n, other, _r, _d in graph.links_of(rest, NEAR_RELATIONS, q.as_of) if other in changed}
    two = [n for n in rest if n in linked_to]
    return [
        *(replace(candidates[n], extra={**candidates[n].extra, "tier": 1}) for n in one),
        *(replace(candidates[n], extra={**candidates[n].extra, "tier": 2}) for n in two),
    ]


SEEDS = 8  # best items of the first fusion whose links are followed
# What a link passes on of its seed's score. A PR closed an issue because of it: the issue is the
# reason for the change, so it inherits in full (a why question asks for reasons). A commit's PR
# holds its discussion. A mention is only a pointer, and a popular issue collects many.
LINK_WEIGHTS = {"CLOSES": 1.0, "PART_OF": 0.8, "MENTIONS": 0.3}
LINK_RELATIONS = tuple(LINK_WEIGHTS)
LINK_HOPS = 2  # what `links_two_hops` reads in one statement
# SIBLINGS: a commit passes no score to another commit through their PR. The commits of one PR
# (its branch commits, its merge commit, a squash) say the same words, so each is found by the
# text on its own; passing scores between them summed to a bonus for the number of commits a PR
# had, which pushed a one-commit answer below every multi-commit PR that shared a word with the
# question. A PR or an issue a commit leads to still inherits, and passes on to its commits.


def linked(q: WhyQuery, seeds: Sequence[Evidence]) -> dict[str, tuple[float, Evidence]]:
    """What the best first answers link to (a commit's PR, the issue a PR closed), each with the
    score it inherits: per seed, its score times the best product of link weights over at most
    two hops; summed over the seeds, so an item several good answers lead to comes first.

    A question that names a file and a PR by its words asks two hops past them ("the issue
    behind this change"): the text finds the PR, the graph finds the file's commits, and only
    the links know what closed what; an issue both lead to is the answer. Hubs (more than
    `MAX_DEGREE` edges) are reached but not gone through, as in the walk.
    """
    graph = layer1.open_history()
    score: dict[int, float] = {}  # seed node -> its best score
    for seed in seeds:
        start = seed.extra.get("thread")
        if start is not None:
            score[start] = max(score.get(start, 0.0), seed.score)
    reach = {start: {start: 1.0} for start in score}  # seed node -> node -> best path weight
    frontier = {start: {start} for start in reach}  # node -> seeds it was reached from this hop
    # both hops in one read: the second hop's edges are those of every non-hub neighbour, of
    # which the loop follows the ones it reaches (edges from other nodes find no seed below)
    hops = graph.links_two_hops(list(frontier), LINK_RELATIONS, q.as_of, MAX_DEGREE)
    for edges in hops[:LINK_HOPS]:
        following: dict[int, set[int]] = {}
        for node, other, rel, degree in edges:
            for start in frontier.get(node, ()):
                weight = reach[start][node] * LINK_WEIGHTS[rel]
                if weight > reach[start].get(other, 0.0):
                    reach[start][other] = weight
                    if degree <= MAX_DEGREE:
                        following.setdefault(other, set()).add(start)
        frontier = following
    kinds = {s.extra.get("thread"): s.kind for s in seeds}
    reached_nodes = {node for reached in reach.values() for node in reached}
    found = node_docs(q, open_why(), sorted(reached_nodes))
    commits = {e.extra["node"] for e in found if e.kind == "commit"}
    bonus: dict[int, float] = {}
    for start, reached in reach.items():
        for node, weight in reached.items():
            if node == start or (kinds.get(start) == "commit" and node in commits):
                continue  # a commit passes nothing to a commit: see `SIBLINGS`
            bonus[node] = bonus.get(node, 0.0) + score[start] * weight
    return {e.key: (bonus[e.extra["node"]], e) for e in found if e.extra["node"] in bonus}


def layer1_providers(db: WhyStore | None = None) -> dict[str, Provider]:
    db = db or open_why()
    return {
        "keywords": keyword_provider(db),
        "symbols": symbol_provider(db),
        "graph": graph_provider(db),
        "size": change_size_provider(db),
        "created": creation_provider(db),
    }


def evidence_for(
    q: WhyQuery, providers: dict[str, Provider], db: WhyStore, limit: int = 10
) -> list[Evidence]:
    """The ranked evidence for a query; for a blamed line (`mode="line"`, its commit the first
    of `q.nodes`) that commit comes first, marked as found by blame."""
    pinned: list[Evidence] = []
    if q.mode == "line" and q.nodes:
        found = db.sourced_by_source(q.repo.id, ("commit",), list(q.nodes[:1]))
        pinned = [replace(e, via=("blame",)) for e in evidence_of(q.repo, found)]
    return retrieve(q, providers, limit=limit, pinned=pinned)


def retrieve(
    q: WhyQuery,
    providers: dict[str, Provider],
    limit: int = 10,
    pinned: Sequence[Evidence] = (),
) -> list[Evidence]:
    """The fused evidence, best first, each quoting the reason its source gives (or none).

    `pinned` items (the commit that last wrote a blamed line) come first, whatever the fusion says.
    """
    ranked = {name: provide(q) for name, provide in providers.items()}
    ranked["near"] = near_named(q, ranked)
    first = fuse(ranked, POOL, WEIGHTS)
    top = first[0].score if first else 1.0
    seeds = [*(replace(p, score=top) for p in pinned), *first[:SEEDS]]
    scored = {e.key: e for e in first}
    for key, (bonus, item) in linked(q, seeds).items():
        base = scored.get(key)
        if base is None:
            scored[key] = replace(item, score=bonus, via=("links",))
        else:
            scored[key] = replace(base, score=base.score + bonus, via=(*base.via, "links"))
    spared = chores.asked(q.question)
    gone = q.mode == "question" and asks.asks_gone(q.question)
    for key, e in scored.items():
        if e.kind == "commit" and not q.asks_recency:  # the latest change is asked, whatever it is
            kept = chores.weight(e.title, spared) * asks.weight(e.title, gone)
            if kept != 1.0:
                scored[key] = replace(e, score=e.score * kept)
    fused = sorted(scored.values(), key=lambda e: (-e.score, e.key))[: limit + len(pinned)]
    keys = {p.key for p in pinned}
    chosen = [*pinned, *(e for e in fused if e.key not in keys)][:limit]
    return [with_reason(e, q.question) for e in chosen]
