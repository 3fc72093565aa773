"""The history view's JSON API (`/api/history`) over real HTTP, on a real history.

A git repository made in the test, its PRs and issues on the fake GitHub, decisions extracted
and judged by the fake model server (`support.history_view`); the UI server is a real uvicorn on
127.0.0.1 in this process, so what a call changes is checked through the decisions service.
"""

from __future__ import annotations

import pytest

from lore.history.decisions.service import all_decisions
from lore.history.decisions.supersede import supersessions
from support.fake_llm import FakeLLM
from support.fake_llm import fake_llm_fixture as fake_llm_fixture
from support.history_view import (
    EARLY,
    MTLS,
    OAUTH_REASON,
    PKCE,
    PKCE_QUOTE,
    REASON,
    REPO,
    WHY_MARK,
    HistoryView,
    cite_the_oauth_commit,
)
from support.history_view import view_fixture as view_fixture
from support.pr_repo import PrRepo, build_pr_repo

QUESTION = "Why does src/auth.py use the OAuth2 authorization code flow?"


def _get(ui, route: str, **params):
    with ui.client() as client:
        return client.get("/api/history" + route, params=params)


def _post(ui, route: str, body: dict):
    with ui.client() as client:
        return client.post("/api/history" + route, json=body)


def test_repositories_and_the_file_picker(ui, view: HistoryView) -> None:
    (repo,) = _get(ui, "/repos").json()
    assert (repo["repo"], repo["github"], repo["commits"], repo["decisions"]) == (REPO, REPO, 18, 2)
    assert repo["path"] == str(view.built.root)
    found = _get(ui, "/files", repo=REPO, q="AUTH").json()
    assert [f["path"] for f in found] == ["src/auth.py"]
    everything = [f["path"] for f in _get(ui, "/files", repo=REPO).json()]
    assert everything[0] == "src/auth.py" and set(everything) == {"src/auth.py", "src/db.py", "README.md"}


@pytest.fixture
def prs_from_subjects(tmp_path) -> PrRepo:
    from lore.history.ingest.git import ingest_git

    built = build_pr_repo(tmp_path / "subjects")
    ingest_git(built.root)
    return built


def test_a_repositorys_pr_count_is_every_pr_its_timelines_list(ui, prs_from_subjects: PrRepo) -> None:
    """PRs known from commit subjects alone (nothing read from GitHub) are counted: the count
    is the PRs a file's timeline lists, not the GitHub threads read (none here)."""
    (repo,) = _get(ui, "/repos").json()
    assert repo["items_fetched"] == {}
    assert (repo["prs"], repo["issues"]) == (len(prs_from_subjects.prs), 0)
    everywhere = _get(ui, "/timeline", repo=repo["repo"], path=prs_from_subjects.paths[0]).json()
    listed = {int(e["key"]) for e in everywhere["entries"] if e["kind"] == "pr"}
    assert listed == prs_from_subjects.prs and everywhere["counts"]["pr"] == repo["prs"]


def test_a_files_timeline_holds_both_layers(ui, view: HistoryView) -> None:
    data = _get(ui, "/timeline", repo=REPO, path="auth.py").json()  # a unique end of a path will do
    assert data["file"] == "src/auth.py" and data["as_of"] is None
    keys = {(e["kind"], e["key"]) for e in data["entries"]}
    shas = view.built.shas
    assert {
        ("commit", shas["oauth"]),
        ("commit", shas["scopes"]),
        ("pr", "2"),
        ("pr", "3"),
        ("issue", "1"),
    } <= keys
    assert data["counts"] == {"commit": 16, "pr": 2, "issue": 1, "decision": 2, "superseded": 1}
    old, new = data["decisions"]  # oldest first
    assert (old["statement"], old["quote"], old["in_force"]) == (PKCE, PKCE_QUOTE, False)
    assert old["valid_from"] == "2023-11-16T10:13:20Z" and old["valid_to"] == new["valid_from"]
    assert (old["superseded_by"], old["superseded_by_statement"], old["supersede_reason"]) == (
        view.mtls,
        MTLS,
        REASON,
    )
    assert old["supersession_id"] == view.supersession
    assert old["source_url"] == "https://github.com/acme/app/issues/1#issuecomment-" + str(old["comment_id"])
    assert new["in_force"] and new["valid_to"] is None and new["supersession_id"] is None


