"""Which model a call goes to: environment, `.env`, config.json, task overrides, SDK variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.core.config import update_settings
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.llm.providers import mask_key, parse_model
from lore.core.llm.runtime import runtime_options
from lore.core.llm.settings import resolve_model
from lore.core.llm.tasks import BOOKS_EXTRACT, TASKS, task_env_var

KEY = "sk-proj-abcdefghijklmnop1234"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in (
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "OLLAMA_HOST",
        "GOOGLE_API_KEY",
        "OPENROUTER_API_KEY",
        "LORE_BASE_URL",
        "LORE_API_KEY",
        "LORE_MODEL_BOOKS_EXTRACT",
        "GEMINI_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env from the developer's folder


def test_no_model_says_how_to_set_one_up() -> None:
    with pytest.raises(NeedsModel) as info:
        resolve_model()
    message = str(info.value)
    assert "LORE_MODEL" in message and "OPENAI_API_KEY" in message and "ollama" in message


def test_lore_model_chooses_and_sdk_variables_supply_the_rest(monkeypatch) -> None:
    monkeypatch.setenv("LORE_MODEL", "openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1/")
    spec = resolve_model()
    assert (spec.provider, spec.model, spec.wire) == ("openai", "gpt-4o-mini", "openai")
    assert spec.base_url == "http://127.0.0.1:9999/v1"
    assert spec.api_key == KEY
    assert spec.sources == {
        "model": "env LORE_MODEL",
        "base_url": "env OPENAI_BASE_URL",
        "api_key": "env OPENAI_API_KEY",
    }
    assert KEY not in str(spec.describe()) and KEY not in repr(spec)


def test_each_provider_reads_its_own_sdk_variables(monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-1")
    monkeypatch.setenv("GEMINI_API_KEY", "gk-1")
    monkeypatch.setenv("LORE_MODEL", "anthropic:claude-3-5-haiku-latest")
    spec = resolve_model()
    assert (spec.wire, spec.api_key, spec.structured) == ("anthropic", "ak-1", "tool")
    assert spec.base_url == "https://api.anthropic.com"
    monkeypatch.setenv("LORE_MODEL", "gemini:gemini-2.0-flash")
    spec = resolve_model()
    assert (spec.wire, spec.api_key) == ("openai", "gk-1")
    assert spec.base_url.endswith("/v1beta/openai")
    monkeypatch.setenv("LORE_MODEL", "ollama:llama3.1:8b")
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:11500")
    spec = resolve_model()
    assert (spec.model, spec.api_key) == ("llama3.1:8b", None)
    assert spec.base_url == "http://127.0.0.1:11500/v1"


def test_a_lone_key_picks_its_provider_and_a_default_model(monkeypatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "gk-1")
    assert resolve_model().label == "gemini:gemini-2.0-flash"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-1")
    assert resolve_model().provider == "anthropic"


def test_missing_key_is_named(monkeypatch) -> None:
    monkeypatch.setenv("LORE_MODEL", "openai:gpt-4o-mini")
    with pytest.raises(NeedsModel, match="OPENAI_API_KEY"):
        resolve_model()


def test_dotenv_in_the_working_folder(monkeypatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "# my keys\nexport LORE_MODEL=anthropic:claude-test\nANTHROPIC_API_KEY='ak-from-dotenv'\n"
        "ANTHROPIC_BASE_URL=http://127.0.0.1:8111 # local proxy\n",
        encoding="utf-8",
    )
    spec = resolve_model()
    assert spec.label == "anthropic:claude-test"
    assert spec.api_key == "ak-from-dotenv"
    assert spec.base_url == "http://127.0.0.1:8111"
    assert spec.sources["api_key"] == ".env ANTHROPIC_API_KEY"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8222")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-from-env")  # the environment wins
    spec = resolve_model()
    assert (spec.api_key, spec.base_url) == ("ak-from-env", "http://127.0.0.1:8222")


@pytest.mark.parametrize(
    "key_var, url_var, model",
    [
        ("OPENAI_API_KEY", "OPENAI_BASE_URL", "openai:gpt-4o-mini"),
        ("OPENAI_API_KEY", "LORE_BASE_URL", "openai:gpt-4o-mini"),
        ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "anthropic:claude-3-5-haiku-latest"),
        ("LORE_API_KEY", "OLLAMA_HOST", "ollama:llama3.1"),
    ],
)
def test_a_dotenv_cannot_send_the_users_key_elsewhere(
    monkeypatch, tmp_path: Path, key_var: str, url_var: str, model: str
) -> None:
    """A cloned repository's .env must not redirect the key from the user's own environment."""
    monkeypatch.setenv(key_var, KEY)
    monkeypatch.setenv("LORE_MODEL", model)
    (tmp_path / ".env").write_text(f"{url_var}=https://collector.example.net/v1\n", encoding="utf-8")
    with pytest.raises(InvalidInput) as info:
        resolve_model()
    message = str(info.value)
    assert "refusing to send the API key" in message and "\n" not in message
    assert f"env {key_var}" in message and str(tmp_path / ".env") in message
    assert KEY not in message


def test_a_dotenv_may_redirect_its_own_key_or_no_key(monkeypatch, tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("LORE_MODEL=ollama:llama3.1\nOLLAMA_HOST=127.0.0.1:11999\n", encoding="utf-8")
    assert resolve_model().base_url == "http://127.0.0.1:11999/v1"  # no key goes anywhere
    dotenv.write_text(
        "OPENAI_BASE_URL=http://127.0.0.1:9100/v1\nOPENAI_API_KEY=sk-its-own\n", encoding="utf-8"
    )
    monkeypatch.setenv("LORE_MODEL", "openai:gpt-4o-mini")
    spec = resolve_model()
    assert (spec.base_url, spec.api_key) == ("http://127.0.0.1:9100/v1", "sk-its-own")
    update_settings({"model": {"provider": "openai", "api_key": KEY}})  # the user's own key
    with pytest.raises(InvalidInput, match=r"config model\.api_key"):
        resolve_model()


def test_config_json_section_and_task_overrides(monkeypatch) -> None:
    update_settings(
        {
            "model": {
                "provider": "openai",
                "model": "gpt-4o",
                "api_key": "sk-config-1234567890",
                "base_url": "http://127.0.0.1:7000/v1",
                "tasks": {BOOKS_EXTRACT: {"model": "ollama:qwen2.5", "base_url": "http://127.0.0.1:7100/v1"}},
            }
        }
    )
    spec = resolve_model()
    assert (spec.label, spec.base_url, spec.api_key) == (
        "openai:gpt-4o",
        "http://127.0.0.1:7000/v1",
        "sk-config-1234567890",
    )
    extract = resolve_model(BOOKS_EXTRACT)
    assert (extract.label, extract.base_url, extract.api_key) == (
        "ollama:qwen2.5",
        "http://127.0.0.1:7100/v1",
        None,
    )  # the openai key is not sent to ollama
    update_settings(
        {
            "model": {
                "provider": "openai",
                "model": "gpt-4o",
                "api_key": "sk-1",
                "tasks": {BOOKS_EXTRACT: "openai:gpt-4o-mini"},
            }
        }
    )
    assert resolve_model(BOOKS_EXTRACT).label == "openai:gpt-4o-mini"
    monkeypatch.setenv("LORE_MODEL_BOOKS_EXTRACT", "openai:gpt-4.1-nano")  # dots as underscores
    extract = resolve_model(BOOKS_EXTRACT)
    assert (extract.label, extract.sources["model"]) == (
        "openai:gpt-4.1-nano",
        "env LORE_MODEL_BOOKS_EXTRACT",
    )
    monkeypatch.setenv("LORE_MODEL", "openai:o3-mini")
    assert resolve_model().label == "openai:o3-mini"


def test_task_names_are_one_list_and_unknown_ones_are_refused(capsys) -> None:
    assert BOOKS_EXTRACT in TASKS and task_env_var(BOOKS_EXTRACT) == "LORE_MODEL_BOOKS_EXTRACT"
    update_settings(
        {"model": {"model": "openai:gpt-4o", "api_key": "sk-1", "tasks": {"extract": "openai:gpt-4o-mini"}}}
    )
    assert resolve_model(BOOKS_EXTRACT).label == "openai:gpt-4o"  # `extract` is not a task
    err = capsys.readouterr().err
    assert "config model.tasks.extract: no feature asks for a task named 'extract'" in err
    assert BOOKS_EXTRACT in err
    with pytest.raises(InvalidInput, match="unknown model task 'check': the tasks are books"):
        resolve_model("check")


def test_parse_model_and_bad_names() -> None:
    assert parse_model("ollama:llama3.1:8b") == ("ollama", "llama3.1:8b")
    assert parse_model("gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert parse_model("openrouter:anthropic/claude-3.5-sonnet") == (
        "openrouter",
        "anthropic/claude-3.5-sonnet",
    )
    with pytest.raises(InvalidInput):
        parse_model("  ")
    update_settings({"model": {"provider": "nonesuch", "model": "x"}})
    with pytest.raises(InvalidInput, match="unknown model provider"):
        resolve_model()


def test_a_mistyped_provider_is_an_error_not_an_openai_model(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LORE_MODEL", "foo:bar")
    with pytest.raises(InvalidInput) as info:
        resolve_model()
    message = str(info.value)
    assert "LORE_MODEL" in message and "'foo'" in message
    assert "openai, anthropic, gemini, ollama" in message and "\n" not in message
    with pytest.raises(InvalidInput, match="unknown model provider 'opneai'"):
        parse_model("opneai:gpt-4o-mini")
    with pytest.raises(InvalidInput, match="names no model"):
        parse_model("openai:")
    monkeypatch.setenv("LORE_MODEL", "openai:foo:bar")  # the way to name a model with a colon
    assert resolve_model().model == "foo:bar"


def test_mask_key() -> None:
    assert mask_key(KEY) == "sk-p…1234"
    assert mask_key("short") == "*****"
    assert mask_key(None) is None


def test_runtime_options_from_config_and_env(monkeypatch, capsys) -> None:
    update_settings({"model": {"timeout": 5, "max_concurrency": 2, "max_retries": "many"}})
    options = runtime_options()
    assert (options.timeout, options.max_concurrency, options.max_retries) == (5.0, 2, 4)
    assert "max_retries" in capsys.readouterr().err
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "0.5")
    assert runtime_options().timeout == 0.5


def test_mistyped_config_values_warn_once_and_fall_back_to_defaults(monkeypatch, capsys) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    update_settings({"model": {"model": 5, "tasks": [1], "base_url": ["x"]}})
    spec = resolve_model()
    assert spec.label == "openai:gpt-4o-mini"  # the default, from the key that is set
    assert spec.base_url == "https://api.openai.com/v1"
    err = capsys.readouterr().err
    assert "config model.model=5 must be text" in err
    assert "config model.tasks=[1] must map task names to models" in err
    assert "config model.base_url=['x']" in err
    resolve_model()
    assert capsys.readouterr().err == ""  # once per process
    update_settings({"model": 5})
    assert resolve_model().label == "openai:gpt-4o-mini"
    assert 'config.json "model" must be an object' in capsys.readouterr().err
