"""`lore export`: active rules in each client's format, marked generated, re-exports idempotent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import make_repo
from lore.cli.app import app
from lore.rules import service
from lore.rules.export import export_rules
from lore.rules.intake.frontmatter import split_front_matter
from lore.rules.intake.memorize import memorize

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def project(tmp_path: Path):
    repo = make_repo(
        tmp_path / "shop",
        {"src/api/orders.py": "", "web/app.ts": "", "AGENTS.md": "# Shop\n\nKeep hand-written notes.\n"},
    )
    project, _ = service.register_project(repo)
    service.add_rule(project, "Never commit secrets or API keys.", title="Secrets")
    service.add_rule(project, "Validate every request body.", scope="src/api", title="Validation")
    service.add_rule(project, "Prefer `unknown` over `any`.", scope="**/*.ts, **/*.tsx")
    service.add_rule(project, "Waiting for approval.", status="pending")
    return project


def test_copilot_files_per_scope_with_apply_to(project) -> None:
    result = export_rules(project, "copilot")
    folder = project.path / ".github/instructions"
    files = {p.name: p.read_text() for p in folder.iterdir()}
    assert set(files) == {
        "lore-global.instructions.md",
        "lore-src-api.instructions.md",
        "lore-ts-tsx.instructions.md",
    }
    api = split_front_matter(files["lore-src-api.instructions.md"])
    assert api.values["applyTo"] == "src/api/**" and api.values["generated-by"] == "lore"
    assert "- Validate every request body." in api.body and "### Validation" in api.body
    assert split_front_matter(files["lore-global.instructions.md"]).values["applyTo"] == "**"
    assert split_front_matter(files["lore-ts-tsx.instructions.md"]).values["applyTo"] == "**/*.ts,**/*.tsx"
    assert "Waiting for approval." not in "".join(files.values())
    assert result.rules == 3 and len(result.written) == 3
    again = export_rules(project, "copilot")
    assert again.written == [] and len(again.unchanged) == 3


def test_cursor_files_and_stale_ones_removed(project) -> None:
    export_rules(project, "cursor")
    folder = project.path / ".cursor/rules"
    mine = folder / "keep-me.mdc"
    mine.write_text("---\nglobs: **/*.py\n---\nA hand-written Cursor rule.\n")
    text = (folder / "lore-global.mdc").read_text()
    assert "alwaysApply: true" in text and "globs:\n" in text
    ts = (folder / "lore-ts-tsx.mdc").read_text()
    assert "globs: **/*.ts,**/*.tsx\n" in ts and "alwaysApply: false" in ts
    service.reject(next(r for r in service.list_rules(project) if r.text.startswith("Prefer")))
    result = export_rules(project, "cursor")
    assert [p.name for p in result.removed] == ["lore-ts-tsx.mdc"]
    assert mine.exists()


def test_agents_and_claude_blocks_keep_the_rest_of_the_file(project) -> None:
    export_rules(project, "agents")
    text = (project.path / "AGENTS.md").read_text()
    assert text.startswith("# Shop\n\nKeep hand-written notes.\n")
    assert "### When editing `src/api/**`" in text and "### Everywhere" in text
    service.add_rule(project, "Log with the request id.")
    export_rules(project, "agents")
    updated = (project.path / "AGENTS.md").read_text()
    assert updated.count("lore:begin") == 1 and "Log with the request id." in updated
    assert updated.startswith("# Shop\n\nKeep hand-written notes.\n")
    export_rules(project, "claude")
    assert (project.path / "CLAUDE.md").read_text().startswith("<!-- lore:begin")


def test_exported_rules_are_not_memorized_back(project) -> None:
    for target in ("copilot", "cursor", "agents", "claude"):
        export_rules(project, target)
    report = memorize(project.path)
    assert [r.text for r in report.saved.added] == ["Keep hand-written notes."]


def test_out_folder_and_errors(project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    out = tmp_path / "exported"
    result = CliRunner().invoke(
        app, ["export", "--name", project.name, "--to", "cursor", "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["written"]) == 3 and (out / ".cursor/rules/lore-global.mdc").exists()
    bad = CliRunner().invoke(app, ["export", "--name", project.name, "--to", "emacs"])
    assert bad.exit_code == 2 and "unknown export target 'emacs'" in bad.output
    nope = CliRunner().invoke(app, ["export", "--name", "nope", "--to", "cursor"])
    assert nope.exit_code == 3


def test_rules_imported_from_agents_md_are_not_written_back_into_it(tmp_path: Path) -> None:
    agents = "# Shop\n\n- Run the linter before every commit.\n- Keep functions under 40 lines.\n"
    repo = make_repo(tmp_path / "shop", {"src/a.py": "", "AGENTS.md": agents})
    memorize(repo)
    project = service.find_project(str(repo))
    for rule in service.list_rules(project):
        service.approve(rule)
    service.add_rule(project, "Never commit secrets or API keys.", title="Secrets")
    service.add_rule(project, "Keep functions under 40 lines.")  # also hand-written already

    result = export_rules(project, "agents")
    text = (repo / "AGENTS.md").read_text()
    assert text.count("Run the linter before every commit.") == 1
    assert text.count("Keep functions under 40 lines.") == 1
    assert "Never commit secrets or API keys." in text
    assert (result.rules, result.left_out) == (1, 3)
    assert export_rules(project, "agents").written == []  # stable on a second run

    # another client does not read AGENTS.md by itself: it gets the imported rules too
    cursor = export_rules(project, "cursor")
    exported = "".join(p.read_text() for p in cursor.written)
    assert "Run the linter before every commit." in exported and cursor.left_out == 0
    # a copy written elsewhere is a different file: nothing stands in it yet
    elsewhere = export_rules(project, "agents", tmp_path / "copy")
    assert elsewhere.left_out == 0 and "Run the linter" in (tmp_path / "copy/AGENTS.md").read_text()
