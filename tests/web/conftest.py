"""Fixtures for the web UI: a real uvicorn server on 127.0.0.1, a real project with rules, and
headless Chromium.

The server runs in a thread of the test process, so it reads the same `$LORE_HOME` (the autouse
fixture gives each test its own) and the test can check every change through the rules service.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from conftest import make_repo
from lore.rules import service
from lore.rules.models import Project
from lore.web.guard import TOKEN_HEADER
from lore.web.server import url_for
from support.ui_server import running_ui


@dataclass
class RunningUI:
    port: int
    token: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return url_for(self.port, self.token)

    def client(self, token: str | None = None) -> httpx.Client:
        """An HTTP client that sends this run's token (or the one given) on every call."""
        headers = {TOKEN_HEADER: self.token if token is None else token}
        return httpx.Client(base_url=self.base, headers=headers, timeout=30, trust_env=False)


@pytest.fixture
def ui() -> Iterator[RunningUI]:
    """`lore serve` as it runs for a user: bound to 127.0.0.1, a fresh token, Host checked."""
    with running_ui() as (port, token):
        yield RunningUI(port, token)


@pytest.fixture
def shop(tmp_path: Path) -> Project:
    """A real git repository with two sections, registered, with active and pending rules."""
    repo = make_repo(
        tmp_path / "shop",
        {
            "src/api/orders.py": "def list_orders():\n    return []\n",
            "src/db/models.py": "class Order:\n    pass\n",
            "tests/test_orders.py": "def test_orders():\n    assert True\n",
        },
    )
    project, _ = service.register_project(repo)
    service.add_rule(
        project,
        "Paginate list endpoints with limit and cursor.",
        title="Cursor pagination",
        triggers="pagination, list",
        scope="src/api",
    )
    service.add_rule(
        project, "Never commit secrets; read them from the environment.", title="No secrets", always=True
    )
    service.add_rule(
        project,
        "Every migration must be reversible.",
        status="pending",
        source="learn",
        evidence=[
            {
                "file": "src/db/models.py",
                "line": 1,
                "author": "maintainer",
                "url": "https://github.com/acme/shop/pull/7#discussion_r1",
            }
        ],
    )
    service.add_rule(
        project,
        "Use four spaces for indentation.",
        title="Indent",
        status="active",
        source="agent",
        auto=True,
    )
    return project


CHROMIUM = Path(os.environ.get("LORE_CHROMIUM", "/usr/bin/chromium"))
NO_CHROMIUM = f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)"


def browser_required() -> bool:
    """CI must run the browser tests: there a missing Chromium fails them instead of skipping.

    `.ci/run` sets LORE_REQUIRE_BROWSER=1; most CI services set CI=true."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return ci or os.environ.get("LORE_REQUIRE_BROWSER", "") not in ("", "0")


ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 30_000  # an upper bound for slow machines, not a measurement


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """One headless Chromium (Debian's, driven by Playwright) per test module.

    Module scope, not session: Playwright's sync API keeps an event loop on the main thread
    while it runs, which would break any later test that starts its own loop.
    """
    if not CHROMIUM.exists():
        if browser_required():
            pytest.fail(f"{NO_CHROMIUM}; CI requires them (CI or LORE_REQUIRE_BROWSER is set)", pytrace=False)
        pytest.skip(NO_CHROMIUM)
    playwright = pytest.importorskip("playwright.sync_api")
    playwright.expect.set_options(timeout=WAIT_MS)
    with playwright.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            args=ARGS,
            viewport={"width": 1280, "height": 900},
        )
        context.set_default_timeout(WAIT_MS)
        yield context
        context.close()


@pytest.fixture
def page(browser) -> Iterator:
    """A fresh tab that accepts confirmations and fails the test on any script error."""
    tab = browser.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("dialog", lambda dialog: dialog.accept())
    yield tab
    tab.close()
    assert not errors, errors


def pytest_terminal_summary(terminalreporter) -> None:
    """Say at the end of a run, not only with -rs, that the browser tests did not run and why."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if NO_CHROMIUM in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} browser test(s) skipped: {NO_CHROMIUM}", yellow=True, bold=True
        )
