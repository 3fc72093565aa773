"""Server embeddings (OpenAI-compatible and Ollama) against a real local server: shape, cache, usage."""

from __future__ import annotations

import numpy as np
import pytest

from lore.core.embed import get_embedder
from lore.core.errors import InvalidInput, LoreError, NeedsModel
from lore.core.llm import ModelCallError, totals
from lore.core.vectors import VectorIndex
from support.fake_llm import FakeLLM, fake_llm_fixture, fake_vector  # noqa: F401


def test_openai_compatible_embeddings_shape_and_normalisation(fake_llm: FakeLLM) -> None:
    embedder = get_embedder("openai:text-embedding-3-small")
    assert embedder.name == "openai:text-embedding-3-small"
    vectors = embedder.embed(["alpha", "beta", "gamma"])
    assert vectors.shape == (3, 8) and embedder.dim == 8
    expected = np.array(fake_vector("beta"), dtype=np.float32)
    assert np.allclose(vectors[1], expected / np.linalg.norm(expected), atol=1e-6)
    (request,) = fake_llm.requests
    assert request.path == "/v1/embeddings"
    assert request.body == {"model": "text-embedding-3-small", "input": ["alpha", "beta", "gamma"]}


def test_embeddings_are_cached_batched_and_accounted(fake_llm: FakeLLM) -> None:
    texts = [f"passage {i}" for i in range(150)]
    first = get_embedder("openai:text-embedding-3-small").embed(texts)
    assert [len(r.body["input"]) for r in fake_llm.requests] == [64, 64, 22]
    fake_llm.reset()
    again = get_embedder("openai:text-embedding-3-small")
    assert np.array_equal(again.embed(texts), first)
    assert again.dim == 8  # learned from the cache, without a call
    assert fake_llm.count() == 0
    t = totals()
    assert (t.embed_calls, t.embedded_texts, t.embed_cache_hits) == (3, 150, 150)
    assert t.prompt_tokens > 0 and not t.estimated_tokens


def test_ollama_nomic_gets_document_and_query_prefixes(fake_llm: FakeLLM, monkeypatch) -> None:
    fake_llm.require_key = None
    fake_llm.use("ollama", monkeypatch)
    embedder = get_embedder("ollama")
    assert embedder.name == "ollama:nomic-embed-text"
    index = VectorIndex("notes", embedder)
    index.add_texts([("a", "the cat sat", {"n": 1}), ("b", "stock prices", {"n": 2})])
    hits = index.search("the cat sat", k=2)
    inputs = [r.body["input"] for r in fake_llm.requests]
    assert ["search_document: the cat sat", "search_document: stock prices"] in inputs
    assert ["search_query: the cat sat"] in inputs
    assert len(hits) == 2


def test_remote_embedder_needs_its_key_and_anthropic_has_none(monkeypatch) -> None:
    with pytest.raises(NeedsModel, match="OPENAI_API_KEY"):
        get_embedder("openai:text-embedding-3-small")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-1")
    with pytest.raises(InvalidInput, match="no embeddings"):
        get_embedder("anthropic:claude").embed(["x"])


def test_two_servers_with_one_embedding_model_name_are_cached_apart(fake_llm: FakeLLM, monkeypatch) -> None:
    get_embedder("openai:text-embedding-3-small").embed(["alpha", "beta"])
    with FakeLLM().start() as other:
        monkeypatch.setenv("OPENAI_BASE_URL", other.url)
        embedder = get_embedder("openai:text-embedding-3-small")
        assert embedder.name == "openai:text-embedding-3-small"  # the index files them alike
        embedder.embed(["alpha", "beta"])
        assert other.count("embeddings") == 1
    assert fake_llm.count("embeddings") == 1


def test_every_embedding_request_is_accounted(fake_llm: FakeLLM) -> None:
    index = VectorIndex("notes", get_embedder("openai:text-embedding-3-small"))
    index.add_texts([("a", "alpha", None), ("b", "beta", None)])  # no dimension probe first
    assert fake_llm.count("embeddings") == 1
    index.search("gamma", k=1)  # a new query: one call
    assert get_embedder("openai:text-embedding-3-large").dim == 8  # nothing known yet: a probe
    assert fake_llm.count("embeddings") == 3
    assert totals().calls == totals().embed_calls == 3


def test_a_model_that_changes_its_dimension_is_a_model_error(fake_llm: FakeLLM) -> None:
    """A server answering with other vectors than before is the model's fault: one LoreError line
    (exit 1 in the CLI, a readable reply over MCP), never a bare ValueError traceback."""
    embedder = get_embedder("openai:text-embedding-3-small")
    assert embedder.embed(["alpha"]).shape == (1, 8)
    fake_llm.embed_dim = 12
    with pytest.raises(ModelCallError) as caught:
        embedder.embed(["beta"], no_cache=True)
    assert isinstance(caught.value, LoreError) and caught.value.exit_code == 1
    assert "returned vectors of shape (1, 12)" in str(caught.value) and "\n" not in str(caught.value)
