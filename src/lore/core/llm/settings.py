"""Which model to call, resolved from the environment, a `.env` file and `config.json`.

Users already have their providers' SDK variables set (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
`ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `OLLAMA_HOST`), so those work unchanged; `LORE_MODEL`
(`openai:gpt-4o-mini`, `ollama:llama3.1`, `anthropic:claude-3-5-haiku-latest`) chooses.

Precedence, strongest first: `LORE_*` variables (environment, then `.env` in the working
folder), the `model` section of `config.json`, the providers' own variables, built-in defaults.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lore.core.config import load_settings, warn
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.llm.tasks import TASKS, check_task, known_tasks_text, task_env_var


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


@dataclass(frozen=True)
class RuntimeOptions:
    """How calls are made: limits that apply to every provider."""

    timeout: float = 60.0
    max_retries: int = 4
    max_concurrency: int = 4
    retry_base: float = 0.5  # seconds; doubled each retry, with jitter
    retry_cap: float = 30.0
    # how a retry waits: a test passes one that records the wait and returns at once, so the
    # retry path runs end to end against a real server without the test taking that long
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False, repr=False)


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


# -- where values come from --------------------------------------------------------------------

TEXT_SETTINGS = (
    "provider",
    "model",
    "base_url",
    "api_key",
    "api_key_env",
    "api_key_file",
    "structured",
    "embed",
)


class MissingKey(NeedsModel):
    """A model is chosen but no key for it was found: says which model, and every place Lore
    looked (so `lore model show` can say what is missing instead of "none")."""

    def __init__(self, provider: str, model: str, where: str, places: list[str]):
        self.provider, self.model, self.where, self.places = provider, model, where, places
        super().__init__(
            f"{provider}:{model} (from {where}) needs an API key and none was found; Lore looked in"
            f" {'; '.join(places)}. Run `lore model setup` to store a reference to it"
        )


def read_key_file(path: Path) -> str | None:
    """The key in a key file (its first line), None when the file is missing or empty.

    A file others may read is refused, as ssh refuses such a private key: the key would be
    one `cat` away for every account on the machine."""
    try:
        info = path.stat()
    except OSError:
        return None
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InvalidInput(
            f"key file {path} can be read by other users (mode {stat.S_IMODE(info.st_mode):o}):"
            f" run `chmod 600 {path}` and try again"
        )
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read key file {path}: {exc.__class__.__name__}") from None
    return text.splitlines()[0].strip() if text else None


def model_config(section: Any = None) -> dict[str, Any]:
    """The `model` section of config.json, with wrongly typed values dropped (one warning each)
    so that a mistake such as `"model": 5` is reported instead of silently ignored."""
    if section is None:
        section = load_settings().raw.get("model")
        if section is None:
            return {}
    if not isinstance(section, dict):
        warn(f'config.json "model" must be an object of model settings, not {section!r}; using the defaults')
        return {}
    clean = dict(section)
    for key in TEXT_SETTINGS:
        if key in clean and not isinstance(clean[key], str):
            warn(f"config model.{key}={clean[key]!r} must be text; ignoring it")
            del clean[key]
    if "tasks" in clean:
        clean["tasks"] = _task_overrides(clean["tasks"])
    return clean


def _task_overrides(tasks: Any) -> dict[str, Any]:
    """`model.tasks`: task name -> "provider:model" or {"model": ..., other settings}."""
    if not isinstance(tasks, dict):
        warn(f"config model.tasks={tasks!r} must map task names to models; ignoring it")
        return {}
    out: dict[str, Any] = {}
    for name, override in tasks.items():
        if name not in TASKS:
            warn(
                f"config model.tasks.{name}: no feature asks for a task named {name!r}"
                f" (the tasks are {known_tasks_text()}); ignoring it"
            )
        elif isinstance(override, str) or (
            isinstance(override, dict) and isinstance(override.get("model"), str)
        ):
            out[name] = override
        else:
            warn(
                f'config model.tasks.{name}={override!r} must be "provider:model" or'
                ' {"model": "provider:model", ...}; ignoring it'
            )
    return out


def _dotenv(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a `.env` file (comments, `export` and quotes allowed)."""
    values: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return values
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values


class Sources:
    """Environment first, then `.env` in the working folder, then `config.json` `model`."""

    def __init__(self, config: dict[str, Any] | None = None, cwd: Path | None = None):
        self.dotenv_path = (cwd or Path.cwd()) / ".env"
        self.dotenv = _dotenv(self.dotenv_path)
        self.config = model_config(config)

    def env(self, name: str) -> tuple[str | None, str]:
        value = os.environ.get(name)
        if value:
            return value, f"env {name}"
        value = self.dotenv.get(name)
        if value:
            return value, f".env {name}"
        return None, ""

    def conf(self, key: str) -> Any:
        return self.config.get(key)


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


