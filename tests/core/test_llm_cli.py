"""`lore model show|test|cache|usage` against the real local model server."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.cli.model_use import model_command
from lore.core.config import update_settings
from lore.core.embed import get_embedder
from lore.core.llm import (
    BOOKS_EXTRACT,
    TASKS,
    ModelClient,
    complete_sync,
    model_run,
    model_subject,
    totals,
)
from support.fake_llm import API_KEY, FakeLLM, fake_llm_fixture  # noqa: F401

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")

runner = CliRunner()


def test_show_without_a_model_says_what_to_do(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["model", "show"])
    assert result.exit_code == 0
    assert "none" in result.stdout and "LORE_MODEL" in result.stdout
    assert "still works" in result.stdout
    data = json.loads(runner.invoke(app, ["model", "show", "--json"]).stdout)
    assert data["chat"] is None and "OPENAI_API_KEY" in data["needs_model"]
    assert data["embedder"].startswith("hash")


def test_show_masks_the_key(fake_llm: FakeLLM) -> None:
    update_settings({"model": {"prices": {"fake-model": {"input": 0.15, "output": 0.6}}}})
    result = runner.invoke(app, ["model", "show"])
    assert result.exit_code == 0, result.output
    assert API_KEY not in result.stdout
    assert "sk-t…0000" in result.stdout
    assert "openai:fake-model" in result.stdout and "env LORE_MODEL" in result.stdout
    data = json.loads(runner.invoke(app, ["model", "show", "--json"]).stdout)
    assert data["chat"]["api_key"] == "sk-t…0000"
    assert data["chat"]["base_url"] == fake_llm.url
    assert data["prices"] == {"fake-model": {"input": 0.15, "output": 0.6}}


def test_show_lists_every_known_task_and_where_it_goes(fake_llm: FakeLLM, monkeypatch) -> None:
    data = json.loads(runner.invoke(app, ["model", "show", "--json"]).stdout)
    assert set(data["tasks"]) == set(TASKS)
    assert data["tasks"][BOOKS_EXTRACT]["model"] == "openai:fake-model"
    assert data["tasks"][BOOKS_EXTRACT]["from"] == "the default (env LORE_MODEL)"
    monkeypatch.setenv("LORE_MODEL_BOOKS_EXTRACT", "openai:cheap")
    table = runner.invoke(app, ["model", "show"]).stdout
    assert f"task {BOOKS_EXTRACT}" in table and "openai:cheap" in table
    assert "LORE_MODEL_BOOKS_EXTRACT" in table
    one = json.loads(runner.invoke(app, ["model", "show", "--task", BOOKS_EXTRACT, "--json"]).stdout)
    assert one["chat"]["model"] == "cheap"
    assert BOOKS_EXTRACT in runner.invoke(app, ["model", "show", "--help"]).stdout
    bad = runner.invoke(app, ["model", "show", "--task", "extract"])
    assert bad.exit_code == 2 and f"the tasks are {BOOKS_EXTRACT}" in bad.stderr


def test_model_test_makes_one_real_call_every_time(fake_llm: FakeLLM) -> None:
    fake_llm.reply_model = "fake-model-0613"
    fake_llm.reply("pong", "pong")
    result = runner.invoke(app, ["model", "test"])
    assert result.exit_code == 0, result.output
    assert "openai:fake-model answered in" in result.stdout
    assert "fake-model-0613" in result.stdout and "'pong'" in result.stdout
    data = json.loads(runner.invoke(app, ["model", "test", "--json"]).stdout)
    assert data["reply"] == "pong" and data["latency_ms"] > 0
    assert fake_llm.count() == 2  # never answered from the cache


def test_model_test_takes_no_cache(fake_llm: FakeLLM) -> None:
    fake_llm.reply("pong", "pong")
    result = runner.invoke(app, ["model", "test", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert fake_llm.count() == 1
    assert "--no-cache" in runner.invoke(app, ["model", "test", "--help"]).stdout


def test_model_command_turns_the_flag_into_fresh_calls_for_the_run(fake_llm: FakeLLM) -> None:
    """What another command group does with its `--no-cache`: chat and embeddings ask again."""
    fake_llm.reply("ping", "pong")
    embedder = get_embedder("openai:text-embedding-3-small")
    complete_sync("ping")
    embedder.embed(["alpha"])
    with model_command("replay", no_cache=False):
        assert complete_sync("ping").cached
        embedder.embed(["alpha"])
    assert (fake_llm.count("chat"), fake_llm.count("embeddings")) == (1, 1)
    with model_command("fresh", no_cache=True) as run:
        assert not complete_sync("ping").cached
        ModelClient().complete_sync("ping")  # a client made inside follows the run too
        embedder.embed(["alpha"])
    assert (fake_llm.count("chat"), fake_llm.count("embeddings")) == (3, 2)
    assert totals(run_id=run).cache_hits == 0
    assert complete_sync("ping").cached  # only that run asked afresh


def test_model_test_without_a_model_exits_5(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["model", "test"])
    assert result.exit_code == 5
    assert "no language model is configured" in result.stderr


def test_model_test_refuses_an_unknown_provider_in_one_line(fake_llm: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("LORE_MODEL", "foo:bar")
    result = runner.invoke(app, ["model", "test"])
    assert result.exit_code == 2
    assert "unknown model provider 'foo'" in result.stderr and "openai" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert fake_llm.count() == 0


def test_a_dotenv_base_url_never_receives_the_users_key(fake_llm: FakeLLM, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)  # a cloned repository whose .env points at its own server
    monkeypatch.delenv("OPENAI_BASE_URL")
    (tmp_path / ".env").write_text(f"OPENAI_BASE_URL={fake_llm.url}\n", encoding="utf-8")
    result = runner.invoke(app, ["model", "test"])
    assert result.exit_code == 2
    assert "refusing to send the API key from env OPENAI_API_KEY" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert fake_llm.count() == 0
    (tmp_path / ".env").write_text(
        f"OPENAI_BASE_URL={fake_llm.url}\nOPENAI_API_KEY={API_KEY}\n", encoding="utf-8"
    )
    monkeypatch.delenv("OPENAI_API_KEY")
    assert runner.invoke(app, ["model", "test"]).exit_code == 0  # its own key may go there
    assert fake_llm.count() == 1


def test_model_test_reports_a_failing_server(fake_llm: FakeLLM, monkeypatch) -> None:
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "0")
    fake_llm.fail("500")
    result = runner.invoke(app, ["model", "test"])
    assert result.exit_code == 1
    assert "answered 500" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_cache_stats_and_clear(fake_llm: FakeLLM) -> None:
    fake_llm.reply("ping", "pong")
    complete_sync("ping")
    complete_sync("ping")
    stats = json.loads(runner.invoke(app, ["model", "cache", "stats", "--json"]).stdout)
    assert (stats["chat_entries"], stats["chat_hits"]) == (1, 1)
    assert "1 completions (1 cache hits" in runner.invoke(app, ["model", "cache", "stats"]).stdout
    aborted = runner.invoke(app, ["model", "cache", "clear"], input="n\n")
    assert aborted.exit_code == 1
    cleared = runner.invoke(app, ["model", "cache", "clear", "--yes", "--json"])
    assert json.loads(cleared.stdout) == {"removed": 1, "kind": "all"}
    bad = runner.invoke(app, ["model", "cache", "clear", "--yes", "--kind", "nope"])
    assert bad.exit_code == 2 and "unknown cache kind" in bad.stderr


def test_usage_by_subject_and_model(fake_llm: FakeLLM) -> None:
    update_settings({"model": {"prices": {"fake-model": {"input": 1000, "output": 1000}}}})
    fake_llm.reply(lambda r: True, "ok")
    with model_subject("book:3"):
        complete_sync("a")
    complete_sync("b", subject="repo:o/n")
    table = runner.invoke(app, ["model", "usage"])
    assert table.exit_code == 0
    assert "book:3" in table.stdout and "repo:o/n" in table.stdout and "$" in table.stdout
    data = json.loads(runner.invoke(app, ["model", "usage", "--by", "model", "--json"]).stdout)
    assert data["openai:fake-model"]["calls"] == 2
    only_books = json.loads(runner.invoke(app, ["model", "usage", "--subject", "book:", "--json"]).stdout)
    assert list(only_books) == ["book:3"]
    assert runner.invoke(app, ["model", "usage", "--by", "colour"]).exit_code == 2


def test_a_command_reports_its_model_use_in_one_line_at_the_end(fake_llm: FakeLLM, capsys) -> None:
    fake_llm.reply(lambda r: True, "ok")
    embedder = get_embedder("openai:text-embedding-3-small")
    with model_command("books add"), model_subject("book:3"):
        embedder.embed(["first passage", "second passage"])
        with model_run("books extract"):  # a domain's own run joins the command's
            complete_sync("read it")
    err = capsys.readouterr().err
    assert err.count("model use:") == 1
    assert "model use: 2 model calls (0 from cache)" in err
    assert "2 texts embedded in 1 call" in err
    with model_command("books search"):
        pass
    assert capsys.readouterr().err == ""  # no model used, nothing said
    table = runner.invoke(app, ["model", "usage", "--json"])
    assert json.loads(table.stdout)["book:3"]["calls"] == 2
