"""`lore review lint` on a real repository with real rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import make_repo
from lore.cli.app import app
from lore.rules import service
from lore.rules.lint import contradiction, lint_rules


def _project(tmp_path: Path):
    repo = make_repo(tmp_path / "shop", {"src/api/orders.py": "x = 1\n", "src/db/models.py": "y = 2\n",
                                         "web/app.ts": "let a = 1\n"})
    return service.register_project(repo)[0]


def _kinds(report) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in report.findings:
        out.setdefault(f.kind, []).append(f)
    return out


def test_each_check_finds_what_it_should(tmp_path: Path) -> None:
    project = _project(tmp_path)
    add = service.add_rule
    tabs = add(project, "Use tabs for indentation in Python files.", scope="**/*.py", title="Indent")
    spaces = add(project, "Use spaces for indentation in Python files.", scope="src/api", title="Indent")
    dup1 = add(project, "Never commit secrets or API keys.", title="Secrets")
    dup2 = add(project, "never commit secrets or API keys", title="Secrets again")
    near1 = add(project, "Every outbound HTTP call sets an explicit timeout in seconds.", title="Timeouts")
    near2 = add(project, "Every outbound HTTP call must set an explicit timeout in seconds.", title="HTTP")
    dead = add(project, "Migrations are reversible.", scope="migrations/**/*.sql", title="Migrations")
    partly = add(project, "Components are small.", scope="web/**/*.ts, mobile/**/*.ts", title="Components")
    untagged = add(project, "Log with the request id.")
    unrelated = add(project, "Use spaces for indentation in TypeScript files.", scope="**/*.ts", title="TS")
    add(project, "Pending rules are not linted unless asked.", status="pending", scope="nowhere/")

    report = lint_rules(project)
    kinds = _kinds(report)
    assert report.rules == 10
    dead_scopes = {f.rule_ids[0]: f.message for f in kinds["dead_scope"]}
    assert set(dead_scopes) == {dead.id, partly.id}
    assert "never served" in dead_scopes[dead.id] and "never served" not in dead_scopes[partly.id]
    assert [sorted(f.rule_ids) for f in kinds["duplicate"]] == [sorted([dup1.id, dup2.id])]
    assert [sorted(f.rule_ids) for f in kinds["near_duplicate"]] == [sorted([near1.id, near2.id])]
    pairs = [sorted(f.rule_ids) for f in kinds["contradiction"]]
    assert pairs == [sorted([tabs.id, spaces.id])]  # the TypeScript rule's scope does not overlap
    assert unrelated.id not in kinds["contradiction"][0].rule_ids
    assert kinds["untagged"][0].rule_ids == [untagged.id]
    assert "always_cost" not in kinds
    with_pending = lint_rules(project, include_pending=True)
    assert with_pending.rules == 11 and len(_kinds(with_pending)["dead_scope"]) == 3


def test_always_rules_over_the_budget_warn(tmp_path: Path) -> None:
    project = _project(tmp_path)
    for i in range(10):
        service.add_rule(project, f"Architecture invariant {i}: " + "the service layer owns transactions. " * 10,
                         title=f"Invariant {i}", always=True)
    report = lint_rules(project)
    (cost,) = _kinds(report)["always_cost"]
    assert report.always_tokens > 1000 and f"about {report.always_tokens} tokens" in cost.message
    assert len(cost.rule_ids) == 10


def test_contradiction_checks() -> None:
    assert contradiction("Use single quotes.", "Use double quotes.")
    assert contradiction("Keep lines within 80 characters.", "Keep lines within 120 characters.")
    assert contradiction("Do not use global state in handlers.", "Use global state in handlers.")
    assert contradiction("Write tests first.", "Keep handlers small.") is None


def test_lint_command_exit_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    project = _project(tmp_path)
    service.add_rule(project, "Validate request bodies.", title="Validation", scope="src/api")
    clean = CliRunner().invoke(app, ["review", "--name", project.name, "lint"])
    assert clean.exit_code == 0, clean.output
    assert "1 rule(s) checked" in clean.output and "0 warning(s)" in clean.output
    service.add_rule(project, "Validate request bodies.", title="Validation")
    dirty = CliRunner().invoke(app, ["review", "--name", project.name, "lint", "--json"])
    assert dirty.exit_code == 1
    assert [f["kind"] for f in json.loads(dirty.output)["findings"]] == ["duplicate"]
