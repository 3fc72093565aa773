from lore.core.bm25 import BM25Index


def test_scores_rank_matching_documents() -> None:
    index = BM25Index()
    index.add("a", ["database", "migration", "column"])
    index.add("b", ["http", "timeout"])
    index.add("c", ["database", "index"])
    scores = index.scores(["migration", "database"])
    assert set(scores) == {"a", "c"}
    assert scores["a"] > scores["c"]


def test_incremental_add_replace_remove_matches_fresh_build() -> None:
    docs = {f"d{i}": ["w" + str(i % 7), "w" + str(i % 3), "common"] for i in range(50)}
    incremental = BM25Index()
    for doc_id, terms in docs.items():
        incremental.add(doc_id, ["stale"])
        incremental.add(doc_id, terms)  # replace
    incremental.add("gone", ["w1", "w2"])
    incremental.remove("gone")
    fresh = BM25Index()
    for doc_id, terms in docs.items():
        fresh.add(doc_id, terms)
    assert incremental.scores(["w1", "common"]) == fresh.scores(["w1", "common"])
    assert "gone" not in incremental and len(incremental) == 50
    assert incremental.scores(["stale"]) == {}


def test_scores_restricted_to_a_subset() -> None:
    index = BM25Index()
    for i in range(20):
        index.add(i, ["shared", f"t{i}"])
    assert set(index.scores(["shared"], among={3, 4, 99})) == {3, 4}
