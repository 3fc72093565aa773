"""Embeddings from a server: Ollama (`nomic-embed-text` by default) or any OpenAI-compatible API.

The dimension is learned from the first vector (or a cached one, so a re-run needs no call).
nomic-embed-text is trained with task prefixes, so documents and queries get theirs.
"""

from __future__ import annotations

import numpy as np

from lore.core.embed.base import Embedder
from lore.core.llm import cache
from lore.core.llm.client import ModelClient
from lore.core.llm.errors import ModelCallError
from lore.core.llm.providers import ModelSpec, normalize_base_url
from lore.core.llm.settings import resolve_model

_NOMIC_DOC, _NOMIC_QUERY = "search_document: ", "search_query: "


class RemoteEmbedder(Embedder):
    """Vectors from an OpenAI-compatible `/embeddings` endpoint (Ollama serves one too)."""

    batch_size = 64

    def __init__(self, spec: ModelSpec, client: ModelClient | None = None):
        self.spec = spec
        self.name = spec.label
        self.provider = spec.provider
        self.usage_model = spec.model
        self._client = client or ModelClient(model=spec.label)
        self._dim: int | None = None
        self._prefixed = "nomic-embed" in spec.model

    @property
    def cache_name(self) -> str:
        """Two servers may serve different models under one name: their vectors are cached apart
        (the index still files them under the model's name, which is what they are comparable by).
        """
        return f"{self.name}@{normalize_base_url(self.spec.base_url)}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            # a probe is a model call like any other: made through embed, so it is counted
            self._dim = cache.known_dim(self.cache_name) or int(
                self.embed(["dimension"], progress=False).shape[1]
            )
        return self._dim

    def _prepare_query(self, text: str) -> str:
        return _NOMIC_QUERY + text if self._prefixed else text

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return self._embed_counted(texts)[0]

    def _embed_counted(self, texts: list[str]) -> tuple[np.ndarray, int | None]:
        if self._prefixed:
            texts = [t if t.startswith((_NOMIC_DOC, _NOMIC_QUERY)) else _NOMIC_DOC + t for t in texts]
        vectors, tokens = self._client.embed_vectors_sync(self.spec, texts)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ModelCallError(f"{self.name} returned vectors of shape {vectors.shape}")
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        return vectors, tokens


def remote_embedder(provider: str, model: str) -> RemoteEmbedder:
    """An embedder for `provider:model`, configured like chat (keys, base URLs, `.env`)."""
    return RemoteEmbedder(resolve_model(model=f"{provider}:{model}"))
