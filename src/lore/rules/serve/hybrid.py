"""`hybrid` ranking: BM25 and the meaning of the task (its words and its files' words) against
each rule's vector, fused, with a lift for rules whose scope names one of the files being changed;
the best candidates compared word by word; the best rules sent until they fill a share of what
sending every eligible rule would cost.
"""

from __future__ import annotations

from itertools import repeat
from typing import TYPE_CHECKING

from lore.core.globs import is_glob
from lore.core.tokens import estimate_tokens
from lore.rules.models import Rule
from lore.rules.serve.index import ProjectIndex
from lore.rules.serve.meaning import RuleMeaning, Similarities, task_text

if TYPE_CHECKING:  # the embedder package pulls in the model layer: loaded on first use
    import numpy as np

    from lore.core.embed.base import Embedder

# hybrid: the fused score is the task's cosine to a rule (as a z-score among the eligible rules)
# plus BM25_WEIGHT times its BM25 share of the best, plus NAMED_FILE_LIFT for a rule whose scope
# names a changed file (about the log-odds of such a rule being needed on the labelled set's dev
# half: 38% against 7% for any eligible rule), plus WORD_WEIGHT times the word-by-word match;
# rules are sent best first until they fill SEND_SHARE of the send-all tokens (at least MIN_SENT);
# the titles of the other eligible rules follow, likeliest first, as in `spec` (up to MAX_LISTED)
BM25_WEIGHT = 0.25
FEEDBACK = 3  # the task's vector is moved towards its 3 nearest eligible rules
NAMED_FILE_LIFT = 2.0
WORD_WEIGHT = 1.0
SEND_SHARE = 0.22
MIN_SENT = 2
MAX_SENT = 25
FUSED_KEPT = 60  # the best fused rules ranked further (plus those this session already has)


def _hybrid_scores(
    index: ProjectIndex,
    embedder: Embedder,
    task: str,
    terms: list[str],
    paths: list[str],
    groups: dict,
    among: set[str] | None,
    already_sent: set[str] | frozenset[str],
    listed_before: set[str] | frozenset[str],
) -> dict[str, float]:
    """The fused scores of the best candidates: meaning (with feedback), words, the named-file
    lift, then the word-by-word match among them.

    BM25 comes as one array in the matrix's row order (`BM25Index.scores_by_slot`): the same
    scores as the dict `spec` ranks with, without a dict of every rule sharing a word."""
    eligible = None if among is None else list(among)
    query = task_text(task, paths)
    sims = index.meaning.similarities(embedder, query, among=eligible, feedback=FEEDBACK)
    mask = sims.mask(eligible)
    if not mask.any():  # no vectors for these rules (not once caught up): words alone, as `fuse`
        lexical: dict = index.rank.scores(terms, among=among)
        return by_words(index.meaning, embedder, query, lexical)
    lift = {
        rid: NAMED_FILE_LIFT
        for scope in groups
        if names_a_file(scope, paths)
        for _, rid in groups[scope].members
    }
    keep = FUSED_KEPT + len(already_sent) + len(listed_before)
    bm25 = index.rank.scores_by_slot(terms, sims.row, len(sims.values))
    best = float(bm25[mask].max()) or 1.0
    fused = _fused_top(sims, mask, BM25_WEIGHT * bm25 / best, lift, keep)
    return by_words(index.meaning, embedder, query, fused)


def names_a_file(scope: tuple[str, ...], paths: list[str]) -> bool:
    """Whether the scope names one of the paths itself (not through a folder or a wildcard)."""
    return any(not e.endswith("/") and not is_glob(e) and e in paths for e in scope)


