"""The real default embedder, with nothing configured: WordLlama, end to end, offline, and a
broken install named in one line. (Every other test pins `LORE_EMBED=hash` in conftest.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.books import library
from lore.books.passage_vectors import COLLECTION
from lore.cli.app import app
from lore.core.embed import get_embedder
from lore.core.embed.wordllama import DIM, WordLlamaEmbedder
from lore.core.vectors import collections
from support.books import make_epub, mystery_book
from support.offline import run_offline

runner = CliRunner()

OFFLINE_CHECK = """
import json, socket
try:
    socket.getaddrinfo("huggingface.co", 443)
    reached = True
except OSError:
    reached = False
from lore.core.embed import get_embedder
embedder = get_embedder()
texts = ["resend a charge", "payments must be idempotent", "use tabs",
         "retry a failed payment without billing the customer twice", "indent code with tabs"]
v = embedder.embed(texts, no_cache=True)
print(json.dumps({"reached": reached, "name": embedder.name, "shape": list(v.shape),
                  "near": float(v[0] @ v[1]), "far": float(v[0] @ v[2]),
                  "near2": float(v[0] @ v[3]), "far2": float(v[0] @ v[4])}))
"""


def _env_without_embedder(**extra: str) -> dict[str, str]:
    """The test's environment minus LORE_EMBED and every Hugging Face offline switch: a download
    attempt would really be tried (and fail on the refused network)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "LORE_EMBED" and not k.startswith(("HF_", "TRANSFORMERS_"))
    }
    return {**env, **extra}


def test_the_default_is_wordllama_and_model_show_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LORE_EMBED")
    embedder = get_embedder()
    assert isinstance(embedder, WordLlamaEmbedder) and embedder.dim == DIM == 256
    shown = runner.invoke(app, ["model", "show", "--json"])
    assert shown.exit_code == 0, shown.output
    info = json.loads(shown.stdout)["embedder_info"]
    assert info["name"] == "wordllama-l2_supercat-256" and info["dim"] == 256
    assert info["usable"] is True and info["from"] == "the default"
    assert info["weights"].startswith("local") and Path(info["path"], "weights").is_dir()
    table = runner.invoke(app, ["model", "show"]).stdout
    assert "wordllama-l2_supercat-256" in table and "256 dimensions" in table


def test_a_book_is_embedded_and_searched_with_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LORE_EMBED")
    book = library.add_book(make_epub(tmp_path / "vane.epub", mystery_book()))
    library.set_progress(book.id, "end")
    stored = {c["embedder"]: c for c in collections() if c["collection"] == COLLECTION}
    assert set(stored) == {"wordllama-l2_supercat-256"}
    assert stored["wordllama-l2_supercat-256"]["dim"] == 256
    assert stored["wordllama-l2_supercat-256"]["vectors"] == book.passages

    found = runner.invoke(app, ["books", "search", str(book.id), "who poisoned the old colonel?", "--json"])
    assert found.exit_code == 0, found.output
    result = json.loads(found.stdout)
    assert result["embedder"] == "wordllama-l2_supercat-256"
    assert result["verdict"] == "found"
    assert any("poisoned the old colonel" in h["text"] for h in result["hits"][:3])
    assert any(h["cosine"] is not None for h in result["hits"])  # the vectors took part


def test_wordllama_loads_and_means_with_the_network_unreachable(tmp_path: Path) -> None:
    done = run_offline(OFFLINE_CHECK, tmp_path, env=_env_without_embedder(), timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["reached"] is False  # the network really was cut off in that process
    assert out["name"] == "wordllama-l2_supercat-256"
    assert out["shape"] == [5, 256]
    assert out["near"] > out["far"]  # "resend a charge" is about payments, not about tabs
    assert out["near2"] > out["far2"]


def test_a_broken_install_is_named_in_one_line_with_the_fix(tmp_path: Path) -> None:
    """A `wordllama` package without its model files (a damaged install) shadows the real one:
    the default embedder refuses in one line that says how to repair it, and never falls back."""
    fake = tmp_path / "broken" / "wordllama"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("class WordLlama:\n    pass\n", encoding="utf-8")
    env = _env_without_embedder(PYTHONPATH=str(tmp_path / "broken"))
    code = "from lore.cli.entry import main; main()"
    shown = subprocess.run(
        [sys.executable, "-c", code, "model", "show", "--json"], capture_output=True, text=True, env=env
    )
    assert shown.returncode == 0, shown.stderr
    info = json.loads(shown.stdout)["embedder_info"]
    assert info["usable"] is False and "missing" in info["error"]
    failed = subprocess.run(
        [sys.executable, "-c", "from lore.core.embed import get_embedder; get_embedder().embed(['x'])"],
        capture_output=True,
        text=True,
        env=env,
    )
    last = failed.stderr.strip().splitlines()[-1]
    assert last.startswith("lore.core.errors.NeedsModel:")
    assert "pip install --force-reinstall" in last and "LORE_EMBED=hash" in last


def test_the_cli_starts_without_importing_wordllama() -> None:
    code = (
        "import sys;"
        "import lore.cli.app, lore.cli.books, lore.cli.model, lore.books.search, lore.core.embed;"
        "from lore.core.embed import get_embedder; get_embedder('wordllama');"
        "print('wordllama' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env_without_embedder()
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
