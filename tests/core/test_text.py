from lore.core.config import TokenizerExtensions
from lore.core.text import build_tokenizer, claim_stem, split_words, stem
from lore.core.tokens import estimate_tokens


def test_identifiers_split_and_lowercased() -> None:
    tok = build_tokenizer()
    for text in ("UserRepository", "user_repo.py", "user-repo"):
        terms = tok.tokens(text, topics=False)
        assert terms == ["user", "repository"], text


def test_filler_words_dropped() -> None:
    assert build_tokenizer().tokens("use the file to add a cache", topics=False) == ["cach"]


def test_glued_extension_ignored_but_bare_extension_kept() -> None:
    tok = build_tokenizer()
    assert "python" not in tok.tokens("fix scanner.py", topics=False)
    assert stem("scanner") in tok.tokens("fix scanner.py", topics=False)
    assert "python" in tok.tokens("all .py files", topics=False)


def test_aliases() -> None:
    tok = build_tokenizer()
    assert tok.tokens("py db repo spec", topics=False) == ["python", "databas", "repository", "test"]


def test_rough_stem_meets_word_families() -> None:
    assert stem("validate") == stem("validation") == stem("validating")
    assert stem("sanitize") == stem("sanitization")
    assert stem("migrations") == stem("migrate")


def test_topic_vocabulary_links_column_and_migration() -> None:
    tok = build_tokenizer()
    assert "#data" in tok.tokens("add a column")
    assert "#data" in tok.tokens("reversible migrations")


def test_tokenizer_extensions_from_config() -> None:
    ext = TokenizerExtensions(
        aliases={"tf": "terraform"}, topics={"infra": ("terraform", "helm")}, stopwords=("kindly",)
    )
    tok = build_tokenizer(ext)
    terms = tok.tokens("kindly change the tf module")
    assert "kindly" not in terms
    assert "terraform" in terms and "#infra" in terms
    assert "#infra" in tok.tokens("helm chart")


def test_split_words_and_token_estimate() -> None:
    assert split_words("HTTPClient getURL") == ["http", "client", "get", "url"]
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2


def test_the_claim_stem_meets_inflections_and_numbers() -> None:
    assert claim_stem("wounded") == claim_stem("wound")
    assert claim_stem("Holmes's") == claim_stem("Holmes") == claim_stem("holmes’s")
    assert claim_stem("three") == "3" and claim_stem("3rd") == "3" and claim_stem("Thousand") == "1000"
    assert claim_stem("one") == "one"  # a determiner more often than a count


def test_the_claim_stem_is_stricter_than_the_keyword_stem() -> None:
    """Short words stay whole and nothing is rewritten: a claim cannot borrow a related word."""
    assert stem("uses") == stem("use") and claim_stem("uses") != claim_stem("use")
    assert stem("activities") == stem("activity") and claim_stem("activities") != claim_stem("activity")