def test_as_of_is_what_held_then(ui, view: HistoryView) -> None:
    data = _get(ui, "/timeline", repo=REPO, path="src/auth.py", as_of=EARLY + "T23:59:59Z").json()
    assert data["as_of"] == EARLY + "T23:59:59Z"
    assert all(e["at"] <= data["as_of"] for e in data["entries"])
    assert data["counts"]["commit"] == 4  # the file's commits of days 1, 2, 3 and 5
    # the PKCE decision held then (superseded only later), and mutual TLS was not decided yet
    (held,) = data["decisions"]
    assert (held["statement"], held["in_force"], held["valid_to"], held["supersession_id"]) == (
        PKCE,
        True,
        None,
        None,
    )
    then = _get(ui, "/decisions", repo=REPO, as_of=EARLY).json()
    assert [d["statement"] for d in then] == [PKCE]
    now = _get(ui, "/decisions", repo=REPO, file="src/auth.py").json()
    assert [d["statement"] for d in now] == [MTLS]


def test_undo_reopens_the_interval_once(ui, view: HistoryView) -> None:
    reply = _post(ui, f"/supersessions/{view.supersession}/undo", {"repo": REPO})
    assert reply.status_code == 200, reply.text
    assert (reply.json()["earlier"], reply.json()["in_force"]) == (view.pkce, False)
    restored = next(d for d in all_decisions(REPO) if d.id == view.pkce)
    assert restored.in_force and restored.valid_to is None
    (row,) = supersessions(REPO)  # kept, stamped undone
    assert row.undone_at is not None
    data = _get(ui, "/timeline", repo=REPO, path="src/auth.py").json()
    assert [d["in_force"] for d in data["decisions"]] == [True, True]

    again = _post(ui, f"/supersessions/{view.supersession}/undo", {"repo": REPO})
    assert again.status_code == 400 and "already undone" in again.json()["error"]


def test_churn_and_hotspots(ui, view: HistoryView) -> None:
    churn = _get(ui, "/churn", repo=REPO, n=2).json()["files"]
    assert [(f["path"], f["churn"], f["commits"]) for f in churn] == [
        ("src/auth.py", 215, 16),
        ("src/db.py", 40, 1),
    ]
    hot = _get(ui, "/hotspots", repo=REPO, days=7).json()
    assert hot["window_end"] == "2023-12-02T22:13:20Z"  # the README commit of day 18
    # days 11 to 17 for src/auth.py (the window includes its start), day 18 for the README
    assert [(f["path"], f["changes"]) for f in hot["files"]] == [("src/auth.py", 7), ("README.md", 1)]


def test_churn_and_hotspots_as_of_a_day(ui, view: HistoryView) -> None:
    """The end of 19 November (day 5): only the commits of days 1 to 5 count."""
    end = "2023-11-19T23:59:59Z"
    churn = _get(ui, "/churn", repo=REPO, n=5, as_of=end).json()["files"]
    assert [(f["path"], f["commits"]) for f in churn] == [
        ("src/auth.py", 4),  # days 1, 2, 3 and 5; its 12 typo fixes came later
        ("src/db.py", 1),  # 40 lines on day 4
        ("README.md", 1),
    ]
    assert all(f["last_changed"] <= end for f in churn)
    hot = _get(ui, "/hotspots", repo=REPO, days=7, as_of=end).json()
    assert hot["window_end"] == end and hot["window_start"] == "2023-11-12T23:59:59Z"
    first = hot["files"][0]
    assert (first["path"], first["changes"]) == ("src/auth.py", 4)


