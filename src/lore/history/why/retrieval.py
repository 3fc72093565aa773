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

from lore.core.embed import get_embedder
from lore.core.text import STOPWORDS, split_words
from lore.core.vectors import VectorIndex
from lore.history import queries
from lore.history import store as layer1
from lore.history.why.evidence import Evidence, Provider, WhyQuery, best_sentence, fuse, terms
from lore.history.why.store import Doc, WhyStore, open_why

COLLECTION = "history_text"
DEPTH = 3  # hops of the walk from the named files
MAX_DEGREE = 20  # hub suppression, as `lore history walk` defaults
POOL = 50  # items each provider ranks
EMBED_CHARS = 2000  # of a long thread, the start carries its subject
# The walk follows what ties a file to its reasons; PARENT and AUTHORED edges lead to unrelated
# commits (a parent) or to people, who are hubs.
WALK_RELATIONS = ("MODIFIED", "PART_OF", "CLOSES", "MENTIONS", "RENAMED_FROM", "COMMENTED_ON")


def vector_index() -> VectorIndex:
    return VectorIndex(COLLECTION, get_embedder())


# (store file, repository, embedder) -> the texts' state when every one of them had a vector
_vectors_complete: dict[tuple[str, int, str], tuple[int, int]] = {}


def ensure_index(repo: layer1.Repo, db: WhyStore | None = None) -> int:
    """Bring the keyword and vector indexes up to date with layer 1; returns texts added.

    Checking every text for a vector reads all their ids; once a process has seen them complete,
    two small reads (layer 1's fingerprint, the texts' count and newest id) stand for it, and
    while nothing was committed to the store since the last call, not even those."""
    db = db or open_why()
    index = vector_index()
    memo = (str(db.store.path), repo.id, index.space.name)
    quiet = layer1.HistoryStore(db.store).quiet_since_last_look(f"why-index:{repo.id}:{index.space.name}")
    if quiet and memo in _vectors_complete:
        return 0
    added = db.sync(repo.id)
    state = db.doc_state(repo.id)
    if added == 0 and _vectors_complete.get(memo) == state:
        return 0
    have = index.keys()
    absent = [i for i in db.doc_ids(repo.id) if str(i) not in have]
    if absent:
        missing = list(db.docs_by_id(absent).values())
        index.add_texts(
            (
                str(d.id),
                d.text[:EMBED_CHARS] or d.kind,
                {"repo": d.repo_id, "at": d.at or 0.0, "kind": d.kind},
            )
            for d in missing
        )
    _vectors_complete[memo] = state
    return added


# -- turning indexed texts into evidence ---------------------------------------------------------


def _unit(kind: str, ref: str, thread_kind: str | None, thread_number: int | None) -> str:
    if kind == "commit":
        return f"commit:{ref}"
    if kind in ("pr", "issue"):
        return f"{kind}:{ref}"
    return f"{thread_kind or 'issue'}:{thread_number}"


def to_evidence(repo: layer1.Repo, docs: Sequence[Doc], db: WhyStore) -> list[Evidence]:
    """Evidence for indexed texts, in the order given; texts whose source is gone are skipped."""
    metas = db.source_meta(docs)
    out = []
    for d in docs:
        m = metas.get(d.id)
        if m is None:
            continue
        url = m.url
        if d.kind == "commit" and repo.github:
            url = f"https://github.com/{repo.github}/commit/{m.ref}"
        ref = m.ref[:10] if d.kind == "commit" else (f"#{m.ref}" if d.kind in ("pr", "issue") else m.ref)
        out.append(
            Evidence(
                key=f"{d.kind}:{m.ref}",
                kind=d.kind,
                unit=_unit(d.kind, m.ref, m.thread_kind, m.thread_number),
                title=m.title.splitlines()[0] if m.title else "",
                text=d.text,
                at=d.at,
                ref=ref,
                url=url,
                author=m.author,
                layer="git" if d.kind == "commit" else "github",
                extra={
                    "node": d.source_id,
                    "thread": d.thread_id if d.thread_id is not None else d.source_id,
                    **({"association": m.association} if m.association else {}),
                },
            )
        )
    return out


def _ordered(docs: dict[int, Doc], ids: Sequence[int]) -> list[Doc]:
    return [docs[i] for i in ids if i in docs]


# -- the layer-1 providers -----------------------------------------------------------------------


def fts_expression(text: str) -> str | None:
    """An FTS5 OR of the question's words (quoted, so no word is read as an operator)."""
    words = [w for w in split_words(text) if w not in STOPWORDS and len(w) > 1]
    unique = list(dict.fromkeys(words))[:32]
    return " OR ".join(f'"{w}"' for w in unique) or None


