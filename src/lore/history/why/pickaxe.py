"""The identifier arm of `why`: the commits behind the identifiers a question names, ordered as
the pickaxe (`git log -S NAME`) would point at them.

A question that names `update_min_steps` and `_completed_intervals` asks about the code those
names are in. Of the commits that added or removed a line naming one (`symbols_store`), the
commit that names several of them is the one that wrote that code, and the commit that first
added a name is the one that brought its behaviour in; later touches (a rename, a reformat, a
refactor that moved the line) come after. Each name counts by how rare it is: a name one commit
added singles that commit out, a name twenty commits added says little of any one. Among
commits the names weigh equally, the question's words decide (BM25 over their texts).
"""

from __future__ import annotations

import math
from dataclasses import replace

from lore.history.why.evidence import Evidence, Provider, WhyQuery
from lore.history.why.keywords import query_weights, ranked
from lore.history.why.sourced import evidence_of
from lore.history.why.store import WhyStore
from lore.history.why.symbols import named_in
from lore.history.why.symbols_store import SymbolStore
from lore.history.why.target import topic

POOL = 50  # items the arm ranks
# an identifier added by more commits than this share of the repository's (and than `COMMON_MIN`)
# is its vocabulary (the project's own name, a core class), not what a question singles out
COMMON_SHARE = 0.02
COMMON_MIN = 5
FIRST = 0.5  # what first adding a name counts, over touching it: the introduction is the reason
SPECIFIC = 1.0  # scales `weight_of`: a share of one (one commit touched the name) weighs two lists


def pickaxe_scores(
    touches: list[tuple[str, int]], touched_by: dict[str, int], firsts: dict[str, int]
) -> dict[int, float]:
    """What the named identifiers say of each commit node of `touches` (identifier, node): for
    every identifier it touched, one over how many commits touched it, once more (`FIRST`) for
    an identifier it first added."""
    score: dict[int, float] = {}
    for symbol, node in touches:
        share = 1.0 / max(1, touched_by[symbol])
        score[node] = score.get(node, 0.0) + share * (1.0 + (FIRST if firsts.get(symbol) == node else 0.0))
    return score


def weight_of(score: float) -> float:
    """What an item weighs in the fusion, by its `pickaxe_scores` score: an identifier one commit
    touched gives that commit two lists' worth, one touched by four commits one list's worth."""
    return min(2.0, 2.0 * math.sqrt(SPECIFIC * score))


def symbol_provider(db: WhyStore) -> Provider:
    """The commits behind the identifiers a question names, in `pickaxe_order`. An identifier
    most commits add says nothing of one change and is left out."""

    def provide(q: WhyQuery) -> list[Evidence]:
        if q.mode != "question":
            return []
        named = named_in(topic(q))
        if not named:
            return []
        symbols = SymbolStore(db.store)
        found = symbols.introduced(q.repo.id, named, q.as_of)
        if not found:
            return []
        common = max(COMMON_MIN, COMMON_SHARE * symbols.commit_count(q.repo.id))
        kept = sorted((f for f in found if f.commits <= common), key=lambda f: (f.commits, f.symbol))
        if not kept:
            return []
        touches = symbols.touching(q.repo.id, [f.symbol for f in kept], q.as_of)
        firsts = {f.symbol: f.nodes[0] for f in kept}
        touches += [(s, n) for s, n in firsts.items() if (s, n) not in set(touches)]
        touched_by: dict[str, int] = {}
        for symbol, _node in touches:
            touched_by[symbol] = touched_by.get(symbol, 0) + 1
        nodes = sorted({n for _s, n in touches})
        docs = {d.source_id: (d, m) for d, m in db.sourced_by_source(q.repo.id, ("commit",), nodes)}
        by_id = {d.id: d.source_id for d, _m in docs.values()}
        hits = ranked(db, q.repo.id, query_weights(topic(q)), q.as_of, len(by_id), among=list(by_id))
        text_rank = {by_id[h.doc_id]: i for i, h in enumerate(hits)}
        score = pickaxe_scores(touches, touched_by, firsts)
        last = len(text_rank)
        best = sorted(score, key=lambda n: (-round(score[n], 9), text_rank.get(n, last), n))
        items = evidence_of(q.repo, [docs[n] for n in best if n in docs][:POOL])
        return [replace(e, extra={**e.extra, "weight": weight_of(score[e.extra["node"]])}) for e in items]

    return provide