def by_words(
    meaning: RuleMeaning, embedder: Embedder, query: str, scores: dict[str, float]
) -> dict[str, float]:
    """The candidates' scores plus their word-by-word match as a z-score among them (unchanged
    when the model has no cheap word vectors)."""
    ids = list(scores)
    match = meaning.word_match(embedder, query, ids)
    if match is None or len(ids) < 2:
        return scores
    z = (match - float(match.mean())) / (float(match.std()) or 1.0)
    return {rid: scores[rid] + WORD_WEIGHT * float(z[n]) for n, rid in enumerate(ids)}


def fuse(
    lexical: dict,
    sims: Similarities,
    among: list[str] | None,
    keep: int,
    weight: float = BM25_WEIGHT,
    lift: dict[str, float] | None = None,
) -> dict[str, float]:
    """The `keep` best eligible rules by one score: cosine as a z-score among them, plus BM25 share
    (and any `lift` a rule is given).

    Cosines of one model sit in a narrow band that moves with the task, so the spread among the
    eligible rules, not the raw value, says which stand out; BM25 is scaled by its best. Only the
    best are kept: the rest are never sent or listed, and ordering thousands would cost more than
    choosing. `among` None means every rule is eligible.

    The BM25 share and the lifts are added as arrays, not rule by rule: a task's words reach
    thousands of rules of a large project, and adding them one numpy scalar at a time was a
    quarter of a selection at 10,000 rules. Each sum is the float32 one it was (the share is
    computed in double precision, rounded to float32, then added), so the scores are the same."""
    import numpy as np  # only a hybrid selection or a search by meaning gets here: spec never does

    mask = sims.mask(among)
    if not mask.any():
        return lexical
    best = max(lexical.values(), default=0.0) or 1.0
    share = np.zeros(len(sims.values), dtype=np.float64)
    rows, values = _rows_and_values(sims.row, lexical)
    share[rows] = weight * values / best
    return _fused_top(sims, mask, share, lift or {}, keep)


def _fused_top(
    sims: Similarities, mask: np.ndarray, share: np.ndarray, lift: dict[str, float], keep: int
) -> dict[str, float]:
    """`fuse` once the BM25 share of every row is known (0.0 where a rule shares no word: adding
    it changes nothing)."""
    import numpy as np

    eligible = sims.values[mask]
    fused = (sims.values - float(eligible.mean())) / (float(eligible.std()) or 1.0)
    fused += share.astype(fused.dtype)
    rows, values = _rows_and_values(sims.row, lift)
    fused[rows] += values.astype(fused.dtype)
    fused[~mask] = -np.inf
    top = np.argpartition(-fused, keep)[:keep] if keep < len(fused) else np.arange(len(fused))
    return {sims.ids[n]: float(fused[n]) for n in top if mask[n]}


def _rows_and_values(row: dict[str, int], by_rule: dict) -> tuple[np.ndarray, np.ndarray]:
    """The matrix rows of the rules in `by_rule` that have one, and their values (float64)."""
    import numpy as np

    found = np.fromiter(map(row.get, by_rule, repeat(-1)), dtype=np.int64, count=len(by_rule))
    values = np.fromiter(by_rule.values(), dtype=np.float64, count=len(by_rule))
    kept = found >= 0
    return found[kept], values[kept]


def _fill_share(
    scores: dict, forced: set[str], rules: dict[str, Rule], groups: dict, eligible: int, order
) -> list[str]:
    """The best scored rules until SEND_SHARE of send-all's tokens are spent (send-all estimated
    from the mean size of the candidates), at least MIN_SENT and at most MAX_SENT of them; the
    forced rules (always, include) come on top, as in `spec`."""
    cost = {rid: estimate_tokens(rules[rid].text) + 4 for rid in scores}
    budget = SEND_SHARE * (sum(cost.values()) / len(cost) if cost else 0.0) * eligible
    picked: list[str] = []
    for rid in sorted((rid for rid in scores if rid not in forced), key=order):
        if len(picked) >= MIN_SENT and (cost[rid] > budget or len(picked) >= MAX_SENT):
            break
        picked.append(rid)
        budget -= cost[rid]
    return [*forced, *picked]