def keyword_provider(db: WhyStore) -> Provider:
    def provide(q: WhyQuery) -> list[Evidence]:
        match = fts_expression(q.question)
        if match is None:
            return []
        hits = db.keyword_search(q.repo.id, match, q.as_of, POOL)
        ids = [h.doc_id for h in hits]
        return to_evidence(q.repo, _ordered(db.docs_by_id(ids), ids), db)

    return provide


def vector_provider(db: WhyStore) -> Provider:
    def provide(q: WhyQuery) -> list[Evidence]:
        if not q.question.strip() or q.mode == "path":  # a path's characters carry no meaning
            return []
        where: dict[str, object] = {"repo": q.repo.id}
        if q.as_of is not None:
            where["at"] = ("<=", q.as_of)
        hits = vector_index().search(q.question, k=POOL, where=where)
        ids = [int(h.key) for h in hits]
        return to_evidence(q.repo, _ordered(db.docs_by_id(ids), ids), db)

    return provide


def _node_docs(q: WhyQuery, db: WhyStore, node_ids: Sequence[int]) -> list[Evidence]:
    docs = db.docs_by_source(q.repo.id, ("commit", "pr", "issue"), node_ids)
    by_source = {d.source_id: d for d in docs}
    return to_evidence(q.repo, [by_source[n] for n in node_ids if n in by_source], db)


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
        )
        depth = {h.id: h.depth for h in hits}
        found = _node_docs(q, db, [h.id for h in hits])
        return [replace(e, extra={**e.extra, "tier": depth.get(e.extra["node"])}) for e in found]

    return provide


def change_size_provider(db: WhyStore) -> Provider:
    """The commits that wrote most of the named files (across their renames), biggest first."""

    def provide(q: WhyQuery) -> list[Evidence]:
        if not q.files:
            return []
        file_ids: list[int] = []
        for fid in q.files:
            file_ids.extend(seg[0] for seg in queries.file_lineage(q.repo, fid))
        sizes = db.change_sizes(sorted(set(file_ids)), q.as_of, POOL)
        return _node_docs(q, db, [s.commit_node for s in sizes])

    return provide


SEEDS = 5  # best items of the first fusion whose links are followed
HOP_DECAY = 0.5  # a linked item inherits this share of its seed's score per hop
LINK_RELATIONS = ("PART_OF", "CLOSES", "MENTIONS")


def linked(q: WhyQuery, seeds: Sequence[Evidence]) -> dict[str, tuple[float, Evidence]]:
    """What the best first answers link to (a commit's PR, the issue a PR closed), with the share
    of its seed's score it inherits: `HOP_DECAY` per hop, the best seed's share when several.

    A question that names a PR by its words, not its number, asks one hop past it ("the issue
    behind this change"): the text finds the PR, and only the graph knows what it closed.
    """
    graph = layer1.open_history().graph
    bonus: dict[int, float] = {}
    for seed in seeds:
        start = seed.extra.get("thread")
        if start is None:
            continue
        hits = graph.walk(
            start,
            depth=2,
            max_degree=MAX_DEGREE,
            relations=LINK_RELATIONS,
            until=q.as_of,
            kinds=("commit", "pr", "issue"),
            limit=POOL,
        )
        for h in hits:
            bonus[h.id] = max(bonus.get(h.id, 0.0), seed.score * HOP_DECAY**h.depth)
    found = _node_docs(q, open_why(), list(bonus))
    return {e.key: (bonus[e.extra["node"]], e) for e in found}


def layer1_providers(db: WhyStore | None = None) -> dict[str, Provider]:
    db = db or open_why()
    return {
        "keywords": keyword_provider(db),
        "meaning": vector_provider(db),
        "graph": graph_provider(db),
        "size": change_size_provider(db),
    }


def retrieve(
    q: WhyQuery,
    providers: dict[str, Provider],
    limit: int = 10,
    pinned: Sequence[Evidence] = (),
) -> list[Evidence]:
    """The fused evidence, best first, each with the sentence of it that matches the question.

    `pinned` items (the commit that last wrote a blamed line) come first, whatever the fusion says.
    """
    ranked = {name: provide(q) for name, provide in providers.items()}
    first = fuse(ranked, POOL)
    top = first[0].score if first else 1.0
    seeds = [*(replace(p, score=top) for p in pinned), *first[:SEEDS]]
    scored = {e.key: e for e in first}
    for key, (bonus, item) in linked(q, seeds).items():
        base = scored.get(key)
        if base is None:
            scored[key] = replace(item, score=bonus, via=("links",))
        else:
            scored[key] = replace(base, score=base.score + bonus, via=(*base.via, "links"))
    fused = sorted(scored.values(), key=lambda e: (-e.score, e.key))[: limit + len(pinned)]
    keys = {p.key for p in pinned}
    chosen = [*pinned, *(e for e in fused if e.key not in keys)][:limit]
    wanted = terms(q.question)
    return [e if e.quote else replace(e, quote=best_sentence(e.text, wanted)) for e in chosen]
