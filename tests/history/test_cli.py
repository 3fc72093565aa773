"""`lore history ...` through Typer: tables, --json on every command, clear errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history import store as sql
from lore.history.repos import resolve_repo
from lore.history.why.service import gather
from lore.history.why.store import open_why
from support.fake_github import FakeGitHub
from support.history_graph import graph_snapshot

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

runner = CliRunner()


def _json(args: list[str]) -> object:
    result = runner.invoke(app, ["history", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_commands_on_a_local_repository(history_repo) -> None:
    root = str(history_repo.root)
    ingested = _json(["ingest", root])
    assert ingested["commits_added"] == 11 and ingested["mode"] == "full"
    assert _json(["ingest", root])["commits_added"] == 0
    stats = _json(["stats", "--repo", root])
    assert stats["commits"] == 11 and stats["bot_commits"] == 1
    churn = _json(["churn", "-n", "3"])  # the only repository: no --repo needed
    assert len(churn) == 3 and churn[0]["churn"] >= churn[1]["churn"]
    story = _json(["file", "src/helpers.py"])
    assert [p["path"] for p in story["paths"]] == ["src/helpers.py", "src/util.py"]
    walked = _json(["walk", "src/helpers.py", "--depth", "2", "--kind", "pr"])
    assert {r["kind"] for r in walked["results"]} == {"pr"}
    hubs = _json(["walk", "src/core.py", "--depth", "1", "--max-degree", "20"])
    assert any(r["hub"] for r in hubs["results"])
    pairs = _json(["coupling", "--min-revs", "2", "--min-shared", "1", "--min-degree", "10"])
    assert pairs["pairs"]
    hot = _json(["hotspots", "--days", "30"])
    assert hot["files"]
    assert _json(["repos"])[0]["name"] == "project"
    table = runner.invoke(app, ["history", "file", "helpers.py", "--repo", "project"])
    assert table.exit_code == 0 and "src/helpers.py ← src/util.py" in table.stdout
    table = runner.invoke(app, ["history", "walk", "src/core.py", "--depth", "1"])
    assert table.exit_code == 0 and "hub" in table.stdout


def test_github_ingest_command(monkeypatch) -> None:
    with FakeGitHub("acme", "widget") as gh:
        gh.add_issue(1, "Broken", created_at="2024-01-01T00:00:00Z", closed_at="2024-01-03T00:00:00Z")
        gh.add_pr(
            2,
            "Fix",
            body="fixes #1",
            created_at="2024-01-02T00:00:00Z",
            merged_at="2024-01-02T12:00:00Z",
            files=[{"filename": "a.py"}],
        )
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        result = _json(["ingest", "acme/widget", "--max-pages", "1"])
        assert result["items"] == 2 and result["keyword_closes"] == 1
        story = _json(["file", "a.py", "--repo", "acme/widget"])
        assert [(e["kind"], e["depth"]) for e in story["entries"]] == [("pr", 1), ("issue", 2)]
        walked = _json(["walk", "#1", "--repo", "acme/widget"])
        assert [r["key"] for r in walked["results"]][:1] == ["2"]


def test_rebuild_and_remove_a_github_repository(monkeypatch, history_repo) -> None:
    """`ingest OWNER/REPO --rebuild` reads everything again (from the HTTP cache: no request) into
    the same graph, and the why index forgets the texts of the old rows; `remove OWNER/REPO`."""

    monkeypatch.setenv("LORE_EMBED", "hash")
    with FakeGitHub("acme", "widget") as gh:
        gh.add_issue(1, "Broken parser", created_at="2024-01-01T00:00:00Z", closed_at="2024-01-03T00:00:00Z")
        gh.add_pr(
            2,
            "Fix the parser",
            body="fixes #1",
            created_at="2024-01-02T00:00:00Z",
            merged_at="2024-01-02T12:00:00Z",
            files=[{"filename": "a.py"}],
        )
        monkeypatch.setenv("LORE_GITHUB_API", gh.url)
        first = _json(["ingest", "acme/widget", "--clone", str(history_repo.root)])
        snapshot = graph_snapshot(1)
        before = {e.key for e in gather(resolve_repo("acme/widget"), "Why was the parser fixed?").evidence}
        docs = open_why().doc_state(1)[0]
        sent = len(gh.log)
        again = _json(["ingest", "acme/widget", "--clone", str(history_repo.root), "--rebuild"])
        assert (again["items"], again["commits"]) == (first["items"], first["commits"]) == (2, 11)
        assert len(gh.log) == sent  # every response came from the cache
        assert graph_snapshot(1) == snapshot  # node ids are new, the graph is the same
        after = gather(resolve_repo("acme/widget"), "Why was the parser fixed?").evidence
        assert {e.key for e in after} == before and {"pr:2", "issue:1"} <= before
        assert open_why().doc_state(1)[0] == docs  # the old rows' texts were pruned, not kept twice
        assert _json(["remove", "acme/widget"]) == {"removed": "acme/widget"}
        assert not sql.open_history().list_repos()
        result = runner.invoke(app, ["history", "remove", "acme/widget"])
        assert result.exit_code == 3 and "no repository ingested yet" in result.output


def test_errors_are_one_line_with_exit_codes(history_repo, tmp_path) -> None:
    result = runner.invoke(app, ["history", "stats"])
    assert result.exit_code == 3 and "no repository ingested yet" in result.output
    result = runner.invoke(app, ["history", "ingest", "not a thing"])
    assert result.exit_code == 2 and "neither a folder nor OWNER/REPO" in result.output
    runner.invoke(app, ["history", "ingest", str(history_repo.root)])
    result = runner.invoke(app, ["history", "file", "nope.py"])
    assert result.exit_code == 3 and "no file 'nope.py'" in result.output
    result = runner.invoke(app, ["history", "walk", "src/core.py", "--rel", "BOGUS"])
    assert result.exit_code == 2 and "unknown relation" in result.output
    result = runner.invoke(app, ["history", "ingest", str(tmp_path)])
    assert result.exit_code == 2 and "not inside a git repository" in result.output


def test_repository_text_is_never_read_as_markup(tmp_path, monkeypatch) -> None:
    """Brackets in paths, subjects and names are shown as they are, and never crash a table."""
    from lore.cli.common import console
    from support.history_repo import HistoryRepo

    monkeypatch.setattr(console, "_width", 240)  # no wrapping; restored to "follow the terminal"
    r = HistoryRepo(tmp_path / "web[app]")
    renovate = ("renovate[bot]", "29139614+renovate[bot]@users.noreply.github.com")
    r.commit("add [red]route[/red]", {"pages/[id].tsx": "one\n", "lib/[b]x[/b].ts": "a\n"}, renovate)
    r.commit("fix [/api] handler", {"pages/[id].tsx": "two\n", "lib/[b]x[/b].ts": "b\n"})
    root = str(r.root)
    outputs = {}
    for args in (
        ["ingest", root],
        ["repos"],
        ["stats"],
        ["churn"],
        ["hotspots"],
        ["coupling", "--min-revs", "1", "--min-shared", "1", "--min-degree", "1"],
        ["file", "pages/[id].tsx"],
        ["walk", "pages/[id].tsx", "--depth", "2"],
        ["walk", "@renovate[bot]", "--depth", "1"],
    ):
        result = runner.invoke(app, ["history", *args])
        assert result.exit_code == 0, (args, result.output)
        outputs[args[0] + " " + (args[1] if len(args) > 1 else "")] = result.stdout
    assert "Ingested web[app]" in outputs["ingest " + root]
    assert "web[app]" in outputs["repos "] and "History of web[app]" in outputs["stats "]
    for key in ("churn ", "hotspots ", "coupling --min-revs"):
        assert "pages/[id].tsx" in outputs[key] and "lib/[b]x[/b].ts" in outputs[key]
    story = outputs["file pages/[id].tsx"]
    assert "pages/[id].tsx" in story
    assert "add [red]route[/red] — renovate[bot] (bot)" in story
    assert "fix [/api] handler — Alice" in story
    walked = outputs["walk pages/[id].tsx"]
    assert "fix [/api] handler" in walked and "lib/[b]x[/b].ts" in walked and "renovate[bot]" in walked
    assert "add [red]route[/red]" in outputs["walk @renovate[bot]"]


def test_walk_starts_from_a_person_on_a_local_repository(history_repo) -> None:
    """A local repository knows people by email and name: `@carol`, `Carol` and her email all
    start a walk from her (`@bob` is a GitHub login through his no-reply address)."""
    runner.invoke(app, ["history", "ingest", str(history_repo.root)])
    for start in ("@carol", "Carol", "carol@example.com", "person:carol", "@bob", "bob"):
        walked = _json(["walk", start, "--depth", "1"])
        assert walked["start"]["kind"] == "person", start
        assert any(r["kind"] == "commit" for r in walked["results"]), start
    assert _json(["walk", "Carol"])["start"]["key"] == "carol@example.com"
    missing = runner.invoke(app, ["history", "walk", "Nobody Known"])
    assert missing.exit_code == 3 and "no file or person 'Nobody Known'" in missing.stderr
    missing = runner.invoke(app, ["history", "walk", "@nobody"])
    assert missing.exit_code == 3 and "'@nobody'" in missing.stderr


def test_dates_read_one_way_and_a_bad_one_is_one_line(history_repo) -> None:
    """`--since` takes what core.dates reads (a date, ISO with Z, epoch) or an age such as 90d."""
    runner.invoke(app, ["history", "ingest", str(history_repo.root)])
    everything = _json(["churn"])
    assert _json(["churn", "--since", "1973-03-03T09:46:40Z"]) == everything
    assert _json(["churn", "--since", "100000000"]) == everything  # epoch seconds, the same moment
    assert _json(["churn", "--since", "2999-01-01"]) == []
    bad = runner.invoke(app, ["history", "churn", "--since", "last tuesday"])
    assert bad.exit_code == 2
    assert bad.output.strip().splitlines() == [
        "error: not a date: 'last tuesday' (use 2024-03-01, 2024-03-01T12:00:00Z or epoch seconds, "
        "or an age such as 90d)"
    ]


def test_churn_and_hotspots_until_show_the_history_as_it_stood(history_repo) -> None:
    """`--until` on the command line gives what the query functions give for that moment."""
    from datetime import UTC, datetime

    from lore.history import queries as q
    from support.history_repo import DAY, T0

    runner.invoke(app, ["history", "ingest", str(history_repo.root)])
    repo = resolve_repo(str(history_repo.root))
    cut = datetime.fromtimestamp(T0 + 5 * DAY, UTC).isoformat()
    then = _json(["churn", "-n", "100", "--until", cut])
    assert then == q.churn(repo, n=100, until=cut) and then != _json(["churn", "-n", "100"])
    assert _json(["hotspots", "--days", "3", "--until", cut]) == q.hotspots(repo, days=3, until=cut)
    bad = runner.invoke(app, ["history", "hotspots", "--until", "someday"])
    assert bad.exit_code == 2 and "not a date: 'someday'" in bad.output
