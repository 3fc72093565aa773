"""Every answer of the web UI, errors included, is JSON `{error}` with the security headers:
a damaged or read-only store (503), an unknown route (404), and a bug in a route (500)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from lore.rules.models import Project
from lore.web.app import create_app
from lore.web.guard import CSP, SECURITY_HEADERS, TOKEN_HEADER
from support.damage import digest, scramble_table, settle

pytestmark = pytest.mark.e2e


def _has_security_headers(answer: httpx.Response) -> None:
    assert answer.headers["content-security-policy"] == CSP
    for name, value in SECURITY_HEADERS:
        assert answer.headers[name.decode()] == value.decode()


def test_damaged_store_answers_503_with_the_reason_and_the_headers(
    ui, shop: Project, lore_home: Path
) -> None:
    db = lore_home / "lore.db"
    scramble_table(db, "rules")
    before = digest(db)
    with ui.client() as client:
        listed = client.get("/api/projects/shop/rules")
        added = client.post("/api/projects/shop/rules", json={"text": "Use httpx for HTTP calls."})
    for answer in (listed, added):
        assert answer.status_code == 503
        assert answer.json()["error"].startswith(f"the store at {db} is damaged (")
        _has_security_headers(answer)
    settle(db)
    assert digest(db) == before


def test_read_only_store_reads_and_refuses_writes_with_503(ui, shop: Project, lore_home: Path) -> None:
    db = lore_home / "lore.db"
    with ui.client() as client:
        assert client.get("/api/projects/shop/rules").status_code == 200  # every table exists
    (lore_home / "config.json").write_text(json.dumps({"store": {"read_only": True}}))
    settle(db)  # the next request opens the store afresh, read-only
    before = digest(db)
    with ui.client() as client:
        listed = client.get("/api/projects/shop/rules")
        added = client.post("/api/projects/shop/rules", json={"text": "Use httpx for HTTP calls."})
    assert listed.status_code == 200 and len(listed.json()) >= 3, listed.text
    assert added.status_code == 503 and "is read-only" in added.json()["error"]
    _has_security_headers(added)
    settle(db)
    assert digest(db) == before


def test_unknown_route_and_wrong_method_answer_json_with_the_headers(ui, shop: Project) -> None:
    with ui.client() as client:
        missing = client.get("/api/no-such-thing")
        page = client.get("/no-such-page")
        wrong = client.delete("/api/projects")
    assert missing.status_code == page.status_code == 404 and wrong.status_code == 405
    for answer in (missing, page, wrong):
        assert answer.json() == {
            "error": answer.reason_phrase.replace("Method Not Allowed", "Method Not Allowed")
        }
        _has_security_headers(answer)


def test_a_bug_in_a_route_still_answers_json_with_the_headers() -> None:
    """Starlette's own 500 page sits outside the guard; the guard must answer for it."""
    token = "t" * 24
    app = create_app(token)

    @app.get("/api/broken")
    def broken() -> None:
        raise RuntimeError("secret detail from inside")

    with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
        answer = client.get("/api/broken", headers={TOKEN_HEADER: token})
    assert answer.status_code == 500
    assert answer.json() == {"error": "internal error; see the server's log"}
    assert "secret detail" not in answer.text
    _has_security_headers(answer)
