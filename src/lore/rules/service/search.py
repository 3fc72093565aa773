"""Searching a project's active rules by words, or by meaning when no word matches."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from lore.core.errors import InvalidInput
from lore.rules.models import Project, Rule
from lore.rules.serve.hybrid import fuse
from lore.rules.serve.index import project_index
from lore.rules.service.choosing import _mode_embedder, selection_mode, tokenizer
from lore.rules.store.rules import rules_store


@dataclass
class SearchHit:
    rule: Rule
    score: float
    by_meaning: bool = False  # no word of the query is in the rule: it is only near in meaning

    def line(self) -> str:
        text = " ".join(self.rule.text.split())
        return f"- {self.rule.id} [{self.rule.scope_text}] {self.rule.label}: {text}"


NEAREST_BY_MEANING = 3  # offered when no rule shares a word with the query


def search_rules(project: Project, query: str, limit: int = 10, mode: str | None = None) -> list[SearchHit]:
    """Active rules ranked against a query: the rules sharing its words (BM25, scope words
    included), reordered in `hybrid` mode by meaning and words fused as in selection; when no
    rule shares a word, `hybrid` offers the few nearest by meaning, marked as such (a static
    model's cosine cannot tell "related" from "unrelated" well enough to promise a match)."""
    if not query.strip():
        raise InvalidInput("search needs a query (a few words about what you are looking for)")
    tok = tokenizer()
    index = project_index(rules_store(), project.id, tok)
    embedder, _ = _mode_embedder(mode or selection_mode())
    with index.lock:
        scores: dict[str, float] = {str(k): v for k, v in index.search.scores(tok.tokens(query)).items()}
        by_meaning = False
        if embedder is not None and index.rules:
            sims = index.meaning.similarities(embedder, query)
            if scores:
                fused = fuse(scores, sims, None, len(index.rules), weight=1.0)
                scores = {rid: fused[rid] for rid in scores}
            else:
                scores, by_meaning = fuse({}, sims, None, NEAREST_BY_MEANING), True
        ranked = heapq.nsmallest(
            max(1, limit), scores.items(), key=lambda kv: (-kv[1], index.rules[kv[0]].created_at)
        )
        return [SearchHit(index.rules[rid], score, by_meaning) for rid, score in ranked]
