"""What a rule means, as a vector: the semantic half of `hybrid` selection.

A task such as "let the app resend a purchase" shares no word with the idempotency rule it
needs, so keyword ranking cannot find it. Each project index keeps one vector per active rule
(its title, text and triggers) from the local semantic embedder, and a task is embedded with
the words of the files it touches (`migrations/0003_vat.py` says "migration" even when the task
does not). Vectors are made lazily, in one batch, the first time a hybrid selection needs them,
so adding rules never waits on the model; removed rules leave a dead row that is compacted
away once dead rows are the majority.

The embedder is the local WordLlama model (numpy only, weights in its wheel), never the user's
configured one: a remote embedder would put a network call inside every `get_rules`.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lore.core.errors import NeedsModel
from lore.rules.models import Rule

if TYPE_CHECKING:  # the embedder package pulls in the model layer: loaded on first use
    from lore.core.embed.base import Embedder

_PATH_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])")
_CODE_SUFFIXES = {"py", "ts", "tsx", "js", "jsx", "go", "rs", "md", "json", "yaml", "yml", "toml", "src"}

_embedder_lock = threading.Lock()
_embedder: Embedder | None = None
_embedder_error: str | None = None


def semantic_embedder() -> Embedder:
    """The process's local semantic embedder; NeedsModel (said once, remembered) when absent."""
    global _embedder, _embedder_error
    with _embedder_lock:
        if _embedder is None and _embedder_error is None:
            from lore.core.embed.wordllama import WordLlamaEmbedder, wordllama_installed

            if not wordllama_installed():
                _embedder_error = "the semantic embedder (wordllama) is not installed"
            else:
                try:
                    embedder = WordLlamaEmbedder()
                    embedder.embed(["warm up"], no_cache=True, progress=False)
                    _embedder = embedder
                except NeedsModel as exc:
                    _embedder_error = str(exc)
        if _embedder is None:
            raise NeedsModel(_embedder_error or "no semantic embedder")
        return _embedder


def rule_text(rule: Rule) -> str:
    """What a rule's vector is made from."""
    triggers = f" ({', '.join(rule.triggers)})" if rule.triggers else ""
    return f"{rule.title}. {rule.text}{triggers}" if rule.title else f"{rule.text}{triggers}"


def path_words(paths: list[str]) -> str:
    """The words of file paths ('src/hooks/useCart.ts' -> 'hooks use cart'), file types dropped."""
    words: list[str] = []
    for path in paths:
        for word in _PATH_WORD.findall(path):
            lowered = word.lower()
            if lowered not in _CODE_SUFFIXES and lowered not in words:
                words.append(lowered)
    return " ".join(words)


def task_text(task: str, paths: list[str]) -> str:
    words = path_words(paths)
    return f"{task} ({words})" if words else task


@dataclass(frozen=True)
class Similarities:
    """The query's cosine to every row of the matrix; `ids[n]` is row n's rule (None: removed)."""

    values: np.ndarray
    ids: list[str | None]
    row: dict[str, int]
    alive: np.ndarray  # True for rows of active rules


class RuleMeaning:
    """One project's rule vectors, rows of one matrix; filled lazily, read under the index lock."""

    def __init__(self) -> None:
        self._pending: dict[str, str] = {}
        self._row: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)

    def put(self, rule: Rule) -> None:
        self.drop(rule.id)
        self._pending[rule.id] = rule_text(rule)

    def drop(self, rule_id: str) -> None:
        self._pending.pop(rule_id, None)
        row = self._row.pop(rule_id, None)
        if row is not None:
            self._ids[row] = None
            self._alive[row] = False

    def similarities(self, embedder: Embedder, query: str) -> Similarities:
        """Cosine of the query to every rule (embedding any rule added since the last call)."""
        self._catch_up(embedder)
        vector = embedder.embed([query], no_cache=True, progress=False)[0]
        values = self._matrix @ vector if len(self._matrix) else np.zeros(0, dtype=np.float32)
        return Similarities(values, self._ids, self._row, self._alive)

    def _catch_up(self, embedder: Embedder) -> None:
        if len(self._ids) > 2 * len(self._row) + 64:  # mostly removed rows: drop them
            self._compact()
        if not self._pending:
            return
        ids = list(self._pending)
        vectors = embedder.embed([self._pending[i] for i in ids])
        start = len(self._ids)
        self._matrix = vectors if start == 0 else np.vstack([self._matrix, vectors])
        self._ids.extend(ids)
        self._alive = np.concatenate([self._alive, np.ones(len(ids), dtype=bool)])
        for offset, rule_id in enumerate(ids):
            self._row[rule_id] = start + offset
        self._pending.clear()

    def _compact(self) -> None:
        keep = [n for n, rule_id in enumerate(self._ids) if rule_id is not None]
        self._matrix = self._matrix[keep]
        self._ids = [self._ids[n] for n in keep]
        self._row = {rule_id: n for n, rule_id in enumerate(self._ids) if rule_id is not None}
        self._alive = np.ones(len(self._ids), dtype=bool)
