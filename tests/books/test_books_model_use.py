"""Books commands account their model use per book, report it at the end, and take --no-cache."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lore.cli.app import app
from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401

runner = CliRunner()


def test_add_counts_embedding_calls_against_the_book(
    fake_llm: FakeLLM, monkeypatch, mystery_epub: Path
) -> None:
    monkeypatch.setenv("LORE_EMBED", "openai:text-embedding-3-small")
    added = runner.invoke(app, ["books", "add", str(mystery_epub), "--json"])
    assert added.exit_code == 0, added.output
    book = json.loads(added.stdout)["id"]
    calls = fake_llm.count("embeddings")
    assert calls >= 1
    assert "model use:" in added.stderr and "texts embedded" in added.stderr
    usage = json.loads(runner.invoke(app, ["model", "usage", "--json"]).stdout)
    assert usage[f"book:{book}"]["calls"] == calls
    again = runner.invoke(app, ["books", "reindex", str(book), "--no-cache", "--json"])
    assert again.exit_code == 0, again.output
    assert fake_llm.count("embeddings") == 2 * calls  # asked afresh, not replayed
