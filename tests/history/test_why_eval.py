"""`lore history eval`: questions drafted from the store's rows, unreviewed, scored for two arms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history.ingest.github import ingest_github
from lore.history.repos import resolve_repo
from lore.history.why import evaluate
from support.fake_github import FakeGitHub
from support.history_why import WhyRepo, build_why_repo, load_threads

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


@pytest.fixture
def why_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WhyRepo:
    monkeypatch.setenv("LORE_EMBED", "hash")
    built = build_why_repo(tmp_path / "app")
    server = FakeGitHub("acme", "app")
    load_threads(server, built)
    gh_issue = 4  # a problem that came back: the same words as issue #1, later
    server.add_issue(
        gh_issue, "Implicit flow leaks tokens again", body="Seen again.", created_at="2023-11-30T00:00:00Z"
    )
    with server:
        monkeypatch.setenv("LORE_GITHUB_API", server.url)
        ingest_github("acme/app", clone=built.root)
    return built


def test_drafted_questions_carry_ids_the_store_holds(why_repo: WhyRepo) -> None:
    questions = evaluate.draft(resolve_repo("acme/app"))
    by_category = {q.category: q for q in questions}
    assert by_category["single_hop"].truth in {("pr:2",), ("pr:3",)}
    assert (
        by_category["multi_hop"].truth == ("issue:1",) and "src/auth.py" in by_category["multi_hop"].question
    )
    assert by_category["recurrence"].truth == ("issue:1",) and "#4" in by_category["recurrence"].question
    temporal = by_category["temporal"]
    assert temporal.as_of and temporal.truth[0].startswith("commit:")
    assert {q.split for q in questions} <= {"dev", "held_out"}


def test_eval_writes_an_unreviewed_file_and_scores_both_arms(why_repo: WhyRepo, tmp_path: Path) -> None:
    path = tmp_path / "questions.json"
    result = CliRunner().invoke(
        app, ["history", "eval", "--repo", "acme/app", "--questions", str(path), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["reviewed"] is False
    saved = json.loads(path.read_text())
    assert saved["reviewed"] is False and "not reviewed" in saved["note"]
    scores = data["recall_at_10"]
    assert set(scores) <= set(evaluate.CATEGORIES) and scores
    for splits in scores.values():
        for row in splits.values():
            assert row["n"] >= 1 and 0.0 <= row["hybrid"] <= 1.0 and 0.0 <= row["vector"] <= 1.0
    multi = next(iter(scores["multi_hop"].values()))
    assert multi["hybrid"] == 1.0  # the file's PR closes the issue: the walk reaches it

    saved["reviewed"] = True
    path.write_text(json.dumps(saved))
    again = CliRunner().invoke(app, ["history", "eval", "--repo", "acme/app", "--questions", str(path)])
    assert again.exit_code == 0 and "NOT reviewed" not in again.stdout


def test_chunks_are_fixed_size_with_overlap() -> None:
    words = [f"w{i}" for i in range(150)]
    parts = evaluate.chunks(" ".join(words))
    assert [len(p.split()) for p in parts] == [64, 64, 54]
    assert parts[1].split()[0] == "w48"
