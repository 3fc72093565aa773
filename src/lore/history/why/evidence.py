"""What `why` reasons over: evidence items, the question they answer, and their providers.

An evidence provider is any function `(WhyQuery) -> list[Evidence]` that returns its items best
first. Layer 1 gives three (keywords, meaning, the graph around the named files); the decisions
of layer 2 plug in as one more provider, returning items with `layer="decision"` and their
validity interval, without `why` knowing how they were extracted. Providers' lists are fused by
reciprocal rank, so no provider's scores need to be comparable with another's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lore.core.dates import iso_utc
from lore.core.text import split_words, stem
from lore.core.vocabulary import STOPWORDS
from lore.history.why.reasons import Reason, locate, pick_reason


@dataclass(frozen=True)
class WhyQuery:
    """A question about one repository, as every provider receives it."""

    repo: Any  # lore.history.repos.Repo
    question: str
    files: tuple[int, ...] = ()  # file nodes the question names (or the blamed line's file)
    nodes: tuple[int, ...] = ()  # other nodes it names: commits, PRs, issues
    as_of: float | None = None
    mode: str = "question"  # question | path (a bare path: no words to embed) | line

    @property
    def asks_recency(self) -> bool:
        """The question asks for the latest change ("what changed most recently in X?"): then
        the walk's newest-first order inside a hop is the answer's order, not noise."""
        return bool(_RECENCY.search(self.question))


# words by which a question asks what happened last (the one case where recency is relevance)
_RECENCY = re.compile(
    r"\b(?:most recent(?:ly)?|latest|newest|last (?:change|changed|commit|edit|touched|modified)"
    r"|recent(?:ly)? changed|lately)\b",
    re.I,
)


@dataclass(frozen=True)
class Evidence:
    """One source that may explain the code: a commit, a PR or issue, a comment, a decision.

    `text` is the whole source (what a quote is checked against); `reason` is the sentence or two
    of it that give the reason, verbatim with their place in `text` (None: the source states no
    reason), and `quote` is that reason's text ("" when there is none). The title (a commit's
    subject) is never the quote. `unit` names what it is evidence of for counting (a comment
    counts as its thread): `commit:<sha>`, `pr:<n>`, `issue:<n>`, `decision:<id>`.
    """

    key: str  # unique per source, e.g. `commit:<sha>`, `issue_comment:<id>`
    kind: str  # commit | pr | issue | issue_comment | review_comment | decision
    unit: str
    title: str
    text: str
    at: float | None
    ref: str = ""  # sha, #number, comment id
    url: str | None = None
    author: str | None = None
    quote: str = ""
    reason: Reason | None = None
    layer: str = "git"  # git | github | decision
    valid_to: float | None = None  # decisions: when it stopped holding
    superseded_by: str | None = None  # decisions: the key of what replaced it
    via: tuple[str, ...] = ()  # which providers found it
    score: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "key": self.key,
            "kind": self.kind,
            "unit": self.unit,
            "title": self.title,
            "ref": self.ref,
            "at": iso_utc(self.at),
            "url": self.url,
            "author": self.author,
            "quote": self.quote,
            "reason": self.reason.to_dict() if self.reason else None,
            "layer": self.layer,
            "via": list(self.via),
            "score": round(self.score, 5),
        }
        if self.kind == "decision":
            out["valid_to"] = iso_utc(self.valid_to)
            out["superseded_by"] = self.superseded_by
        return out


Provider = Callable[[WhyQuery], list[Evidence]]

RRF_K = 60  # the usual constant: a rank-1 item of one list beats rank-30 items of two


def fuse(
    ranked: Mapping[str, Sequence[Evidence]], limit: int, weights: Mapping[str, float] | None = None
) -> list[Evidence]:
    """Reciprocal rank fusion of each provider's list: sum of w / (k + rank) per item, where w is
    the provider's weight in `weights` (1 when not named), or the `weight` an item carries in
    `extra` (a provider that knows how much its list says for this question).

    An item may carry a `tier` (in `extra`): consecutive items of one tier share the rank of
    the first of them. The graph gives its hop count as the tier, so every commit one hop from a
    file gets the same credit from the walk, and the order inside a hop (newest first, which is
    not relevance) is left to the other providers. Ties break by the item's key, so the order
    never depends on dict or set order.
    """
    score: dict[str, float] = {}
    first: dict[str, Evidence] = {}
    via: dict[str, list[str]] = {}
    for name, items in ranked.items():
        w = (weights or {}).get(name, 1.0)
        seen: set[str] = set()
        rank, tier = 0, object()
        for position, item in enumerate(items, start=1):
            if item.key in seen:
                continue
            seen.add(item.key)
            this = item.extra.get("tier", position)
            if this != tier:
                rank, tier = position, this
            weight = item.extra.get("weight", w)  # a provider may weigh its own list per question
            score[item.key] = score.get(item.key, 0.0) + weight / (RRF_K + rank)
            first.setdefault(item.key, item)
            via.setdefault(item.key, []).append(name)
    order = sorted(score, key=lambda k: (-score[k], k))[:limit]
    return [replace(first[k], score=score[k], via=tuple(via[k])) for k in order]


# -- quotes ------------------------------------------------------------------------------------


def terms(text: str) -> set[str]:
    """The question's words as rough stems, filler words dropped."""
    return {stem(w) for w in split_words(text) if w not in STOPWORDS and len(w) > 1}


NO_REASON = "no reason stated"  # what is shown for a source that gives none

# sources whose first line is a title (never quoted), and those that report a problem
_TITLED = frozenset({"commit", "pr", "issue"})
_PROBLEMS = frozenset({"issue"})


def with_reason(item: Evidence, question: str) -> Evidence:
    """The item with the reason its source gives for `question` as its quote (`reasons.py`).

    A quote a provider chose already (a decision's) is kept, located in the item's text.
    """
    if item.quote:
        return replace(item, reason=item.reason or locate(item.quote, item.text))
    found = pick_reason(item.text, question, titled=item.kind in _TITLED, problem=item.kind in _PROBLEMS)
    return replace(item, quote=found.text if found else "", reason=found)
