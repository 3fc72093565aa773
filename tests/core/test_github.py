"""The GitHub REST client against a real local server: pages, cache, 304s, limits, errors."""

from __future__ import annotations

import pytest

from lore.core.errors import NotFound
from lore.core.github import GitHubClient, GitHubError, discover_token, parse_link
from support.clock import FakeClock
from support.fake_github import FakeGitHub

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def gh():
    server = FakeGitHub("acme", "widget", per_page=2, clock=FakeClock())
    for n in range(1, 6):
        server.add_issue(n, f"Issue {n}", created_at=f"2024-01-0{n}T00:00:00Z")
    with server:
        yield server


def _client(gh: FakeGitHub, **kw) -> tuple[GitHubClient, list[tuple[float, str]]]:
    """A client on the server's fake clock: every wait is recorded and passes at once."""
    clock = gh.fake_clock
    assert clock is not None
    kw.setdefault("backoff", 0.01)
    client = GitHubClient(
        base_url=gh.url, token=kw.pop("token", None), sleep=clock.sleep, clock=clock.now, **kw
    )
    return client, clock.waits


def test_pagination_follows_link_headers(gh: FakeGitHub) -> None:
    client, _ = _client(gh)
    numbers = [i["number"] for i in client.all("repos/acme/widget/issues", {"state": "all"})]
    assert numbers == [1, 2, 3, 4, 5]
    assert len(gh.requests("/issues")) == 3  # 2 + 2 + 1 per page
    assert parse_link('<http://x/a?page=2>; rel="next", <http://x/a?page=3>; rel="last"') == {
        "next": "http://x/a?page=2",
        "last": "http://x/a?page=3",
    }


def test_rerun_is_served_from_the_cache(gh: FakeGitHub) -> None:
    first, _ = _client(gh)
    first.all("repos/acme/widget/issues")
    sent = len(gh.log)
    again, _ = _client(gh)
    assert [i["number"] for i in again.all("repos/acme/widget/issues")] == [1, 2, 3, 4, 5]
    assert len(gh.log) == sent and again.counters.cache_hits == 3 and again.counters.network == 0


def test_stale_cache_is_revalidated_with_etags(gh: FakeGitHub) -> None:
    first, _ = _client(gh)
    first.get("repos/acme/widget/issues/1")
    revalidate, _ = _client(gh, ttl=0)
    res = revalidate.get("repos/acme/widget/issues/1")
    assert res.from_cache and res.data["title"] == "Issue 1"
    assert gh.log[-1][1] == 304 and revalidate.counters.not_modified == 1
    gh.items[1].data["title"] = "Renamed"
    fresh = revalidate.get("repos/acme/widget/issues/1")
    assert not fresh.from_cache and fresh.data["title"] == "Renamed"


def test_502_then_success(gh: FakeGitHub) -> None:
    gh.trouble("/issues/2", "502", times=2)
    client, waits = _client(gh)
    assert client.get("repos/acme/widget/issues/2").data["number"] == 2
    assert client.counters.retries == 2 and len(waits) == 2
    assert [s for _p, s in gh.log[-3:]] == [502, 502, 200]


def test_dropped_connection_is_retried(gh: FakeGitHub) -> None:
    gh.trouble("/issues/3", "drop")
    client, _ = _client(gh)
    assert client.get("repos/acme/widget/issues/3").data["number"] == 3
    assert client.counters.retries == 1


def test_gives_up_with_a_clear_error(gh: FakeGitHub) -> None:
    gh.trouble("/issues/4", "502", times=10)
    client, _ = _client(gh, max_retries=2)
    with pytest.raises(GitHubError, match=r"gave up .* server error 502"):
        client.get("repos/acme/widget/issues/4")


def test_secondary_limit_waits_retry_after(gh: FakeGitHub) -> None:
    gh.trouble("/issues/5", "secondary", seconds=1)
    client, waits = _client(gh)
    assert client.get("repos/acme/widget/issues/5").data["number"] == 5
    assert waits == [(1.0, "secondary rate limit (Retry-After)")]


def test_primary_limit_waits_until_reset() -> None:
    with FakeGitHub(rate_limit=2, reset_in=600, clock=FakeClock()) as gh:
        gh.add_issue(1, "One")
        client, waits = _client(gh)
        for _ in range(3):
            client.get("repos/acme/widget/issues/1", {"n": _})  # distinct URLs, no cache
        assert len(waits) == 1 and waits[0][1].startswith("primary rate limit")
        assert 600 <= waits[0][0] <= 603  # until the server's reset, not a guess
        assert [status for _path, status in gh.log] == [200, 200, 200]  # the third after the reset


def test_errors_are_one_line(gh: FakeGitHub) -> None:
    client, _ = _client(gh)
    with pytest.raises(NotFound, match=r"not found on GitHub: /repos/acme/nope .*GITHUB_TOKEN"):
        client.get("repos/acme/nope")


def test_token_comes_from_the_environment(gh: FakeGitHub, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    token, source = discover_token(gh.url)
    assert (token, source) == ("t0ken", "GITHUB_TOKEN")
    client, _ = _client(gh, token=token)
    client.get("repos/acme/widget")
    assert gh.auth_seen[-1] == "Bearer t0ken"
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.delenv("GH_TOKEN", raising=False)
    assert discover_token(gh.url) == (None, "none")  # never asks `gh` for a foreign host


def _port_nobody_listens_on() -> int:
    import socket

    with socket.socket() as probe:  # the kernel hands out a free port; closing it leaves it unused
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_is_offline_at_once_without_retries() -> None:
    waits: list[tuple[float, str]] = []
    client = GitHubClient(
        base_url=f"http://127.0.0.1:{_port_nobody_listens_on()}", sleep=lambda s, why: waits.append((s, why))
    )
    with pytest.raises(GitHubError, match="looks offline") as caught:
        client.get("repos/acme/widget/issues")
    assert waits == [] and client.counters.retries == 0 and client.counters.network == 1
    assert "asks to wait" not in str(caught.value) and "\n" not in str(caught.value)
