"""The one interface every embedder shares: a name, a dimension, and `embed(texts)`.

Subclasses only turn one batch of texts into vectors (`_embed_batch`); the base class does the
rest the same way for all of them: batching, the content-hash cache (for embedders whose
vectors cost something to make), L2 normalisation, and a progress bar on long runs. On a
read-only store the cache and the accounting are skipped (neither can be written), so searching
a read-only library still works with every embedder.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from lore.core.errors import StoreError
from lore.core.tokens import estimate_many

PROGRESS_FROM = 256  # texts to embed before a progress bar is worth showing


def normalize(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (all-zero rows, from empty text, stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


class Embedder(ABC):
    """Turns texts into unit-length float32 vectors of a fixed dimension.

    `name` identifies the model (and its version) so vectors from different models are never
    compared; the vector index stores it beside every vector.
    """

    name: str
    provider: str = "local"  # where the vectors are made, for accounting
    usage_model: str | None = None  # the model name prices are looked up by (default: name)
    batch_size: int = 64
    cacheable: bool = True  # False when computing is cheaper than a cache lookup; not counted

    @property
    def cache_name(self) -> str:
        """What cached vectors are filed under: the name, plus the server for remote models."""
        return self.name

    @property
    @abstractmethod
    def dim(self) -> int: ...

    @abstractmethod
    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        """Vectors for one batch, shape (len(texts), dim); need not be normalised."""

    def _embed_counted(self, texts: list[str]) -> tuple[np.ndarray, int | None]:
        """Vectors and the tokens the provider counted (None: estimate them)."""
        return self._embed_batch(texts), None

    def _prepare_query(self, text: str) -> str:
        """Some models want queries marked differently from documents; most do not."""
        return text

    def embed(
        self,
        texts: Sequence[str],
        *,
        no_cache: bool | None = None,
        progress: bool | None = None,
    ) -> np.ndarray:
        """Unit vectors for `texts`, shape (n, dim), float32, in the order given.

        `no_cache=None` follows the run (`lore.core.llm.cache.bypass_cache`, LORE_NO_CACHE).
        """
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows: list[np.ndarray | None] = [None] * len(texts)
        keep = self.cacheable and not _read_only_store()  # cache and count what is made
        if keep:
            # the model layer (httpx and the client) loads only for embedders that use the
            # cache: a local static model stays a table lookup, not a 0.3 s import
            from lore.core.llm import cache

            if no_cache is None:
                no_cache = cache.cache_bypassed()
        if keep and not no_cache:
            hits = cache.get_vectors(self.cache_name, texts)
            for i, vec in hits.items():
                rows[i] = vec
            if hits:
                self._count(len(hits), cached=True, tokens=0)
        todo = [i for i, row in enumerate(rows) if row is None]
        show = progress if progress is not None else (len(todo) >= PROGRESS_FROM and _tty())
        with ProgressBar(show and bool(todo), len(todo), f"embedding with {self.name}") as bar:
            for start in range(0, len(todo), self.batch_size):
                idx = todo[start : start + self.batch_size]
                batch = [texts[i] for i in idx]
                raw, tokens = self._embed_counted(batch)
                vectors = normalize(raw)
                if vectors.shape != (len(batch), self.dim):  # a remote dim is known by now
                    from lore.core.llm.errors import ModelCallError

                    raise ModelCallError(
                        f"{self.name} returned vectors of shape {vectors.shape},"
                        f" expected {(len(batch), self.dim)}"
                    )
                for i, vec in zip(idx, vectors, strict=True):
                    rows[i] = vec
                if keep:
                    cache.put_vectors(self.cache_name, batch, vectors)
                    self._count(
                        len(batch),
                        cached=False,
                        tokens=estimate_many(batch) if tokens is None else tokens,
                        estimated=tokens is None,
                    )
                bar.advance(len(batch))
        out = np.stack(rows).astype(np.float32, copy=False)  # type: ignore[arg-type]
        if out.shape[1] != self.dim:
            raise StoreError(
                f"cached vectors of {self.name} have {out.shape[1]} dimensions,"
                f" not {self.dim}; clear the embedding cache"
            )
        return out

    def embed_query(self, text: str, *, no_cache: bool | None = None) -> np.ndarray:
        """One unit vector for a search query, shape (dim,)."""
        return self.embed([self._prepare_query(text)], no_cache=no_cache, progress=False)[0]

    def _count(self, items: int, *, cached: bool, tokens: int, estimated: bool = False) -> None:
        from lore.core.llm import usage

        usage.record(
            kind="embed",
            provider=self.provider,
            model=self.usage_model or self.name,
            cached=cached,
            items=items,
            prompt_tokens=tokens,
            completion_tokens=0,
            estimated=estimated,
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _read_only_store() -> bool:
    from lore.core.store.open import open_store

    return open_store().read_only


def stderr_is_terminal() -> bool:
    """Whether a progress bar on stderr would be seen (not in CI logs, pipes or MCP servers)."""
    return _tty()


def _tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """A rich progress bar on stderr (stdout may be an MCP wire), or nothing when `show` is off."""

    def __init__(self, show: bool, total: int, label: str):
        self._bar = None
        if show:
            from rich.console import Console
            from rich.progress import Progress

            self._bar = Progress(console=Console(stderr=True), transient=True)
            self._task = self._bar.add_task(label, total=total)

    def __enter__(self) -> ProgressBar:
        if self._bar is not None:
            self._bar.start()
        return self

    def advance(self, count: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, count)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
