"""`lore train`: the user's own documents become active rules at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import make_repo
from lore.cli.app import app
from lore.rules import service
from lore.rules.intake.train import train

STYLE_GUIDE = """# Backend style guide

## Errors
- Raise domain errors, never bare `Exception`.
- Log an error once, where it is handled.

## HTTP
Every outbound HTTP call sets an explicit timeout. Retries use exponential backoff with jitter.

<!-- draft: add the section about metrics -->
"""


def test_documents_become_active_trained_rules(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"docs/style.md": STYLE_GUIDE, "src/api/x.py": ""})
    project, _ = service.register_project(repo)
    outside = tmp_path / "design.txt"
    outside.write_text("Services talk to each other only through the message bus.\n")
    report = train(project, [repo / "docs/style.md", outside])
    rules = {r.text: r for r in service.list_rules(project)}
    assert set(rules) == {
        "Raise domain errors, never bare `Exception`.",
        "Log an error once, where it is handled.",
        "Every outbound HTTP call sets an explicit timeout. Retries use exponential backoff with jitter.",
        "Services talk to each other only through the message bus.",
    }
    assert all(r.status == "active" and r.source == "trained" for r in rules.values())
    errors = rules["Log an error once, where it is handled."]
    assert errors.title == "Errors: Log an error once, where it is handled" and errors.evidence[0] == {
        "file": "docs/style.md",
        "line": 5,
        "kind": "trained",
    }
    bus = rules["Services talk to each other only through the message bus."]
    assert bus.evidence[0]["file"] == str(outside.resolve())
    assert any("HTML comment stripped" in n for n in report.files[0].notes)
    again = train(project, [repo / "docs/style.md"])
    assert again.saved.added == [] and again.saved.repeats == 3


def test_scope_option_and_refusals(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "shop", {"src/api/x.py": "", "guide.md": "- Use tabs\u202e here.\n- Keep handlers thin.\n"}
    )
    project, _ = service.register_project(repo)
    report = train(project, [repo / "guide.md"], scope="src/api")
    (rule,) = service.list_rules(project)
    assert rule.text == "Keep handlers thin." and rule.scope == ("src/api/",)
    assert "U+202E" in report.files[0].refused[0]


def test_train_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    repo = make_repo(tmp_path / "shop", {"docs/style.md": STYLE_GUIDE})
    service.register_project(repo)
    result = CliRunner().invoke(app, ["train", str(repo / "docs/style.md"), "--name", "shop"])
    assert result.exit_code == 0, result.output
    assert "3 new active rule(s)" in result.output
    missing = CliRunner().invoke(app, ["train", str(repo / "nope.md"), "--name", "shop"])
    assert missing.exit_code == 3 and "no such file or folder" in missing.output  # one rule: exit 3
    binary = repo / "logo.png"
    binary.write_bytes(b"\x89PNG")
    wrong = CliRunner().invoke(app, ["train", str(binary), "--name", "shop"])
    assert wrong.exit_code == 2 and "not .png files" in wrong.output


def test_train_and_memorize_print_one_report_shape(tmp_path: Path) -> None:
    """Both imports share one report: the same JSON keys, every piece counted once."""
    repo = make_repo(
        tmp_path / "shop", {"docs/style.md": STYLE_GUIDE, "AGENTS.md": "- Keep handlers thin.\n"}
    )
    service.register_project(repo)
    trained = CliRunner().invoke(app, ["train", str(repo / "docs/style.md"), "--name", "shop", "--json"])
    memorized = CliRunner().invoke(app, ["memorize", str(repo), "--json"])
    assert trained.exit_code == 0 and memorized.exit_code == 0, trained.output + memorized.output
    a, b = json.loads(trained.stdout), json.loads(memorized.stdout)
    assert set(a) == set(b)
    for report in (a, b):
        assert report["added"] + report["merged"] + report["repeats"] + report["refused"] == report["pieces"]
        assert len(report["rules"]) == report["added"]
    assert a["added"] == 3 and {r.id for r in service.list_rules(service.find_project("shop"))} >= set(
        a["rules"]
    )