def _ollama_url(host: str) -> str:
    host = host.strip().rstrip("/")
    if "://" not in host:
        host = "http://" + host
        if host.count(":") == 1:
            host += ":11434"
    host = host.replace("//0.0.0.0", "//127.0.0.1")
    return host if host.endswith("/v1") else host + "/v1"


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
        base_url = _ollama_url(base_url)
    if not base_url and not provider.base_url:
        raise InvalidInput(
            f"{provider.name}:{model_name} needs the server's base URL: set LORE_BASE_URL or"
            " model.base_url in config.json (`lore model setup --base-url URL`)"
        )
    if not base_url:
        base_url, origin["base_url"] = provider.base_url, "default"
    api_key = pick("api_key", "LORE_API_KEY", ()) or _referenced_key(sources, config_applies, origin)
    if not api_key:
        api_key = pick("api_key", "LORE_API_KEY", provider.key_vars)
    _refuse_redirected_key(sources, base_url, api_key, origin)
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


def _referenced_key(sources: Sources, config_applies: bool, origin: dict[str, str]) -> str | None:
    """The key `lore model setup` points at: a variable named by `model.api_key_env`, else the
    file named by `model.api_key_file` (config.json holds the reference, never the key)."""
    if not config_applies:
        return None
    name = sources.conf("api_key_env")
    if name:
        value, src = sources.env(str(name))
        if value:
            origin["api_key"] = f"{src} (config model.api_key_env)"
            return value
    path = sources.conf("api_key_file")
    if path:
        value = read_key_file(Path(str(path)).expanduser())
        if value:
            origin["api_key"] = f"file {path} (config model.api_key_file)"
            return value
    return None


def key_places(sources: Sources, provider: Provider, config_applies: bool = True) -> list[str]:
    """Every place a key for `provider` is looked for, in order, each with what was found there."""
    places = ["env LORE_API_KEY (unset)"]
    if config_applies:
        name = sources.conf("api_key_env")
        if name:
            places.append(f"env {name} (named by config model.api_key_env; unset)")
        path = sources.conf("api_key_file")
        if path:
            shown = Path(str(path)).expanduser()
            state = "empty" if shown.exists() else "missing"
            places.append(f"file {shown} (named by config model.api_key_file; {state})")
        places.append("config model.api_key (unset)")
    places += [f"env {var} (unset)" for var in provider.key_vars]
    places.append(f".env in {sources.dotenv_path.parent} (none of these)")
    return places


def _refuse_redirected_key(
    sources: Sources, base_url: str, api_key: str | None, origin: dict[str, str]
) -> None:
    """A `.env` in the working folder (a cloned repository may ship one) may point requests at
    another server only with a key of its own: it must never send the user's key to a host it chose.
    """
    from_dotenv = origin.get("base_url", "").startswith(".env ")
    if from_dotenv and api_key and not origin.get("api_key", "").startswith(".env "):
        raise InvalidInput(
            f"refusing to send the API key from {origin.get('api_key')} to {base_url}: that base URL"
            f" comes from {sources.dotenv_path} ({origin['base_url'].removeprefix('.env ')}), and a"
            " .env may only redirect a key it sets itself; if you trust that server, set the URL in"
            " your environment or config.json, or put the key in the same .env"
        )


def runtime_options(config: dict[str, Any] | None = None) -> RuntimeOptions:
    """Timeouts, retries and concurrency: `LORE_LLM_<NAME>` variables, else config `model.*`.

    Bad values fall back to the defaults with a warning.
    """
    conf = model_config(config)
    defaults = RuntimeOptions()
    values: dict[str, Any] = {}
    for key, kind in (
        ("timeout", float),
        ("max_retries", int),
        ("max_concurrency", int),
        ("retry_base", float),
        ("retry_cap", float),
    ):
        raw: Any = os.environ.get(f"LORE_LLM_{key.upper()}")
        where = f"LORE_LLM_{key.upper()}"
        if raw is not None:
            with contextlib.suppress(ValueError):
                raw = float(raw)
        elif key in conf:
            raw, where = conf[key], f"config model.{key}"
        else:
            continue
        if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < 0:
            warn(f"{where}={raw!r} is invalid (a number >= 0); using the default")
            continue
        values[key] = kind(raw)
    if values.get("max_concurrency") == 0:
        values["max_concurrency"] = 1
    return RuntimeOptions(**{**defaults.__dict__, **values})


def model_configured(task: str | None = None) -> bool:
    """Whether a chat model is set up (for features that say plainly what needs one)."""
    try:
        resolve_model(task)
    except NeedsModel:
        return False
    return True


def env_value(name: str, cwd: Path | None = None) -> str | None:
    """A variable from the environment or the working folder's `.env`."""
    return Sources({}, cwd).env(name)[0]
