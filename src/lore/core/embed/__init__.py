"""Embedders behind one interface (`name`, `dim`, `embed(texts)`), chosen by `get_embedder`."""

from lore.core.embed.base import Embedder, normalize
from lore.core.embed.factory import get_embedder
from lore.core.embed.hashed import HashEmbedder

__all__ = ["Embedder", "HashEmbedder", "get_embedder", "normalize"]
