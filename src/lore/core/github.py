"""A small GitHub REST client: token discovery, pagination, rate limits, a content-hash cache.

Every response is stored in the Lore store under a hash of method + URL + parameters, so a
re-run within `ttl` sends nothing at all, and an older entry is revalidated with
`If-None-Match` (a 304 costs no rate-limit quota). Primary limits (`X-RateLimit-Remaining: 0`)
and secondary ones (`Retry-After`, 403/429) are waited out through a `sleep(seconds, reason)`
callback, which is where a CLI draws its countdown. Domain-agnostic: history reads issues
with it, the rules domain can read PR review comments with it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from lore.core.errors import LoreError, NotFound
from lore.core.store.base import Store
from lore.core.store.http_cache_store import HttpCacheStore

DEFAULT_API = "https://api.github.com"
DEFAULT_TTL = 24 * 3600
MAX_WAIT = 3700.0  # a primary limit resets within the hour

UNAUTHENTICATED_NOTE = (
    "no GitHub token (set GITHUB_TOKEN or run `gh auth login`): the API then allows 60 requests"
    " an hour instead of 5,000; each page of 100 issues and each issue's timeline is a request,"
    " so only a tiny slice can be read per hour; cached responses are reused on the next run"
)


class GitHubError(LoreError):
    """GitHub refused or could not be reached; the message says what to do."""


@dataclass
class Response:
    url: str
    status: int
    data: Any
    link: str | None = None
    from_cache: bool = False

    @property
    def next_url(self) -> str | None:
        return parse_link(self.link).get("next")


@dataclass
class Counters:
    network: int = 0  # requests sent
    cache_hits: int = 0  # answered from the store without a request
    not_modified: int = 0  # 304s: revalidated, body reused
    retries: int = 0
    waits: list[tuple[float, str]] = field(default_factory=list)


def api_base() -> str:
    return os.environ.get("LORE_GITHUB_API", DEFAULT_API).rstrip("/")


def discover_token(base_url: str | None = None) -> tuple[str | None, str]:
    """(token, where it came from): GITHUB_TOKEN, GH_TOKEN, else `gh auth token`.

    The `gh` CLI is only asked when talking to api.github.com, so a github.com token is never
    sent to another host unless the user put it in the environment.
    """
    for name in ("GITHUB_TOKEN", "GH_TOKEN"):
        if os.environ.get(name):
            return os.environ[name].strip(), name
    base = (base_url or api_base()).rstrip("/")
    if base == DEFAULT_API and shutil.which("gh"):
        try:
            out = subprocess.run(
                ["gh", "auth", "token"], capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None, "none"
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip(), "gh auth token"
    return None, "none"


def viewer_login(token: str, base_url: str | None = None, timeout: float = 5.0) -> str | None:
    """The login a token belongs to (`GET /user`), or None when GitHub cannot say.

    One short request, no retries and no cache: it answers a yes/no question (is this remote
    the user's?) whose verdict the caller remembers, and an offline machine must not wait.
    """
    url = (base_url or api_base()).rstrip("/") + "/user"
    headers = {
        "Accept": "application/vnd.github+json",
        "Authorization": f"Bearer {token}",
        "User-Agent": "lore-trust",
    }
    try:
        resp = httpx.get(url, headers=headers, timeout=timeout, follow_redirects=False)
        data = resp.json() if resp.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    login = data.get("login") if isinstance(data, dict) else None
    return login if isinstance(login, str) and login else None


def offline(url: str, exc: Exception) -> GitHubError:
    """A connection that never opened (refused, no DNS answer, no route): retrying or waiting
    cannot help, so it is said at once as what it most likely is."""
    host = urlsplit(url).netloc or url
    why = "timed out" if isinstance(exc, httpx.ConnectTimeout) else "failed"
    return GitHubError(
        f"cannot reach {host}: the connection {why} ({exc or type(exc).__name__}); "
        "this machine looks offline, try again when the network is back"
    )


_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="([^"]+)"')


def parse_link(header: str | None) -> dict[str, str]:
    """`Link: <url>; rel="next", <url>; rel="last"` -> {"next": url, "last": url}."""
    return {rel: url for url, rel in _LINK.findall(header or "")}


def cache_key(method: str, url: str) -> str:
    return hashlib.sha256(f"{method.upper()} {url}".encode()).hexdigest()


class GitHubClient:
    def __init__(
        self,
        *,
        base_url: str | None = None,
        token: str | None = None,
        store: Store | None = None,
        ttl: float = DEFAULT_TTL,
        sleep: Callable[[float, str], None] | None = None,
        clock: Callable[[], float] = time.time,
        max_retries: int = 5,
        backoff: float = 1.0,
        timeout: float = 30.0,
    ):
        self.base_url = (base_url or api_base()).rstrip("/")
        self.token = token
        self.cache = HttpCacheStore(store)
        self.ttl = ttl
        self.sleep = sleep or (lambda seconds, _reason: time.sleep(seconds))
        # the clock that rate-limit resets are compared with; a test passes the one its `sleep`
        # advances, so waiting out a limit is checked end to end without waiting
        self.clock = clock
        self.max_retries = max_retries
        self.backoff = backoff
        self.counters = Counters()
        self.remaining: int | None = None
        self.limit: int | None = None
        self.reset_at: float | None = None
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "lore-history",
        }
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx.Client(headers=headers, timeout=timeout, follow_redirects=True)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ requests

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        """The canonical URL (parameters sorted) a path and parameters stand for."""
        absolute = path.startswith(("http://", "https://"))
        full = path if absolute else self.base_url + "/" + path.lstrip("/")
        if params:
            clean = {k: str(v) for k, v in sorted(params.items()) if v is not None}
            full += ("&" if "?" in full else "?") + urlencode(clean)
        return full

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Response:
        """GET one resource, from the cache when fresh, else from GitHub (waiting out limits)."""
        url = self.url(path, params)
        key = cache_key("GET", url)
        cached = self.cache.get(key)
        if cached is not None and time.time() - cached.fetched_at < self.ttl:
            self.counters.cache_hits += 1
            return Response(url, cached.status, json.loads(cached.body), cached.link, from_cache=True)
        extra = {"If-None-Match": cached.etag} if cached is not None and cached.etag else {}
        attempt = 0
        while True:
            self._respect_primary_limit()
            try:
                self.counters.network += 1
                resp = self._http.get(url, headers=extra)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                raise offline(url, exc) from None
            except httpx.TransportError as exc:
                attempt = self._retry(attempt, f"network error ({type(exc).__name__})", url)
                continue
            self._note_limits(resp.headers)
            if resp.status_code == 304 and cached is not None:
                self.counters.not_modified += 1
                self.cache.touch(key)
                return Response(url, cached.status, json.loads(cached.body), cached.link, from_cache=True)
            if resp.status_code == 200:
                try:
                    data = resp.json()
                except ValueError:
                    attempt = self._retry(attempt, "a response that is not JSON", url)
                    continue
                self.cache.put(
                    key, url, resp.status_code, resp.headers.get("etag"), resp.headers.get("link"), data
                )
                return Response(url, 200, data, resp.headers.get("link"))
            wait = self._limit_wait(resp)
            if wait is not None:
                seconds, reason = wait
                self._wait(seconds, reason)
                continue
            if resp.status_code >= 500:
                attempt = self._retry(attempt, f"server error {resp.status_code}", url)
                continue
            raise self._error(resp, url)

    def pages(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        start_url: str | None = None,
        max_pages: int | None = None,
    ) -> Iterator[Response]:
        """Each page of a listing, following `Link: rel="next"` (or from `start_url`)."""
        url: str | None = start_url or self.url(path, params)
        count = 0
        while url and (max_pages is None or count < max_pages):
            page = self.get(url)
            count += 1
            yield page
            url = page.next_url

    def all(
        self, path: str, params: Mapping[str, Any] | None = None, max_pages: int | None = None
    ) -> list[Any]:
        """Every element of a paginated listing."""
        out: list[Any] = []
        for page in self.pages(path, params, max_pages=max_pages):
            out.extend(page.data if isinstance(page.data, list) else [page.data])
        return out

    # ------------------------------------------------------------ limits and errors

    def _note_limits(self, headers: httpx.Headers) -> None:
        if "x-ratelimit-remaining" in headers:
            try:
                self.remaining = int(headers["x-ratelimit-remaining"])
                self.limit = int(headers.get("x-ratelimit-limit", "0")) or self.limit
                self.reset_at = float(headers.get("x-ratelimit-reset", "0")) or None
            except ValueError:
                pass

    def _respect_primary_limit(self) -> None:
        if self.remaining == 0 and self.reset_at is not None:
            seconds = self.reset_at - self.clock() + 1
            if seconds > 0:
                self._wait(seconds, "primary rate limit: quota used up until the reset")
            self.remaining = None

    def _limit_wait(self, resp: httpx.Response) -> tuple[float, str] | None:
        if resp.status_code not in (403, 429):
            return None
        retry_after = resp.headers.get("retry-after")
        if retry_after is not None:
            try:
                return max(0.0, float(retry_after)), "secondary rate limit (Retry-After)"
            except ValueError:
                return 60.0, "secondary rate limit"
        if resp.headers.get("x-ratelimit-remaining") == "0":
            reset = float(resp.headers.get("x-ratelimit-reset", "0") or 0)
            return max(1.0, reset - self.clock() + 1), "primary rate limit: quota used up"
        if "rate limit" in resp.text.lower():
            return 60.0, "secondary rate limit"
        return None

    def _wait(self, seconds: float, reason: str) -> None:
        seconds = min(seconds, MAX_WAIT)
        self.counters.waits.append((seconds, reason))
        self.sleep(seconds, reason)

    def _retry(self, attempt: int, why: str, url: str) -> int:
        if attempt >= self.max_retries:
            raise GitHubError(f"gave up on {url} after {attempt + 1} tries: {why}")
        self.counters.retries += 1
        self._wait(self.backoff * (2**attempt), f"{why}; retrying")
        return attempt + 1

    def _error(self, resp: httpx.Response, url: str) -> LoreError:
        try:
            message = resp.json().get("message", "")
        except ValueError:
            message = resp.text[:200]
        path = urlsplit(url).path
        if resp.status_code == 401:
            return GitHubError(f"GitHub refused the token (401 {message}); check GITHUB_TOKEN")
        if resp.status_code == 404:
            hint = "" if self.token else " (a private repository needs GITHUB_TOKEN)"
            return NotFound(f"not found on GitHub: {path}{hint}")
        return GitHubError(f"GitHub answered {resp.status_code} for {path}: {message}")
