"""`lore model setup` and `lore model show` without a key, against a real model server on
127.0.0.1: the test call's success, a 401 and a server that never answers; prompts fed through
the CLI runner and through a real pseudo-terminal; config.json holding only a reference."""

from __future__ import annotations

import json
import os
import pty
import secrets
import select
import signal
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.core.config import config_path, update_settings
from support.fake_llm import API_KEY, FakeLLM

runner = CliRunner()
LORE = Path(sys.executable).with_name("lore")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    """The model server, with nothing in the environment pointing at it: setup has to."""
    for var in ("OPENAI_BASE_URL", "LORE_BASE_URL", "LORE_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "10")
    with FakeLLM(hang_seconds=60) as fake:
        fake.reply("pong", "pong")
        yield fake


def config() -> dict:
    return json.loads(config_path().read_text(encoding="utf-8"))


def setup(*args: str, input: str | None = None):
    return runner.invoke(app, ["model", "setup", *args], input=input)


def test_flags_save_a_variable_name_and_the_test_call_reaches_the_server(
    server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_MODEL_KEY", API_KEY)
    result = setup(
        "--provider", "compatible", "--base-url", server.url, "--model", "fake-model",
        "--key-env", "MY_MODEL_KEY", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["test"]["ok"] and data["test"]["reply_model"] == "fake-model"
    assert data["key"] == {"kind": "env", "name": "MY_MODEL_KEY"}
    assert server.count("chat") == 1
    assert server.requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    saved = config()["model"]
    assert saved == {
        "provider": "compatible",
        "model": "compatible:fake-model",
        "base_url": server.url,
        "api_key_env": "MY_MODEL_KEY",
    }
    assert API_KEY not in config_path().read_text() and API_KEY not in result.output
    # what was saved is what later commands use
    shown = json.loads(runner.invoke(app, ["model", "show", "--json"]).stdout)
    assert shown["chat"]["model"] == "fake-model" and shown["chat"]["base_url"] == server.url
    assert shown["chat"]["sources"]["api_key"] == "env MY_MODEL_KEY (config model.api_key_env)"
    tested = runner.invoke(app, ["model", "test", "--json"])
    assert tested.exit_code == 0, tested.output
    assert server.count("chat") == 2


def test_a_key_typed_at_the_prompt_goes_to_a_private_file_never_to_config(server: FakeLLM) -> None:
    key = "sk-typed-" + secrets.token_hex(12)
    server.require_key = key
    answers = f"compatible\n{server.url}\nfake-model\n{key}\n"
    result = setup(input=answers)
    assert result.exit_code == 0, result.output
    assert "test call ok" in result.stdout
    assert key not in result.output  # the hidden prompt does not echo it
    saved = config()["model"]
    key_file = Path(saved["api_key_file"])
    assert key_file.read_text().strip() == key
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert key not in config_path().read_text()
    assert "api_key" not in saved and "api_key_env" not in saved
    assert server.requests[-1].headers["authorization"] == f"Bearer {key}"
    again = runner.invoke(app, ["model", "test", "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["reply"] == "pong"


def test_a_key_in_the_environment_is_offered_and_only_its_name_saved(
    server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    result = setup(input="openai\nfake-model\ny\n")
    assert result.exit_code == 0, result.output
    assert "Use the key in $OPENAI_API_KEY" in result.stdout
    assert f"base URL  {server.url} (env OPENAI_BASE_URL)" in result.stdout
    assert config()["model"]["api_key_env"] == "OPENAI_API_KEY"
    assert API_KEY not in config_path().read_text() and API_KEY not in result.output


def test_a_wrong_key_is_the_providers_401_in_one_line(server: FakeLLM, monkeypatch) -> None:
    wrong = "sk-wrong-" + secrets.token_hex(8)
    monkeypatch.setenv("WRONG_KEY", wrong)
    result = setup(
        "--provider", "compatible", "--base-url", server.url, "--model", "m", "--key-env", "WRONG_KEY"
    )
    assert result.exit_code == 1
    failed = [line for line in result.stdout.splitlines() if line.startswith("test call failed")]
    assert len(failed) == 1
    assert "answered 401: invalid API key" in failed[0] and "check the API key" in failed[0]
    assert wrong not in result.output
    assert server.count("chat") == 1  # a 401 is final: never retried
    data = json.loads(
        setup(
            "--provider",
            "compatible",
            "--base-url",
            server.url,
            "--model",
            "m",
            "--key-env",
            "WRONG_KEY",
            "--json",
        ).stdout
    )
    assert data["test"]["ok"] is False and "401" in data["test"]["error"]


def test_a_server_that_never_answers_is_reported_after_the_timeout_once(
    server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "1")
    monkeypatch.setenv("SLOW_KEY", API_KEY)
    server.fail("hang", times=5)
    result = setup(
        "--provider",
        "compatible",
        "--base-url",
        server.url,
        "--model",
        "m",
        "--key-env",
        "SLOW_KEY",
        "--json",
    )
    assert result.exit_code == 1
    test = json.loads(result.stdout)["test"]
    assert test["ok"] is False and "did not answer within 1s" in test["error"]
    assert server.count("chat") == 1  # the test call is not retried
    assert config()["model"]["api_key_env"] == "SLOW_KEY"  # saved all the same, and said so


def test_without_a_key_non_interactive_setup_says_how_to_give_one(server: FakeLLM) -> None:
    result = setup("--provider", "openai", "--json")
    assert result.exit_code == 2
    assert "OPENAI_API_KEY is not set here" in result.stderr and "--key-env" in result.stderr
    assert not config_path().exists()
    unset = setup("--provider", "openai", "--key-env", "NOT_SET_ANYWHERE")
    assert unset.exit_code == 2 and "$NOT_SET_ANYWHERE is not set here" in unset.stderr
    saved = setup("--provider", "openai", "--key-env", "NOT_SET_ANYWHERE", "--no-test")
    assert saved.exit_code == 0, saved.output
    assert "test call skipped" in saved.stdout
    assert config()["model"]["api_key_env"] == "NOT_SET_ANYWHERE"
    no_url = setup("--provider", "compatible", "--model", "m")
    assert no_url.exit_code == 2 and "--base-url" in no_url.stderr


def test_a_key_file_others_can_read_is_refused(server: FakeLLM, tmp_path: Path) -> None:
    key_file = tmp_path / "model.key"
    key_file.write_text(API_KEY + "\n")
    key_file.chmod(0o644)
    args = ["--provider", "compatible", "--base-url", server.url, "--model", "m", "--key-file", str(key_file)]
    refused = setup(*args)
    assert refused.exit_code == 2 and f"chmod 600 {key_file}" in refused.stderr
    assert server.count() == 0
    key_file.chmod(0o600)
    accepted = setup(*args)
    assert accepted.exit_code == 0, accepted.output
    assert config()["model"]["api_key_file"] == str(key_file)
    # a file made readable later is refused where the key is read, with the same fix
    key_file.chmod(0o640)
    later = runner.invoke(app, ["model", "test"])
    assert later.exit_code == 2 and f"chmod 600 {key_file}" in later.stderr


def test_setup_removes_a_key_written_into_config_and_keeps_the_rest(server: FakeLLM, monkeypatch) -> None:
    update_settings({"model": {"api_key": API_KEY, "prices": {"fake-model": {"input": 0.5, "output": 2.0}}}})
    monkeypatch.setenv("MY_MODEL_KEY", API_KEY)
    result = setup(
        "--provider",
        "compatible",
        "--base-url",
        server.url,
        "--model",
        "fake-model",
        "--key-env",
        "MY_MODEL_KEY",
    )
    assert result.exit_code == 0, result.output
    assert "removed the key written into config.json by hand" in result.stdout
    assert API_KEY not in config_path().read_text()
    assert config()["model"]["prices"] == {"fake-model": {"input": 0.5, "output": 2.0}}
    data = json.loads(
        setup(
            "--provider",
            "compatible",
            "--base-url",
            server.url,
            "--model",
            "fake-model",
            "--key-env",
            "MY_MODEL_KEY",
            "--json",
        ).stdout
    )
    commands = {row["command"] for row in data["typical"]}
    assert {"lore history why", "lore books ask", "lore books extract"} <= commands
    for row in data["typical"]:
        expected = (row["prompt_tokens"] * 0.5 + row["completion_tokens"] * 2.0) / 1_000_000
        assert row["cost"] == round(expected, 4) and row["calls"] >= 1


def test_typical_use_without_prices_is_in_tokens(server: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("MY_MODEL_KEY", API_KEY)
    result = setup(
        "--provider",
        "compatible",
        "--base-url",
        server.url,
        "--model",
        "fake-model",
        "--key-env",
        "MY_MODEL_KEY",
    )
    assert "add model.prices to config.json for dollars" in result.stdout
    assert (
        "lore history why" in result.stdout
        and "prompt +" in result.stdout
        and "$" not in result.stdout.split("typical use")[1]
    )


def test_a_compatible_server_never_gets_the_openai_key(server: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    server.require_key = None
    result = setup("--provider", "compatible", "--base-url", server.url, "--model", "local", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["key"]["kind"] == "none"
    assert "authorization" not in server.requests[0].headers
    runner.invoke(app, ["model", "test"])
    assert all("authorization" not in r.headers for r in server.requests)


def test_show_with_a_model_but_no_key_says_the_key_is_missing_and_where_it_looked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LORE_MODEL", "openai:gpt-4o-mini")
    result = runner.invoke(app, ["model", "show"])
    assert result.exit_code == 0, result.output
    assert "No API key for openai:gpt-4o-mini" in result.stdout
    assert "env OPENAI_API_KEY (unset)" in result.stdout and "env LORE_API_KEY (unset)" in result.stdout
    assert f".env in {tmp_path}" in result.stdout and "lore model setup" in result.stdout
    data = json.loads(runner.invoke(app, ["model", "show", "--json"]).stdout)
    assert data["missing_key"]["model"] == "openai:gpt-4o-mini"
    assert data["missing_key"]["from"] == "env LORE_MODEL"
    # a reference that points nowhere is named with what is wrong with it
    update_settings({"model": {"provider": "openai", "api_key_env": "GONE_KEY"}})
    places = json.loads(runner.invoke(app, ["model", "show", "--json"]).stdout)["missing_key"]["places"]
    assert "env GONE_KEY (named by config model.api_key_env; unset)" in places


def _converse(fd: int, steps: list[tuple[str, str]]) -> str:
    """Answer each prompt once it appears on the terminal; everything the terminal showed."""
    seen = b""
    deadline = time.monotonic() + 120  # a guard against a hung child, not a measure of speed
    for prompt, answer in [*steps, (None, "")]:  # None: read until the child closes the terminal
        while prompt is None or prompt.encode() not in seen:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(
                    f"no {prompt!r} prompt; the terminal showed {seen.decode(errors='replace')}"
                )
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                chunk = b""
            if not chunk:
                if prompt is not None:
                    raise AssertionError(f"ended before {prompt!r}: {seen.decode(errors='replace')}")
                return seen.decode(errors="replace")
            seen += chunk
        if answer:
            os.write(fd, answer.encode() + b"\r")
    return seen.decode(errors="replace")


def test_a_real_terminal_hides_the_key_as_it_is_typed(server: FakeLLM, tmp_path: Path) -> None:
    key = "sk-pty-" + secrets.token_hex(12)
    server.require_key = key
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "LORE_MODEL")}
    env.update(COLUMNS="200", TERM="dumb")
    pid, fd = pty.fork()
    if pid == 0:  # the child: lore itself, on the terminal
        os.chdir(tmp_path)
        os.execve(str(LORE), [str(LORE), "model", "setup"], env)
    try:
        shown = _converse(
            fd,
            [
                ("Provider", "compatible"),
                ("Base URL", server.url),
                ("Model", "fake-model"),
                # the space after the colon is written by getpass once echo is off: typing
                # before it would be echoed (and then flushed), by any terminal
                ("Enter for none): ", key),
            ],
        )
    except BaseException:
        os.kill(pid, signal.SIGKILL)  # a child left waiting at a prompt would never end
        raise
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, shown
    assert "test call ok" in shown
    assert key not in shown  # typed, never echoed
    assert "fake-model" in shown  # a visible answer is echoed, as usual
    saved = config()["model"]
    assert stat.S_IMODE(Path(saved["api_key_file"]).stat().st_mode) == 0o600
    assert key not in config_path().read_text()
