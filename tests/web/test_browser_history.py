"""The history view in real headless Chromium (Debian's), clicked through like a user would.

The history is real: a git repository made in the test, its PRs and issues served by the fake
GitHub, decisions extracted and judged by the fake model server (`support.history_view`). The
UI server runs in this process, so every change the page makes is checked in the store through
the decisions service. With `LORE_SCREENSHOTS=1` the tests save the pictures in `docs/img/`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lore.history.decisions.service import all_decisions
from lore.history.queries import churn, hotspots
from lore.history.repos import resolve_repo
from support.fake_llm import FakeLLM
from support.fake_llm import fake_llm_fixture as fake_llm_fixture
from support.history_view import (
    EARLY,
    HOSTILE,
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

pytestmark = pytest.mark.e2e
expect = pytest.importorskip("playwright.sync_api").expect

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def _shot(page, name: str, part: str | None = None) -> None:
    """The whole page (or one part of it) into docs/img/, only when LORE_SCREENSHOTS=1."""
    if os.environ.get("LORE_SCREENSHOTS") == "1":
        IMG.mkdir(parents=True, exist_ok=True)
        if part is None:
            page.screenshot(path=str(IMG / name), full_page=True)
        else:
            page.locator(part).screenshot(path=str(IMG / name))


def _open_file(page, ui, path: str = "src/auth.py") -> None:
    page.goto(ui.url + "#history")
    expect(page.locator("#history-repo-name")).to_have_text(REPO)
    page.locator("#history-file").fill("auth")
    page.locator("#history-file-matches").get_by_role("button", name=path, exact=True).click()
    expect(page.locator("#history-timeline-title")).to_have_text(path)


def _decision(page, decision_id: int):
    return page.locator(f"#tl-decision-{decision_id}")


def test_the_timeline_shows_commits_prs_issues_and_decisions(page, ui, view: HistoryView) -> None:
    _open_file(page, ui)
    assert "token" not in page.url
    timeline = page.locator("#history-timeline")
    built = view.built
    expect(timeline.locator(f"#tl-commit-{built.shas['oauth']}")).to_contain_text(
        "Implement OAuth2 authorization code flow"
    )
    expect(timeline.locator("li.tl-commit")).to_have_count(16)
    expect(timeline.locator("#tl-pr-2")).to_contain_text("#2 Implement OAuth2 authorization code flow")
    expect(timeline.locator("#tl-pr-3")).to_be_visible()
    expect(timeline.locator("#tl-issue-1")).to_contain_text("Implicit flow leaks tokens")

    live = _decision(page, view.mtls)
    expect(live.locator("strong.statement")).to_have_text(MTLS)
    expect(live).to_contain_text("still in force")
    old = _decision(page, view.pkce)
    expect(old.locator("s.statement")).to_have_text(PKCE)  # struck through
    expect(old.locator(".tl-quote")).to_have_text(PKCE_QUOTE)
    expect(old.locator(".superseded-by")).to_contain_text(
        f"Superseded on 24 Nov 2023 by decision {view.mtls}"
    )
    expect(old.locator(".superseded-by")).to_contain_text(MTLS)
    expect(old.locator(".superseded-why")).to_have_text("Why: " + REASON)
    expect(old.locator(".valid")).to_have_text("valid from 16 Nov 2023 until 24 Nov 2023")
    _shot(page, "web-history-timeline.png")


def test_undo_of_a_supersession_restores_the_decision(page, ui, view: HistoryView) -> None:
    _open_file(page, ui)
    old = _decision(page, view.pkce)
    old.get_by_role("button", name="Undo supersession").click()
    expect(page.locator("#status")).to_contain_text(f"Supersession {view.supersession} undone")
    expect(old.locator("strong.statement")).to_have_text(PKCE)
    expect(old.locator("s.statement")).to_have_count(0)
    expect(old.get_by_role("button", name="Undo supersession")).to_have_count(0)
    restored = next(d for d in all_decisions(REPO) if d.id == view.pkce)
    assert restored.in_force and restored.valid_to is None and restored.supersession_id is None


def test_the_as_of_selector_changes_what_is_in_force(page, ui, view: HistoryView) -> None:
    _open_file(page, ui)
    expect(_decision(page, view.pkce).locator("s.statement")).to_be_visible()
    page.locator("#history-as-of").fill(EARLY)
    expect(page.locator("#history-asof-note")).to_contain_text("19 Nov 2023")
    # on 19 November the PKCE decision held and the mutual TLS one was not made yet
    expect(_decision(page, view.pkce).locator("strong.statement")).to_have_text(PKCE)
    expect(_decision(page, view.pkce)).to_contain_text("still in force")
    expect(_decision(page, view.mtls)).to_have_count(0)
    expect(page.locator("#history-timeline li.tl-commit")).to_have_count(4)  # days 1, 2, 3 and 5
    expect(page.locator("#history-timeline-counts")).to_contain_text("as of 19 Nov 2023")
    page.get_by_role("button", name="Now", exact=True).click()
    expect(_decision(page, view.pkce).locator("s.statement")).to_be_visible()
    expect(_decision(page, view.mtls)).to_be_visible()


def test_the_charts_have_one_bar_per_file(page, ui, view: HistoryView) -> None:
    repo = resolve_repo(REPO)
    page.goto(ui.url + "#history")
    churned = churn(repo, n=10)
    hot = hotspots(repo, days=90, n=10)["files"]
    bars = page.locator("#history-churn rect.bar")
    expect(bars).to_have_count(len(churned))
    assert [bars.nth(i).get_attribute("data-path") for i in range(len(churned))] == [
        f["path"] for f in churned
    ]
    widths = [float(bars.nth(i).get_attribute("width") or 0) for i in range(len(churned))]
    assert widths == sorted(widths, reverse=True) and widths[0] > widths[-1]  # src/auth.py leads
    expect(page.locator("#history-hotspots rect.bar")).to_have_count(len(hot))
    page.locator("#history-churn rect.bar").first.click()  # a bar opens its file's timeline
    expect(page.locator("#history-timeline-title")).to_have_text(churned[0]["path"])


def test_the_why_box_without_a_model_lists_quoted_evidence(page, ui, view: HistoryView) -> None:
    _open_file(page, ui)
    form = page.locator("#history-why-form")
    form.locator('[name="question"]').fill("Why does src/auth.py use the OAuth2 authorization code flow?")
    form.locator('[name="model"]').uncheck()
    form.get_by_role("button", name="Ask why").click()
    expect(page.locator("#history-why-note")).to_contain_text("With a model configured")
    expect(page.locator("#history-why-answer li")).to_have_count(0)
    oauth = page.locator(f"#ev-commit_{view.built.shas['oauth']}")
    expect(oauth.locator(".tl-quote")).to_contain_text("because the implicit flow leaks access tokens")
    expect(oauth.locator(".tl-head strong")).to_have_text("Implement OAuth2 authorization code flow (#2)")
    expect(page.locator("#ev-pr_2 .no-reason")).to_have_text("no reason stated")  # says what, not why
    oauth.locator("a.cite").click()  # the evidence's citation opens the commit in the timeline
    expect(page.locator(f"#tl-commit-{view.built.shas['oauth']}")).to_have_class("tl-entry tl-commit flash")


def test_the_why_box_shows_a_cited_answer(page, ui, view: HistoryView, fake_llm: FakeLLM) -> None:
    fake_llm.reply(WHY_MARK, cite_the_oauth_commit)
    _open_file(page, ui)
    form = page.locator("#history-why-form")
    form.locator('[name="question"]').fill("Why does src/auth.py use the OAuth2 authorization code flow?")
    form.get_by_role("button", name="Ask why").click()
    answer = page.locator("#history-why-answer li")
    expect(answer).to_have_count(1)  # the sentence whose quote is not in its item is dropped
    expect(answer.first).to_contain_text("The implicit grant leaked access tokens.")
    expect(answer.first.locator("q")).to_have_text(OAUTH_REASON)
    expect(page.locator("#history-why-note")).to_contain_text("1 sentence(s) of the model's answer dropped")
    assert "auditor" not in page.locator("#domain-history").inner_text()
    cite = answer.first.locator("a.cite")
    oauth = f"tl-commit-{view.built.shas['oauth']}"
    expect(cite).to_have_attribute("data-target", oauth)
    cite.click()
    expect(page.locator("#" + oauth)).to_have_class("tl-entry tl-commit flash")
    _shot(page, "web-history-why.png", "#history-why")


def test_repository_text_that_looks_like_markup_stays_text(page, ui, view: HistoryView) -> None:
    page.goto(ui.url + "#history")
    page.locator("#history-file").fill("READ")
    page.locator("#history-file-matches").get_by_role("button", name="README.md", exact=True).click()
    entry = page.locator(f"#tl-commit-{view.built.shas['hostile_markup']}")
    expect(entry.locator("strong")).to_have_text(HOSTILE)
    assert entry.locator("img, b").count() == 0
    assert page.evaluate("window.pwned") is None


def _bars(page, chart: str) -> list[tuple[str, int]]:
    bars = page.locator(f"#{chart} rect.bar")
    return [
        (bars.nth(i).get_attribute("data-path") or "", int(bars.nth(i).get_attribute("data-value") or 0))
        for i in range(bars.count())
    ]


def test_the_charts_follow_the_as_of_date(page, ui, view: HistoryView) -> None:
    repo = resolve_repo(REPO)
    cut = EARLY + "T23:59:59Z"  # what the page sends for the chosen day
    now_churn = [(f["path"], f["churn"]) for f in churn(repo, n=10)]
    then_churn = [(f["path"], f["churn"]) for f in churn(repo, n=10, until=cut)]
    now_hot = [(f["path"], f["changes"]) for f in hotspots(repo, days=90, n=10)["files"]]
    then_hot = [(f["path"], f["changes"]) for f in hotspots(repo, days=90, n=10, until=cut)["files"]]
    assert now_churn != then_churn and now_hot != then_hot  # the day makes a difference
    page.goto(ui.url + "#history")
    expect(page.locator("#history-churn rect.bar")).to_have_count(len(now_churn))
    assert _bars(page, "history-churn") == now_churn and _bars(page, "history-hotspots") == now_hot
    page.locator("#history-as-of").fill(EARLY)
    expect(page.locator("#history-churn-caption")).to_contain_text("up to 19 Nov 2023")
    expect(page.locator("#history-hotspots-caption")).to_contain_text("to 19 Nov 2023")
    assert _bars(page, "history-churn") == then_churn and _bars(page, "history-hotspots") == then_hot
    page.get_by_role("button", name="Now", exact=True).click()
    expect(page.locator("#history-churn-caption")).not_to_contain_text("up to")
    assert _bars(page, "history-churn") == now_churn


def test_the_address_keeps_the_file_through_reload_and_back(page, ui, view: HistoryView) -> None:
    _open_file(page, ui)
    shown = "#history/acme%2Fapp/src/auth.py"  # the repository's "/" encoded, the path's kept
    assert page.url.endswith(shown) and "token" not in page.url
    page.reload()
    expect(page.locator("#history-timeline-title")).to_have_text("src/auth.py")
    expect(page.locator("#history-timeline li.tl-commit")).to_have_count(16)
    # a link to another file, as someone would share it, opens that file
    page.goto(ui.url + "#history/acme%2Fapp/src/db.py")
    expect(page.locator("#history-timeline-title")).to_have_text("src/db.py")
    page.go_back()
    expect(page.locator("#history-timeline-title")).to_have_text("src/auth.py")
    page.go_forward()
    expect(page.locator("#history-timeline-title")).to_have_text("src/db.py")
    # a unique end of a path opens the file and the address becomes its full path
    page.locator("#history-file").fill("auth.py")
    page.locator("#history-file").press("Enter")
    expect(page.locator("#history-timeline-title")).to_have_text("src/auth.py")
    expect(page).to_have_url(ui.url.split("?")[0] + shown)
    # back to the repository's own address: no file open
    page.locator("#history-repos a", has_text=REPO).click()
    expect(page.locator("#history-timeline-box")).to_be_hidden()
    page.go_back()
    expect(page.locator("#history-timeline-title")).to_have_text("src/auth.py")


def test_a_reply_arriving_under_a_press_waits_for_the_release(page, ui, view: HistoryView) -> None:
    """The match list's reply to the typed words arrives while a match is pressed: the list is
    redrawn after the release, so the click opens the file pressed (a slow machine's race)."""
    page.goto(ui.url + "#history")
    matches = page.locator("#history-file-matches")
    expect(matches).to_have_attribute("data-query", "")
    pressed = matches.get_by_role("button", name="src/auth.py", exact=True)
    expect(pressed).to_be_visible()
    held = []
    page.route(lambda url: "/api/history/files?" in url and "q=auth" in url, lambda route: held.append(route))
    with page.expect_request(lambda request: "q=auth" in request.url):
        page.locator("#history-file").fill("auth")
    for _ in range(1000):  # the route's handler runs when Playwright reads the browser's messages
        if held:
            break
        page.evaluate("0")
    assert held, "the search request never reached the route"
    box = pressed.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    held[0].continue_()  # the server's real reply, now, under the press
    expect(matches).to_have_attribute("data-waiting", "auth")
    expect(matches).to_have_attribute("data-query", "")  # not redrawn under the press
    page.mouse.up()
    expect(page.locator("#history-timeline-title")).to_have_text("src/auth.py")
    expect(matches).to_have_attribute("data-query", "auth")
    expect(matches).not_to_have_attribute("data-waiting", "auth")
    expect(matches.locator("button.file-choice")).to_have_text(["src/auth.py"])


@pytest.fixture
def prs_from_subjects(tmp_path: Path) -> PrRepo:
    """A git-only history (nothing read from GitHub) whose PRs are named by commit subjects."""
    from lore.history.ingest.git import ingest_git

    built = build_pr_repo(tmp_path / "subjects")
    ingest_git(built.root)
    return built


def test_the_header_counts_the_prs_the_timeline_lists(page, ui, prs_from_subjects: PrRepo) -> None:
    n = len(prs_from_subjects.prs)
    page.goto(ui.url + "#history")
    expect(page.locator("#history-repo-meta")).to_contain_text(
        f"{n} PRs, 0 issues (0 of them read from GitHub)"
    )
    page.locator("#history-churn rect.bar").first.click()  # the file every PR changed leads
    expect(page.locator("#history-timeline-title")).to_have_text(prs_from_subjects.paths[0])
    expect(page.locator("#history-timeline li.tl-pr")).to_have_count(n)
    expect(page.locator("#history-timeline-counts")).to_contain_text(f"{n} pull requests")


def _texts_outside(page, chart: str) -> list[str]:
    """The texts of a chart whose box is not wholly inside the chart and the window."""
    return page.evaluate(
        """(chart) => {
          const svg = document.getElementById(chart), box = svg.getBoundingClientRect();
          return [...svg.querySelectorAll("text")].filter((t) => {
            const r = t.getBoundingClientRect();
            return r.width === 0 || r.left < box.left || r.right > box.right || r.top < box.top
              || r.bottom > box.bottom || r.left < 0 || r.right > window.innerWidth;
          }).map((t) => t.textContent);
        }""",
        chart,
    )


@pytest.mark.parametrize("width", [1280, 560])
def test_every_chart_label_lies_inside_its_chart(page, ui, prs_from_subjects: PrRepo, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(ui.url + "#history")
    for chart in ("history-churn", "history-hotspots"):
        labels = page.locator(f"#{chart} text.chart-label")
        expect(labels).to_have_count(len(prs_from_subjects.paths))
        assert _texts_outside(page, chart) == []
        bars = page.locator(f"#{chart} rect.bar")
        for i in range(labels.count()):  # a path too long for the chart keeps its file's name
            path, shown = bars.nth(i).get_attribute("data-path") or "", labels.nth(i).text_content() or ""
            assert shown == path or (shown.startswith("…") and path.endswith(shown[1:])), (shown, path)
            assert shown.endswith(path.rsplit("/", 1)[-1])
    assert any(t.startswith("…") for t in page.locator("text.chart-label").all_text_contents())
    _shot(page, f"web-history-charts-{width}.png", ".history-charts")
