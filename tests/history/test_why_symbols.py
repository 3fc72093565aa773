"""Identifiers through the pickaxe: a question naming an identifier finds the commit that
brought it in, though that commit's message never says the name; the index is written at
ingest, read again only for new commits, and no program a repository's config names runs."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from lore.history.why.service import gather, units
from lore.history.why.store import open_why
from lore.history.why.symbols import named_in
from lore.history.why.symbols_store import SymbolStore
from support.history_repo import HistoryRepo, lines, run_git

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

RENDERER = "def draw(canvas):\n    return canvas\n"


def _gizmo(root: Path) -> tuple[HistoryRepo, dict[str, str]]:
    """A renderer whose `frobnicate_widget` came in with "Rework the drawing loop"; the
    commits whose messages share the question's words never added it."""
    r = HistoryRepo(root)
    shas = {"start": r.commit("Add the renderer", {"gizmo/renderer.py": RENDERER})}
    frob = RENDERER + "\n\ndef frobnicate_widget(widget):\n    return widget.scaled(2)\n"
    shas["rework"] = r.commit("Rework the drawing loop", {"gizmo/renderer.py": frob})
    shas["cache"] = r.commit(
        "Make the renderer use the cache\n\nThe renderer redraws less when it uses the cache.",
        {"gizmo/cache.py": lines(12, "cache")},
    )
    calls = "from gizmo.renderer import frobnicate_widget\n" + "frobnicate_widget(w)\n" * 3
    shas["calls"] = r.commit("Draw the toolbar", {"gizmo/toolbar.py": calls})
    shas["cli"] = r.commit("Use the renderer in the command line", {"gizmo/cli.py": lines(8, "cli")})
    return r, shas


def test_a_named_identifier_ranks_the_commit_that_introduced_it_first(tmp_path: Path) -> None:
    r, shas = _gizmo(tmp_path / "gizmo")
    ingest_git(r.root)
    report = gather(resolve_repo(str(r.root)), "why does the renderer use frobnicate_widget?")
    ranked = units(report.evidence)
    assert ranked[0] == f"commit:{shas['rework']}"
    assert "symbols" in report.evidence[0].via
    # only commits whose diffs name it come from that arm
    by_unit = {e.unit: e for e in report.evidence}
    assert "symbols" not in by_unit[f"commit:{shas['start']}"].via


def test_the_index_reads_only_new_commits_and_keeps_each_first_commit(tmp_path: Path) -> None:
    r, shas = _gizmo(tmp_path / "gizmo")
    ingest_git(r.root)
    repo = resolve_repo(str(r.root))
    symbols = SymbolStore(open_why().store)
    assert symbols.scanned(repo.id) == shas["cli"]
    later = r.commit(
        "Add the status bar",
        {"gizmo/status.py": "frobnicate_widget(w)\n" * 5 + "ShinyPalette = None\n"},
    )
    ingest_git(r.root)
    assert symbols.scanned(repo.id) == later
    found = {f.symbol: f for f in symbols.introduced(repo.id, ["frobnicate_widget", "shinypalette"], None)}
    frob = found["frobnicate_widget"]
    assert frob.commits == 3  # the rework, the toolbar, and now the status bar
    first, most = frob.nodes
    commits = (
        open_why()
        .store.connect()
        .execute("SELECT node_id, sha FROM history_commits WHERE node_id IN (?, ?)", (first, most))
    )
    by_node = dict(commits.fetchall())
    assert by_node[first] == shas["rework"] and by_node[most] == later  # five calls beat three
    assert found["shinypalette"].commits == 1


def test_an_identifier_most_commits_add_pulls_nothing(tmp_path: Path) -> None:
    """A name the whole project keeps adding (its own package, say) singles out no change."""
    r = HistoryRepo(tmp_path / "busy")
    for i in range(8):
        r.commit(f"Add page {i}", {f"busy/p{i}.py": f"from busy_core import thing\nvalue_{i} = thing\n"})
    ingest_git(r.root)
    report = gather(resolve_repo(str(r.root)), "why does every page import busy_core?")
    assert all("symbols" not in e.via for e in report.evidence)


def test_no_diff_program_the_repository_names_runs(tmp_path: Path) -> None:
    r, _shas = _gizmo(tmp_path / "gizmo")
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f'#!/bin/sh\ntouch {marker}\ncat "$1"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (r.root / ".gitattributes").write_text("*.py diff=evil\n", encoding="utf-8")
    run_git(r.root, "config", "diff.evil.textconv", str(script))
    run_git(r.root, "config", "diff.external", str(script))
    r.commit("Add attributes", {".gitattributes": "*.py diff=evil\n"})
    ingest_git(r.root)
    assert not marker.exists()
    assert SymbolStore(open_why().store).introduced(resolve_repo(str(r.root)).id, ["frobnicate_widget"], None)


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("why does X use frobnicate_widget?", ["frobnicate_widget"]),
        ("why is HTTPException raised here", ["httpexception"]),
        ("why does click.echo strip colours", ["click.echo"]),
        ("why was --no-color added", ["--no-color"]),
        ("why does self.cache_key change", ["cache_key"]),
        ("why does the parser read the whole file", []),
    ],
)
def test_what_a_question_names_is_told_by_its_form(question: str, names: list[str]) -> None:
    assert named_in(question) == names
