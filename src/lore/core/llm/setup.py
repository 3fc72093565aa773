"""`lore model setup`: a provider and model chosen, a reference to the key stored, one test call.

config.json never holds the key itself, only where to find it: the name of an environment
variable (`model.api_key_env`) or the path of a file only the user can read
(`model.api_key_file`, mode 0600). A key typed at the prompt goes into such a file under
`$LORE_HOME/keys/`. The choice is tested with one tiny request to the exact server, model and
key it names, before anything else reads the settings, so what the test says is what later
calls will meet.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lore.core.config import config_path, read_raw, update_settings
from lore.core.errors import InvalidInput, LoreError
from lore.core.files import write_atomic
from lore.core.home import lore_home
from lore.core.llm import usage
from lore.core.llm.keys import read_key_file
from lore.core.llm.providers import PROVIDERS, ModelSpec, ollama_url
from lore.core.llm.runtime import runtime_options
from lore.core.llm.typical import TYPICAL_USE

PING = "Reply with the single word: pong"

# what the setup offers, in this order; any other provider Lore knows is accepted by name
CHOICES: dict[str, str] = {
    "openai": "OpenAI",
    "anthropic": "Anthropic (Claude)",
    "gemini": "Google Gemini",
    "ollama": "Ollama, on this machine or another (no key)",
    "compatible": "another OpenAI-compatible server (vLLM, llama.cpp, a proxy...)",
}
DEFAULT_MODELS = {"ollama": "llama3.1"}  # providers whose entry names no chat model
ALIASES = {"openai-compatible": "compatible", "claude": "anthropic", "google": "gemini"}


@dataclass(frozen=True)
class KeyRef:
    """Where the key is: `env` (a variable's name), `file` (a path) or `none` (no key needed)."""

    kind: str
    name: str = ""

    def describe(self) -> str:
        if self.kind == "env":
            return f"${self.name} (config.json holds only the variable's name)"
        if self.kind == "file":
            return f"{self.name} (readable by you only; config.json holds only its path)"
        return "none (this server needs no key)"


@dataclass(frozen=True)
class Choice:
    """What the user chose: provider, model, base URL (None: the provider's default) and key."""

    provider: str
    model: str
    base_url: str | None
    key: KeyRef

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"


def provider_name(text: str) -> str:
    """A provider as typed (`OpenAI`, `openai-compatible`, `claude`) to Lore's name for it."""
    name = ALIASES.get(text.strip().lower(), text.strip().lower())
    if name not in PROVIDERS:
        others = ", ".join(p for p in PROVIDERS if p not in CHOICES)
        raise InvalidInput(f"unknown provider {text!r}: use one of {', '.join(CHOICES)} (or {others})")
    return name


def default_model(provider: str) -> str | None:
    return PROVIDERS[provider].chat_model or DEFAULT_MODELS.get(provider)


def needs_key(provider: str) -> bool:
    return PROVIDERS[provider].needs_key


def key_vars(provider: str) -> tuple[str, ...]:
    """The variables the provider's own SDK reads its key from (what setup offers to reference)."""
    return PROVIDERS[provider].key_vars


def key_in_environment(provider: str) -> str | None:
    """The first of the provider's key variables that is set here, if any."""
    return next((var for var in key_vars(provider) if os.environ.get(var)), None)


def key_file_path(provider: str) -> Path:
    return lore_home() / "keys" / f"{provider}.key"


def store_key(provider: str, key: str) -> Path:
    """Write a typed key to its own file, mode 0600 from the moment it exists, in a 0700 folder."""
    key = key.strip()
    if not key or any(ch.isspace() for ch in key):
        raise InvalidInput("an API key is one word with no spaces; nothing was saved")
    path = key_file_path(provider)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    write_atomic(path, key + "\n", private=True)
    return path


def check_base_url(provider: str, base_url: str | None) -> str | None:
    """The base URL as it will be stored: http(s) only; Ollama's host written as its API root."""
    if base_url is None or not base_url.strip():
        if not PROVIDERS[provider].base_url:
            raise InvalidInput(f"a {provider} server needs its base URL: pass --base-url URL")
        return None
    url = base_url.strip()
    if provider == "ollama":
        url = ollama_url(url)
    if not url.lower().startswith(("http://", "https://")):
        raise InvalidInput(f"base URL {base_url!r} must start with http:// or https://")
    return url.rstrip("/")


def resolve_key(choice: Choice) -> str | None:
    """The key the reference points at now (None when it points nowhere yet)."""
    if choice.key.kind == "env":
        return os.environ.get(choice.key.name) or None
    if choice.key.kind == "file":
        return read_key_file(Path(choice.key.name))
    return None


def base_url_of(choice: Choice) -> tuple[str, str]:
    """The base URL calls will go to, and where it comes from: the choice, else the provider's
    own variable (`OPENAI_BASE_URL`, `OLLAMA_HOST`...) as later calls will read it, else the
    provider's default."""
    provider = PROVIDERS[choice.provider]
    if choice.base_url:
        return choice.base_url, "config model.base_url"
    given = os.environ.get(provider.base_var) if provider.base_var else None
    if given:
        url = ollama_url(given) if provider.name == "ollama" else given
        return url.rstrip("/"), f"env {provider.base_var}"
    return provider.base_url, "the provider's default"


def spec_for(choice: Choice, key: str | None) -> ModelSpec:
    """The request settings the choice stands for, built directly so the test call goes exactly
    where the saved settings will send later calls."""
    provider = PROVIDERS[choice.provider]
    return ModelSpec(
        provider=provider.name,
        wire=provider.wire,
        model=choice.model,
        base_url=base_url_of(choice)[0].rstrip("/"),
        api_key=key,
        structured=provider.structured,
        sources={"model": "lore model setup"},
    )


def save(choice: Choice) -> dict[str, Any]:
    """Write the choice into config.json's `model` section, keeping its other settings (prices,
    tasks, limits). A key written into config.json by hand is removed: its reference replaces it."""
    section = read_raw().get("model")
    model = dict(section) if isinstance(section, dict) else {}
    removed_plain = "api_key" in model
    for stale in ("api_key", "api_key_env", "api_key_file", "base_url"):
        model.pop(stale, None)
    model["provider"] = choice.provider
    model["model"] = choice.label  # with its provider: `ollama:llama3.1:8b` stays one name
    if choice.base_url:
        model["base_url"] = choice.base_url
    if choice.key.kind == "env":
        model["api_key_env"] = choice.key.name
    elif choice.key.kind == "file":
        model["api_key_file"] = choice.key.name
    update_settings({"model": model})
    return {"config": str(config_path()), "removed_plain_key": removed_plain}


def overridden_by() -> list[str]:
    """Variables set here that take precedence over config.json, so the saved choice would not
    be the one used while they stay set."""
    return [var for var in ("LORE_MODEL", "LORE_BASE_URL", "LORE_API_KEY") if os.environ.get(var)]


def test_call(choice: Choice) -> dict[str, Any]:
    """One tiny request (never from the cache, never retried): ok with latency and the model that
    answered, or the provider's error in one line."""
    from lore.core.llm.client import ModelClient

    try:
        key = resolve_key(choice)
    except LoreError as exc:
        return {"ok": False, "error": str(exc)}
    if needs_key(choice.provider) and not key:
        return {"ok": False, "error": f"no key: {choice.key.describe()} is empty or not set"}
    options = replace(runtime_options(), max_retries=0)
    client = ModelClient(spec=spec_for(choice, key), no_cache=True, options=options)
    started = time.perf_counter()
    try:
        with usage.model_run("model setup"):
            reply = client.complete_sync(PING)
    except LoreError as exc:
        return {"ok": False, "error": " ".join(str(exc).split())}
    return {
        "ok": True,
        "latency_ms": round((time.perf_counter() - started) * 1000, 1),
        "reply_model": reply.reply_model or choice.model,
        "reply": reply.text.strip()[:80],
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
    }


def typical_costs(choice: Choice) -> list[dict[str, Any]]:
    """What a typical call of each model-using command sends, and its price when config.json's
    `model.prices` names this model (Lore ships no price list: prices change)."""
    table = usage.prices()
    price = table.get(choice.label) or table.get(choice.model)
    rows = []
    for use in TYPICAL_USE:
        row = use.as_dict()
        row["cost"] = (
            None
            if price is None
            else round((use.prompt_tokens * price[0] + use.completion_tokens * price[1]) / 1_000_000, 4)
        )
        rows.append(row)
    return rows
