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

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


def _project(tmp_path: Path):
    repo = make_repo(
        tmp_path / "shop",
        {"src/api/orders.py": "x = 1\n", "src/db/models.py": "y = 2\n", "web/app.ts": "let a = 1\n"},
    )
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
        service.add_rule(
            project,
            f"Architecture invariant {i}: " + "the service layer owns transactions. " * 10,
            title=f"Invariant {i}",
            always=True,
        )
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


def test_tabs_against_spaces_is_found_whatever_else_the_rules_say(tmp_path: Path) -> None:
    project = _project(tmp_path)
    add = service.add_rule
    four = add(project, "Use four spaces for indentation.", scope="**/*.py", title="Indent")
    tabs = add(project, "Use tabs for indentation.", scope="**/*.py", title="Tabs")
    python = add(project, "Indent Python code with 4 spaces.", scope="src/", title="Python indent")
    agrees = add(project, "Never indent with tabs.", scope="web/**/*.ts", title="No tabs")
    add(project, "Use spaces around operators in TypeScript.", scope="web/**/*.ts", title="Operators")
    for name in ("billing", "orders", "search", "payments", "auth", "reports", "mailer", "cache"):
        add(
            project,
            f"Document the {name} module and its indentation helpers in the README.",
            title=f"Docs {name}",
        )  # sharing words with the others, contradicting none
    pairs = {frozenset(f.rule_ids) for f in _kinds(lint_rules(project))["contradiction"]}
    assert pairs == {frozenset({four.id, tabs.id}), frozenset({python.id, tabs.id})}
    assert all(agrees.id not in pair for pair in pairs)


@pytest.mark.parametrize("block", [1300, 37])
def test_the_pre_filter_keeps_every_pair_the_checks_flag(
    shared_data: Path, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On real rules plus known contradictions, all in one scope, the pairs lint compares include
    every pair the gate's check flags when all pairs are compared (in one block, and in many)."""
    from lore.rules import lint

    monkeypatch.setattr(lint, "BLOCK", block)
    from lore.rules.gate.contradiction import contradicts
    from lore.rules.intake.frontmatter import split_front_matter
    from lore.rules.intake.splitting import split_markdown
    from lore.rules.lint import _related_pairs
    from lore.rules.models import Rule

    texts: list[str] = []
    for path in sorted((shared_data / "rules" / "cursor" / "rules").glob("*.mdc"))[:40]:
        body = split_front_matter(path.read_text(encoding="utf-8", errors="replace")).body
        texts += [p.text for p in split_markdown(body).pieces][:8]
    texts += [
        "Use four spaces for indentation.",
        "Use tabs for indentation.",
        "Indent Python code with 4 spaces.",
        "Keep lines within 80 characters.",
        "Keep lines within 120 characters.",
        "Use single quotes for strings.",
        "Use double quotes for strings.",
        "Do not use global state in handlers.",
        "Use global state in handlers.",
        "Prefer named exports.",
        "Prefer default exports.",
        "Write components as functional components.",
        "Write components as class components.",
        "Make everything async.",
        "Keep it sync.",
        "Always prefer tabs.",
        "Use spaces.",
    ]
    rules = [
        Rule(id=f"r{i}", project_id=1, text=text, title="") for i, text in enumerate(dict.fromkeys(texts))
    ]
    flagged = {
        (i, j)
        for i in range(len(rules))
        for j in range(i + 1, len(rules))
        if contradicts(rules[i].text, rules[j].text)
    }
    assert len(flagged) >= 9
    compared = [(min(i, j), max(i, j)) for i, j in _related_pairs(rules)]
    assert len(compared) == len(set(compared))  # each pair once
    assert flagged <= set(compared)
