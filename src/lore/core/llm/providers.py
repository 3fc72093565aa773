"""The providers Lore knows, and what a resolved model is.

Each provider's wire format, default URL, key variables and default models live here, with the
`provider:model` spelling and the one form of a base URL, so the settings, the setup and the
embedders read one table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from lore.core.errors import InvalidInput


@dataclass(frozen=True)
class Provider:
    """What Lore knows about one provider: its wire format and where its settings live."""

    name: str
    wire: str  # "openai" (chat/completions) or "anthropic" (messages)
    base_url: str
    key_vars: tuple[str, ...] = ()
    base_var: str | None = None
    chat_model: str | None = None  # used when only a key is set
    embed_model: str | None = None
    structured: str = "json_schema"
    needs_key: bool = True


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "openai",
            "openai",
            "https://api.openai.com/v1",
            ("OPENAI_API_KEY",),
            "OPENAI_BASE_URL",
            "gpt-4o-mini",
            "text-embedding-3-small",
        ),
        Provider(
            "anthropic",
            "anthropic",
            "https://api.anthropic.com",
            ("ANTHROPIC_API_KEY",),
            "ANTHROPIC_BASE_URL",
            "claude-3-5-haiku-latest",
            None,
            structured="tool",
        ),
        Provider(
            "gemini",
            "openai",
            "https://generativelanguage.googleapis.com/v1beta/openai",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            "GEMINI_BASE_URL",
            "gemini-2.0-flash",
            "text-embedding-004",
        ),
        Provider(
            "ollama",
            "openai",
            "http://127.0.0.1:11434/v1",
            (),
            "OLLAMA_HOST",
            None,
            "nomic-embed-text",
            needs_key=False,
        ),
        Provider(
            "openrouter",
            "openai",
            "https://openrouter.ai/api/v1",
            ("OPENROUTER_API_KEY",),
            "OPENROUTER_BASE_URL",
        ),
        Provider(
            "vllm", "openai", "http://127.0.0.1:8000/v1", ("VLLM_API_KEY",), "VLLM_BASE_URL", needs_key=False
        ),
        Provider("lmstudio", "openai", "http://127.0.0.1:1234/v1", (), "LMSTUDIO_BASE_URL", needs_key=False),
        # any other OpenAI-compatible server: its base URL must be given, and no provider's key
        # variable is ever read for it, so an OpenAI key cannot reach a server it was not meant for
        Provider("compatible", "openai", "", (), None, needs_key=False),
    )
}
AUTO_ORDER = ("openai", "anthropic", "gemini")  # a lone key picks its provider, in this order
STRUCTURED_MODES = ("json_schema", "json_object", "tool", "instructions")

SETUP_HINT = (
    "run `lore model setup`, or set LORE_MODEL (e.g. openai:gpt-4o-mini, anthropic:claude-3-5-haiku-latest,"
    " gemini:gemini-2.0-flash or ollama:llama3.1) and the provider's key"
    " (OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY; Ollama needs none),"
    ' or a "model" section in config.json; see docs/models.md'
)


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: everything a request needs, plus where each value came from."""

    provider: str
    wire: str
    model: str
    base_url: str
    api_key: str | None = field(repr=False)
    structured: str
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"

    def describe(self) -> dict[str, Any]:
        """For `lore model show`: the key masked, never printed."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "api_key": mask_key(self.api_key),
            "structured": self.structured,
            "sources": dict(self.sources),
        }


def normalize_base_url(url: str) -> str:
    """A base URL in one spelling (scheme and host lower case, default port and userinfo
    dropped, no trailing slash), so the cache tells servers apart but not ways of writing one."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text.rstrip("/").lower()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host += f":{port}"
    query = f"?{parts.query}" if parts.query else ""
    return f"{scheme}://{host}{parts.path.rstrip('/')}{query}"


def mask_key(key: str | None) -> str | None:
    if not key:
        return None
    if len(key) <= 12:
        return "*" * len(key)
    return f"{key[:4]}…{key[-4:]}"


def parse_model(text: str, default_provider: str = "openai") -> tuple[str, str]:
    """`provider:model` into its parts; a model name may itself hold colons (`ollama:llama3.1:8b`).

    A name with a colon must start with a known provider: a mistyped `foo:bar` is an error,
    never an OpenAI model named "foo:bar" sent to OpenAI with the user's key.
    """
    text = text.strip()
    if not text:
        raise InvalidInput("empty model name")
    head, sep, rest = text.partition(":")
    if not sep:
        return default_provider, text
    if head.lower() not in PROVIDERS:
        raise InvalidInput(
            f"unknown model provider {head!r} in {text!r}: use one of {', '.join(PROVIDERS)}"
            f" (e.g. openai:{text} for a model whose own name has a colon)"
        )
    if not rest.strip():
        raise InvalidInput(f"{text!r} names no model after the provider")
    return head.lower(), rest.strip()


def ollama_url(host: str) -> str:
    host = host.strip().rstrip("/")
    if "://" not in host:
        host = "http://" + host
        if host.count(":") == 1:
            host += ":11434"
    host = host.replace("//0.0.0.0", "//127.0.0.1")
    return host if host.endswith("/v1") else host + "/v1"
