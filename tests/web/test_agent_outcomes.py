"""The gate's decision on an agent's proposal, shown next to the rule (API and page)."""

from __future__ import annotations

import pytest

from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.gate.trust import set_override
from lore.rules.models import Project

pytestmark = pytest.mark.e2e


def _propose(project: Project, text: str) -> None:
    """What an agent does over MCP: ask for rules about a file, then propose one."""
    agent = AgentSession(cwd=project.path, client="test")
    agent.get_rules(["src/api/orders.py"], task="list orders")
    agent.propose_rules([{"text": text}], paths=["src/api/orders.py"])


def test_rules_carry_what_the_gate_decided(ui, shop) -> None:
    _propose(shop, "Return 404 for unknown order ids.")
    set_override(shop.path, "untrust")
    _propose(shop, "Log every request once.")
    with ui.client() as client:
        rules = {r["text"]: r for r in client.get("/api/projects/shop/rules").json()}
    activated = rules["Return 404 for unknown order ids."]
    waiting = rules["Log every request once."]
    assert activated["auto"] and activated["agent"]["outcome"] == "activated"
    assert waiting["status"] == "pending" and waiting["agent"]["outcome"] == "waiting"
    assert waiting["agent"]["reason"].startswith("not your repository")
    assert rules["Use four spaces for indentation."]["agent"] is None  # not from an agent's session


def test_pending_queue_shows_why_a_proposal_waits(page, ui, shop) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    set_override(shop.path, "untrust")
    _propose(shop, "Log every request once.")
    waiting = next(r for r in service.list_rules(shop, status="pending") if r.source == "agent")
    page.goto(ui.url)
    page.locator('.tabs a[data-tab="pending"]').click()
    expect(page.locator(f'li.rule[data-id="{waiting.id}"] .agent')).to_contain_text(
        "the gate left it waiting: not your repository"
    )
