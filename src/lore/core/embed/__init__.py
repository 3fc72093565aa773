"""Embedders behind one interface (`name`, `dim`, `embed(texts)`), chosen by `get_embedder`.

The factory reads model settings, which load the model layer (the HTTP client): it is imported
when an embedder is chosen, so code that only needs a local model's class stays light.
"""

from lore.core.embed.base import Embedder, normalize
from lore.core.embed.hashed import HashEmbedder


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder named (or configured); see `lore.core.embed.factory.get_embedder`."""
    from lore.core.embed.factory import get_embedder as choose

    return choose(name)


__all__ = ["Embedder", "HashEmbedder", "get_embedder", "normalize"]