def test_why_without_a_model_is_the_quoted_evidence(ui, view: HistoryView, fake_llm: FakeLLM) -> None:
    calls = fake_llm.count("chat")
    data = _post(ui, "/why", {"repo": REPO, "question": QUESTION, "model": False}).json()
    assert fake_llm.count("chat") == calls  # model: false asks nothing
    assert data["answer"] == [] and data["note"].startswith("With a model configured")
    units = [e["unit"] for e in data["evidence"]]
    assert f"commit:{view.built.shas['oauth']}" in units[:2] and "pr:2" in units
    assert all(e["at"] for e in data["evidence"])
    for e in data["evidence"]:  # the reason each source gives, with its span; or none, and no quote
        assert e["quote"] == (e["reason"]["text"] if e["reason"] else "")
    oauth = next(e for e in data["evidence"] if e["unit"] == f"commit:{view.built.shas['oauth']}")
    assert oauth["reason"]["in"] == "body" and "because the implicit flow leaks" in oauth["quote"]
    before = _post(
        ui, "/why", {"repo": REPO, "question": QUESTION, "model": False, "as_of": "2023-11-16"}
    ).json()
    assert before["as_of"] == "2023-11-16T00:00:00Z"
    assert before["evidence"] and all(e["at"] <= before["as_of"] for e in before["evidence"])


def test_why_with_a_model_shows_only_cited_sentences(ui, view: HistoryView, fake_llm: FakeLLM) -> None:
    fake_llm.reply(WHY_MARK, cite_the_oauth_commit)
    data = _post(ui, "/why", {"repo": REPO, "question": QUESTION}).json()
    assert data["model_configured"] and data["model_calls"] == 1
    (sentence,) = data["answer"]
    assert sentence["evidence"] == f"commit:{view.built.shas['oauth']}" and sentence["quote"] == OAUTH_REASON
    assert "1 sentence(s)" in data["note"] and "auditor" not in str(data)


def test_why_when_the_model_breaks_falls_back_to_the_evidence(
    ui, view: HistoryView, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_LLM_MAX_RETRIES", "1")
    fake_llm.fail("malformed", times=4)
    data = _post(ui, "/why", {"repo": REPO, "question": QUESTION}).json()
    assert data["answer"] == [] and data["evidence"]
    assert data["note"].startswith("no answer from the model (")


@pytest.mark.parametrize(
    ("route", "params", "status", "said"),
    [
        ("/timeline", {"repo": "nope", "path": "src/auth.py"}, 404, "no ingested repository called 'nope'"),
        ("/timeline", {"repo": REPO, "path": "src/missing.py"}, 404, "no file 'src/missing.py'"),
        ("/timeline", {"repo": REPO, "path": "src/auth.py", "as_of": "last tuesday"}, 400, "as_of"),
        ("/decisions", {"repo": REPO, "as_of": "2024-13-40"}, 400, "as_of"),
        ("/files", {"repo": REPO, "limit": 0}, 400, "limit must be between 1 and 500"),
        ("/churn", {"repo": REPO, "since": "soon"}, 400, "not a date"),
        ("/churn", {"repo": REPO, "as_of": "soon"}, 400, "as_of"),
        ("/hotspots", {"repo": REPO, "as_of": "2023-02-30"}, 400, "as_of"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(
    ui, view: HistoryView, route, params, status, said
) -> None:
    reply = _get(ui, route, **params)
    assert reply.status_code == status, reply.text
    message = reply.json()["error"]
    assert said in message and "\n" not in message
    assert len(all_decisions(REPO)) == 2 and supersessions(REPO)[0].undone_at is None


def test_undo_of_another_repositorys_or_an_unknown_supersession_is_refused(ui, view: HistoryView) -> None:
    reply = _post(ui, "/supersessions/999/undo", {"repo": REPO})
    assert reply.status_code == 404 and reply.json()["error"] == "no supersession 999 in acme/app"
    reply = _post(ui, f"/supersessions/{view.supersession}/undo", {"repo": "other"})
    assert reply.status_code == 404
    assert supersessions(REPO)[0].undone_at is None


def test_the_history_api_needs_the_token(ui, view: HistoryView) -> None:
    with ui.client(token="wrong-token-wrong-token") as client:
        assert client.get("/api/history/repos").status_code == 401
        reply = client.post(f"/api/history/supersessions/{view.supersession}/undo", json={"repo": REPO})
        assert reply.status_code == 401
    assert supersessions(REPO)[0].undone_at is None
