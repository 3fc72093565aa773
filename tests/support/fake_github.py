"""A real HTTP server on 127.0.0.1 that answers like the GitHub REST API, for tests.

Load it with issues, PRs, comments, review comments, timeline events and commits; it serves
them with GitHub's shapes, `Link` pagination (`per_page` caps the page size, so a test
can force many pages), rate-limit headers, ETags (304 on a match), and
scripted trouble: a 502 before success, a primary or secondary rate limit, slow answers,
dropped connections. Every request is logged.

    with FakeGitHub("acme", "widget") as gh:
        gh.add_issue(1, "Crash on start", user="alice", created_at="2024-01-02T00:00:00Z")
        gh.add_pr(2, "Fix crash", body="Fixes #1", files=[{"filename": "app.py"}],
                  merged_at="2024-01-03T00:00:00Z")
        gh.add_review_comment(2, "Use a context manager here", user="bob",
                              association="MEMBER", path="app.py", line=3)
        gh.cross_reference(1, source=2, at="2024-01-02T12:00:00Z")
        gh.close(1, at="2024-01-03T00:00:00Z")
        os.environ["LORE_GITHUB_API"] = gh.url
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from support.clock import FakeClock


def _user(login: str) -> dict[str, Any]:
    return {
        "login": login,
        "id": abs(hash(login)) % 10**7,
        "type": "Bot" if login.endswith("[bot]") else "User",
    }


@dataclass
class Trouble:
    """A scripted failure for requests whose path contains `match`."""

    match: str
    kind: str  # "502" | "primary" | "secondary" | "drop" | "slow"
    times: int = 1
    seconds: float = 0.0


@dataclass
class _Item:
    data: dict[str, Any]
    pull: dict[str, Any] | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


class FakeGitHub:
    def __init__(
        self,
        owner: str = "acme",
        repo: str = "widget",
        *,
        per_page: int = 100,
        rate_limit: int = 5000,
        reset_in: float = 3600,
        clock: FakeClock | None = None,
    ):
        self.owner, self.repo = owner, repo
        self.viewer: str | None = None  # the login `GET /user` names
        self.per_page = per_page
        self.rate_limit = rate_limit
        self.remaining = rate_limit
        self.reset_in = reset_in
        # rate-limit windows follow this clock; a FakeClock shared with the client skips the waits
        self.fake_clock = clock
        self.clock: Callable[[], float] = clock.now if clock is not None else time.time
        self.reset_at = self.clock() + reset_in
        self.auth_seen: list[str | None] = []
        self.items: dict[int, _Item] = {}
        self.commits: list[dict[str, Any]] = []  # oldest first
        self.troubles: list[Trouble] = []
        self.log: list[tuple[str, int]] = []  # (path?query, status) once answered
        self.arrived: list[str] = []  # path?query as each request arrives
        self._lock = threading.Lock()
        self._arrival = threading.Condition(self._lock)  # notified as each request arrives
        self._closing = threading.Event()  # set by stop(): ends "slow" answers at once
        self._next_id = 1000
        # bound now, so `url` is known while loading data; served once started
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._server.block_on_close = False  # a "slow" answer must not hold up stop()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ loading data

    @property
    def slug(self) -> str:
        return f"{self.owner}/{self.repo}"

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _api(self, rest: str) -> str:
        return f"{self.url}/repos/{self.slug}/{rest}"

    def add_issue(
        self,
        number: int,
        title: str,
        *,
        body: str = "",
        user: str = "alice",
        association: str = "NONE",
        created_at: str = "2024-01-01T00:00:00Z",
        closed_at: str | None = None,
        labels: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        data = {
            "id": self._id(),
            "number": number,
            "title": title,
            "body": body,
            "user": _user(user),
            "author_association": association,
            "state": "closed" if closed_at else "open",
            "created_at": created_at,
            "updated_at": closed_at or created_at,
            "closed_at": closed_at,
            "comments": 0,
            "labels": [{"name": n} for n in labels],
            "html_url": f"https://github.com/{self.slug}/issues/{number}",
        }
        self.items[number] = _Item(data)
        return data

    def add_pr(
        self,
        number: int,
        title: str,
        *,
        body: str = "",
        user: str = "alice",
        association: str = "MEMBER",
        created_at: str = "2024-01-01T00:00:00Z",
        merged_at: str | None = None,
        closed_at: str | None = None,
        merge_commit_sha: str | None = None,
        files: list[dict[str, Any]] | None = None,
        commits: list[str] = (),
    ) -> dict[str, Any]:
        closed_at = closed_at or merged_at
        data = self.add_issue(
            number,
            title,
            body=body,
            user=user,
            association=association,
            created_at=created_at,
            closed_at=closed_at,
        )
        data["pull_request"] = {"url": self._api(f"pulls/{number}"), "merged_at": merged_at}
        data["html_url"] = f"https://github.com/{self.slug}/pull/{number}"
        item = self.items[number]
        item.files = [{"status": "modified", "additions": 1, "deletions": 0, **f} for f in (files or [])]
        item.pull = {
            "number": number,
            "title": title,
            "body": body,
            "user": _user(user),
            "author_association": association,
            "state": data["state"],
            "created_at": created_at,
            "updated_at": data["updated_at"],
            "closed_at": closed_at,
            "merged_at": merged_at,
            "merged": merged_at is not None,
            "merge_commit_sha": merge_commit_sha,
            "changed_files": len(item.files),
            "comments": 0,
            "review_comments": 0,
            "head": {"ref": f"feature-{number}"},
            "base": {"ref": "main"},
        }
        for sha in commits:
            item.events.append(
                {"event": "committed", "sha": sha, "node_id": f"C_{sha[:8]}", "message": f"commit {sha[:7]}"}
            )
        return data

    def add_comment(
        self,
        number: int,
        body: str,
        *,
        user: str = "bob",
        association: str = "CONTRIBUTOR",
        at: str = "2024-01-01T01:00:00Z",
    ) -> dict:
        item = self.items[number]
        comment = {
            "id": self._id(),
            "body": body,
            "user": _user(user),
            "author_association": association,
            "created_at": at,
            "updated_at": at,
            "html_url": f"{item.data['html_url']}#issuecomment-{self._next_id}",
            "issue_url": self._api(f"issues/{number}"),
        }
        item.comments.append(comment)
        item.data["comments"] = len(item.comments)
        if item.pull:
            item.pull["comments"] = len(item.comments)
        item.events.append({"event": "commented", "actor": _user(user), **comment})
        return comment

    def add_review_comment(
        self,
        number: int,
        body: str,
        *,
        user: str = "bob",
        association: str = "MEMBER",
        path: str = "app.py",
        line: int = 1,
        diff_hunk: str = "@@ -1 +1 @@",
        commit_id: str = "0" * 40,
        at: str = "2024-01-01T02:00:00Z",
        in_reply_to: int | None = None,
    ) -> dict:
        item = self.items[number]
        assert item.pull is not None, "review comments belong to pull requests"
        comment = {
            "id": self._id(),
            "body": body,
            "user": _user(user),
            "author_association": association,
            "path": path,
            "line": line,
            "original_line": line,
            "diff_hunk": diff_hunk,
            "commit_id": commit_id,
            "created_at": at,
            "updated_at": at,
            "pull_request_url": self._api(f"pulls/{number}"),
            "html_url": f"{item.data['html_url']}#discussion_r{self._next_id}",
        }
        if in_reply_to is not None:
            comment["in_reply_to_id"] = in_reply_to
        item.review_comments.append(comment)
        item.pull["review_comments"] = len(item.review_comments)
        return comment

    def cross_reference(
        self,
        number: int,
        *,
        source: int,
        at: str,
        source_repo: str | None = None,
        source_is_pr: bool | None = None,
        source_merged_at: str | None = None,
    ) -> None:
        """Item `source` (of this repo, or `source_repo`) mentioned item `number`."""
        repo = source_repo or self.slug
        src: dict[str, Any] = {"number": source, "repository": {"full_name": repo}}
        if repo == self.slug and source in self.items:
            src.update({k: v for k, v in self.items[source].data.items() if k != "body"})
            src["repository"] = {"full_name": repo}
        elif source_is_pr:
            src["pull_request"] = {"merged_at": source_merged_at}
        self.items[number].events.append(
            {
                "event": "cross-referenced",
                "actor": _user("alice"),
                "created_at": at,
                "updated_at": at,
                "source": {"type": "issue", "issue": src},
            }
        )

    def connect(self, number: int, *, at: str) -> None:
        self.items[number].events.append(
            {
                "id": self._id(),
                "event": "connected",
                "actor": _user("alice"),
                "created_at": at,
                "commit_id": None,
                "commit_url": None,
            }
        )

    def close(self, number: int, *, at: str, commit_id: str | None = None) -> None:
        item = self.items[number]
        item.data.update(state="closed", closed_at=at, updated_at=at)
        item.events.append(
            {
                "id": self._id(),
                "event": "closed",
                "actor": _user("alice"),
                "created_at": at,
                "commit_id": commit_id,
                "commit_url": self._api(f"commits/{commit_id}") if commit_id else None,
            }
        )

    def reference(self, number: int, *, sha: str, at: str, repo: str | None = None) -> None:
        """A commit (here, or in `repo`) mentioned the item in its message."""
        where = repo or self.slug
        self.items[number].events.append(
            {
                "id": self._id(),
                "event": "referenced",
                "actor": _user("alice"),
                "created_at": at,
                "commit_id": sha,
                "commit_url": f"{self.url}/repos/{where}/commits/{sha}",
            }
        )

    def add_commit(
        self,
        sha: str,
        message: str,
        *,
        author: str = "alice",
        email: str = "alice@example.com",
        at: str = "2024-01-01T00:00:00Z",
        parents: list[str] = (),
        files: list[dict[str, Any]] = (),
    ) -> None:
        person = {"name": author, "email": email, "date": at}
        self.commits.append(
            {
                "sha": sha,
                "commit": {"author": person, "committer": person, "message": message},
                "author": _user(author),
                "committer": _user(author),
                "parents": [{"sha": p} for p in parents],
                "files": [{"status": "modified", "additions": 1, "deletions": 0, **f} for f in files],
            }
        )

    def trouble(self, match: str, kind: str, times: int = 1, seconds: float = 0.0) -> None:
        """Script a failure: "502", "primary" / "secondary" rate limit, "drop", "slow"."""
        with self._lock:
            self.troubles.append(Trouble(match, kind, times, seconds))

    def wait_for_request(self, contains: str, timeout: float = 60.0) -> bool:
        """Block until a request whose path contains `contains` has arrived (woken by each
        arrival, never polling); False when `timeout` passed first."""
        with self._arrival:
            return self._arrival.wait_for(lambda: any(contains in p for p in self.arrived), timeout)

    def requests(self, contains: str = "") -> list[str]:
        """Requests received so far (answered or not) whose path contains `contains`."""
        with self._lock:
            return [p for p in self.arrived if contains in p]

    # ------------------------------------------------------------ serving

    def start(self) -> FakeGitHub:
        # a short poll: shutdown() waits for the serving loop's next look at its flag
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        if self._thread is not None:
            self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _take_trouble(self, path: str) -> Trouble | None:
        with self._lock:
            for t in self.troubles:
                if t.match in path and t.times > 0:
                    t.times -= 1
                    return t
        return None

    def route(self, path: str, query: dict[str, str]) -> Any:
        if path == "/user":  # who the token belongs to; set `viewer` to answer
            return _user(self.viewer) if self.viewer else None
        base = f"/repos/{self.slug}"
        if path == base:
            return {"full_name": self.slug, "default_branch": "main", "private": False}
        if not path.startswith(base + "/"):
            return None
        rest = path[len(base) + 1 :]
        if rest == "issues":
            items = sorted(self.items.values(), key=lambda i: (i.data["created_at"], i.data["number"]))
            since = query.get("since")
            rows = [i.data for i in items if not since or i.data["updated_at"] >= since]
            if query.get("direction") == "desc":
                rows.reverse()
            return rows
        if rest == "pulls/comments":
            return [c for i in self.items.values() for c in i.review_comments]
        if rest == "commits":
            rows = [
                c
                for c in reversed(self.commits)
                if (not query.get("since") or c["commit"]["committer"]["date"] >= query["since"])
                and (not query.get("until") or c["commit"]["committer"]["date"] <= query["until"])
            ]
            return [{k: v for k, v in c.items() if k != "files"} for c in rows]
        m = re.fullmatch(r"commits/([0-9a-f]+)", rest)
        if m:
            return next((c for c in self.commits if c["sha"] == m.group(1)), None)
        m = re.fullmatch(r"(issues|pulls)/(\d+)(?:/(\w+))?", rest)
        if not m:
            return None
        item = self.items.get(int(m.group(2)))
        if item is None:
            return None
        kind, sub = m.group(1), m.group(3)
        if kind == "issues":
            return {None: item.data, "timeline": item.events, "comments": item.comments}.get(sub)
        if item.pull is None:
            return None
        return {None: item.pull, "files": item.files, "comments": item.review_comments}.get(sub)


def _handler(gh: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            with gh._lock:
                gh.arrived.append(self.path)
                gh._arrival.notify_all()
                gh.auth_seen.append(self.headers.get("Authorization"))
                if gh.clock() >= gh.reset_at:
                    gh.remaining, gh.reset_at = gh.rate_limit, gh.clock() + gh.reset_in
                exhausted = gh.remaining <= 0
            if exhausted:
                return self._send(
                    403,
                    {"message": "API rate limit exceeded"},
                    {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(gh.reset_at) + 1)},
                )
            trouble = gh._take_trouble(self.path)
            if trouble is not None:
                if trouble.kind == "drop":
                    self._log(0)
                    self.close_connection = True
                    self.connection.close()
                    return
                if trouble.kind == "slow":
                    gh._closing.wait(trouble.seconds)
                elif trouble.kind == "502":
                    return self._send(502, {"message": "Bad Gateway"})
                elif trouble.kind == "secondary":
                    return self._send(
                        403,
                        {"message": "You have exceeded a secondary rate limit"},
                        {"Retry-After": str(int(trouble.seconds))},
                    )
                elif trouble.kind == "primary":
                    return self._send(
                        403,
                        {"message": "API rate limit exceeded"},
                        {
                            "X-RateLimit-Remaining": "0",
                            "X-RateLimit-Reset": str(int(gh.clock() + trouble.seconds)),
                        },
                    )
            data = gh.route(parts.path, query)
            if data is None:
                return self._send(404, {"message": "Not Found"})
            headers: dict[str, str] = {}
            if isinstance(data, list):
                per_page = min(int(query.get("per_page", gh.per_page)), gh.per_page)
                page = int(query.get("page", 1))
                last = max(1, -(-len(data) // per_page))
                data = data[(page - 1) * per_page : page * per_page]
                links = []
                for rel, n in (("next", page + 1), ("last", last)):
                    if (rel == "next" and page < last) or rel == "last":
                        q = {**query, "page": str(n)}
                        links.append(f'<{gh.url}{parts.path}?{urlencode(q)}>; rel="{rel}"')
                headers["Link"] = ", ".join(links)
            body = json.dumps(data).encode()
            etag = '"' + hashlib.sha1(body).hexdigest() + '"'
            headers["ETag"] = etag
            if self.headers.get("If-None-Match") == etag:
                return self._send(304, None, headers)
            self._send(200, data, headers, body)

        def _send(
            self, status: int, data: Any, headers: dict[str, str] | None = None, body: bytes | None = None
        ) -> None:
            if status != 304 and body is None:
                body = json.dumps(data).encode()
            with gh._lock:
                if status not in (304,) and "X-RateLimit-Remaining" not in (headers or {}):
                    gh.remaining = max(0, gh.remaining - 1)
                remaining = gh.remaining
            self._log(status)
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("X-RateLimit-Limit", str(gh.rate_limit))
            if "X-RateLimit-Remaining" not in (headers or {}):
                self.send_header("X-RateLimit-Remaining", str(remaining))
                self.send_header("X-RateLimit-Reset", str(int(gh.reset_at) + 1))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            if body:  # a client may hang up first (a test that stops a fetch half-way)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

        def _log(self, status: int) -> None:
            with gh._lock:
                gh.log.append((self.path, status))

    return Handler
