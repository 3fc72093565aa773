"""The local semantic models a hot path may run (rules selection, the gate), made by short name.

Kept apart from `factory` on purpose: the factory knows every embedder, remote ones included, so
it imports the model layer (settings, the HTTP client, httpx), about a tenth of a second that a
`lore review resolve` would pay for nothing. These two models never reach a server, so building
them needs only their own modules; the factory builds them through the same functions.
"""

from __future__ import annotations

from lore.core.embed.base import Embedder
from lore.core.embed.onnx_minilm import INSTALL_HINT as ONNX_HINT
from lore.core.embed.onnx_minilm import OnnxMiniLMEmbedder, missing_parts
from lore.core.embed.wordllama import INSTALL_HINT as WORDLLAMA_HINT
from lore.core.embed.wordllama import WordLlamaEmbedder, wordllama_installed
from lore.core.errors import InvalidInput, NeedsModel

# the local models a domain may run inside a hot path (rules selection, the gate): never a server
LOCAL_SEMANTIC = {"wordllama": "wordllama", "minilm-onnx": "minilm-onnx", "onnx": "minilm-onnx"}
LOCAL_SEMANTIC |= {WordLlamaEmbedder.name: "wordllama", OnnxMiniLMEmbedder.name: "minilm-onnx"}


def wordllama_embedder() -> WordLlamaEmbedder:
    """WordLlama, or NeedsModel with the fix when its package is missing."""
    if not wordllama_installed():
        raise NeedsModel(f"the WordLlama embedder (the default) is not installed: {WORDLLAMA_HINT}")
    return WordLlamaEmbedder()


def onnx_minilm_embedder() -> OnnxMiniLMEmbedder:
    """The int8 ONNX MiniLM, or NeedsModel naming what its install lacks."""
    missing = missing_parts()
    if missing:
        raise NeedsModel(f"the ONNX MiniLM embedder lacks {', '.join(missing)}: {ONNX_HINT}")
    return OnnxMiniLMEmbedder()


def local_semantic_embedder(name: str) -> Embedder:
    """One of the local semantic models by its short name (`wordllama`, `minilm-onnx`), for code
    that must not reach a server whatever `LORE_EMBED` says; NeedsModel when it is not installed,
    InvalidInput for a name that is not a local semantic model."""
    key = LOCAL_SEMANTIC.get(name.strip().lower())
    if key is None:
        choices = ", ".join(sorted(set(LOCAL_SEMANTIC.values())))
        raise InvalidInput(f"unknown local semantic model {name!r}: use {choices}")
    return wordllama_embedder() if key == "wordllama" else onnx_minilm_embedder()
