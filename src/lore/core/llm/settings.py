"""Which model to call, resolved from the environment, a `.env` file and `config.json`.

Users already have their providers' SDK variables set (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
`ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `OLLAMA_HOST`), so those work unchanged; `LORE_MODEL`
(`openai:gpt-4o-mini`, `ollama:llama3.1`, `anthropic:claude-3-5-haiku-latest`) chooses.

Precedence, strongest first: `LORE_*` variables (environment, then `.env` in the working
folder), the `model` section of `config.json`, the providers' own variables, built-in defaults.
The providers are in `providers`, the sources in `sources`, the keys' rules in `keys`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lore.core.config import warn
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.llm.keys import MissingKey, key_places, referenced_key, refuse_redirected_key
from lore.core.llm.providers import (
    AUTO_ORDER,
    PROVIDERS,
    SETUP_HINT,
    STRUCTURED_MODES,
    ModelSpec,
    ollama_url,
    parse_model,
)
from lore.core.llm.sources import Sources
from lore.core.llm.tasks import check_task, task_env_var


def _parse_from(text: str, where: str, default_provider: str = "openai") -> tuple[str, str]:
    """`parse_model`, with an error that says where the bad name was set."""
    try:
        return parse_model(text, default_provider)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None


def _choice(sources: Sources, task: str | None) -> tuple[str, str, dict[str, Any], str]:
    """(provider, model, overrides, where it came from) for a task, or NeedsModel."""
    if task:
        value, where = sources.env(task_env_var(check_task(task)))
        if value:
            return (*_parse_from(value, where), {}, where)
        tasks = sources.conf("tasks")
        override = tasks.get(task) if isinstance(tasks, dict) else None
        where = f"config model.tasks.{task}"
        if isinstance(override, str) and override.strip():
            return (*_parse_from(override, where), {}, where)
        if isinstance(override, dict) and override.get("model"):
            provider, model = _parse_from(str(override["model"]), where, override.get("provider", "openai"))
            return provider, model, override, where
    value, where = sources.env("LORE_MODEL")
    if value:
        return (*_parse_from(value, where), {}, where)
    conf_model = sources.conf("model")
    if isinstance(conf_model, str) and conf_model.strip():
        provider, model = _parse_from(
            conf_model, "config model.model", str(sources.conf("provider") or "openai")
        )
        return provider, model, {}, "config model.model"
    conf_provider = sources.conf("provider")
    if isinstance(conf_provider, str) and conf_provider.lower() in PROVIDERS:
        default = PROVIDERS[conf_provider.lower()].chat_model
        if default:
            return conf_provider.lower(), default, {}, "config model.provider (default model)"
    for name in AUTO_ORDER:
        known = PROVIDERS[name]
        for var in known.key_vars:
            if sources.env(var)[0] and known.chat_model:
                return name, known.chat_model, {}, f"{var} is set (default model)"
    raise NeedsModel(f"no language model is configured: {SETUP_HINT}")


def resolve_model(
    task: str | None = None,
    *,
    config: dict[str, Any] | None = None,
    cwd: Path | None = None,
    model: str | None = None,
) -> ModelSpec:
    """The model for `task` (one of `tasks.TASKS`): its override in config `model.tasks` or
    `LORE_MODEL_<TASK>`, else the default model."""
    sources = Sources(config, cwd)
    if model:
        provider_name, model_name = _parse_from(model, "model")
        overrides: dict[str, Any] = {}
        where = "argument"
    else:
        provider_name, model_name, overrides, where = _choice(sources, task)
    return _spec(sources, provider_name, model_name, overrides, where)


def _spec(
    sources: Sources, provider_name: str, model_name: str, overrides: dict[str, Any], where: str
) -> ModelSpec:
    provider = PROVIDERS.get(provider_name)
    if provider is None:
        raise InvalidInput(f"unknown model provider {provider_name!r}: use one of {', '.join(PROVIDERS)}")
    origin = {"model": where}
    conf_provider = sources.conf("provider")
    conf_model = sources.conf("model")
    if isinstance(conf_model, str) and ":" in conf_model:
        conf_provider = conf_model.partition(":")[0]  # a bad name fails where it is chosen
    config_applies = not conf_provider or str(conf_provider).lower() == provider.name

    def pick(name: str, lore_var: str, provider_vars: tuple[str, ...]) -> str | None:
        if overrides.get(name):
            origin[name] = "config model.tasks"
            return str(overrides[name])
        value, src = sources.env(lore_var)
        if value:
            origin[name] = src
            return value
        if config_applies and sources.conf(name):
            origin[name] = f"config model.{name}"
            return str(sources.conf(name))
        for var in provider_vars:
            value, src = sources.env(var)
            if value:
                origin[name] = src
                return value
        return None

    base_vars = (provider.base_var,) if provider.base_var else ()
    base_url = pick("base_url", "LORE_BASE_URL", base_vars)
    if base_url and provider.name == "ollama" and origin.get("base_url", "").endswith("OLLAMA_HOST"):
        base_url = ollama_url(base_url)
    if not base_url and not provider.base_url:
        raise InvalidInput(
            f"{provider.name}:{model_name} needs the server's base URL: set LORE_BASE_URL or"
            " model.base_url in config.json (`lore model setup --base-url URL`)"
        )
    if not base_url:
        base_url, origin["base_url"] = provider.base_url, "default"
    api_key = pick("api_key", "LORE_API_KEY", ()) or referenced_key(sources, config_applies, origin)
    if not api_key:
        api_key = pick("api_key", "LORE_API_KEY", provider.key_vars)
    refuse_redirected_key(sources, base_url, api_key, origin)
    if provider.needs_key and not api_key:
        places = key_places(sources, provider, config_applies)
        raise MissingKey(provider.name, model_name, where, places)
    structured = str(overrides.get("structured") or sources.conf("structured") or provider.structured)
    if structured not in STRUCTURED_MODES:
        warn(f"config model.structured={structured!r} is not one of {STRUCTURED_MODES}; using default")
        structured = provider.structured
    if structured == "tool" and provider.wire != "anthropic":
        structured = "json_schema"
    return ModelSpec(
        provider=provider.name,
        wire=provider.wire,
        model=model_name,
        base_url=base_url.rstrip("/"),
        api_key=api_key,
        structured=structured,
        sources=origin,
    )


def model_configured(task: str | None = None) -> bool:
    """Whether a chat model is set up (for features that say plainly what needs one)."""
    try:
        resolve_model(task)
    except NeedsModel:
        return False
    return True
