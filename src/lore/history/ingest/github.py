"""GitHub -> layer-1 graph: issues, PRs, comments, review comments, files, timeline links.

Issues are read oldest first, a page at a time; for each item its timeline (links and
comments), and for a PR its details, files and review comments. Each page is written with its
checkpoint in one transaction, so a killed run resumes at the next page and rewrites nothing
twice; every response sits in the store's HTTP cache, so re-reading a page costs no request.

Timeline links become edges with three filters (the KAIRO lessons): cross-references from
other repositories are dropped (a popular issue collects them from every tutorial repo); only
a PR can CLOSE; and the reference must come before the close. Anything else is MENTIONS.
Closing keywords in PR texts ("fixes #12") are a fallback for links the timeline lacks.

A bounded run (`max_pages`) stays in one era: commits are read only inside the time window
of the items fetched, because issues page oldest first while commits page newest first.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lore.core.dates import iso_utc as iso
from lore.core.dates import to_epoch
from lore.core.errors import InvalidInput
from lore.core.github import (
    DEFAULT_TTL,
    UNAUTHENTICATED_NOTE,
    GitHubClient,
    api_base,
    discover_token,
)
from lore.history import store as sql
from lore.history.ingest.git import head_commit, ingest_git
from lore.history.ingest.gitlog import repo_root
from lore.history.ingest.identity import closing_refs, is_bot, person_key, pr_from_subject
from lore.history.ingest.progress import Progress, QuietProgress
from lore.history.ingest.writer import GraphWriter
from lore.history.repos import Repo, ingest_lock, registered
from lore.history.store import HistoryStore

PER_PAGE = 100
SLUG = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
CONNECT_PAIRING = 120.0  # seconds between a `connected` event and the PR cross-reference

WRITERS: dict[str, Callable[[HistoryStore, Any], None]] = {
    "items": HistoryStore.upsert_items,
    "comments": HistoryStore.upsert_comments,
    "people": HistoryStore.upsert_people,
    "commits": HistoryStore.insert_commits,
    "changes": HistoryStore.insert_changes,
}


@dataclass
class GitHubIngestReport:
    repo: str
    pages: int = 0
    items: int = 0
    prs: int = 0
    issues: int = 0
    comments: int = 0
    review_comments: int = 0
    closes: int = 0
    mentions: int = 0
    dropped_cross_repo: int = 0
    keyword_closes: int = 0
    commits: int = 0
    window: list[str | None] = field(default_factory=lambda: [None, None])
    requests: int = 0
    cache_hits: int = 0
    not_modified: int = 0
    waits: int = 0
    resumed_from_page: int = 0
    token: str = "none"
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def ts(text: str | None) -> float | None:
    """Epoch seconds of a GitHub timestamp (`2024-03-01T12:00:00Z`); None when GitHub sent none."""
    if not text:
        return None
    return to_epoch(text, what="a GitHub timestamp")


def ingest_github(
    slug: str,
    *,
    max_pages: int | None = None,
    clone: Path | None = None,
    refresh: bool = False,
    progress: Progress | None = None,
    client: GitHubClient | None = None,
    rebuild: bool = False,
) -> GitHubIngestReport:
    """Ingest OWNER/REPO from the GitHub REST API (plus commits from `clone` or the API).

    `rebuild` first deletes everything ingested for the repository (items, comments, links,
    commits, checkpoints; the registration and layer 2 stay) and reads it all again; responses
    still fresh in the HTTP cache cost no request (with `refresh`, each is revalidated)."""
    if not SLUG.match(slug):
        raise InvalidInput(f"not a GitHub repository name: {slug!r} (expected OWNER/REPO)")
    if max_pages is not None and max_pages < 1:
        raise InvalidInput("--max-pages must be at least 1")
    progress = progress or QuietProgress()
    started = time.perf_counter()
    report = GitHubIngestReport(repo=slug)
    own_client = client is None
    if client is None:
        token, source = discover_token()
        report.token = source
        if token is None:
            progress.note(UNAUTHENTICATED_NOTE)
        client = GitHubClient(
            base_url=api_base(),
            token=token,
            store=sql.open_history().store,
            ttl=0 if refresh else DEFAULT_TTL,
            sleep=progress.wait,
        )
    try:
        client.get(f"repos/{slug}")  # fails early and clearly on a wrong name
        clone_root = None
        if clone is not None:
            clone_root = str(repo_root(Path(clone).resolve()))
            head_commit(Path(clone_root))  # refuse an empty clone before registering anything
        with registered(github=slug, clone=clone_root) as repo:
            with ingest_lock(repo):
                if rebuild:
                    with sql.open_history().transaction() as db:
                        db.clear_repo(repo.id)
                _Items(client, repo, slug, report, progress).run(max_pages, refresh)
                _keyword_closes(repo, slug, report)
                bounded = max_pages is not None
                since, until = report.window if bounded else (None, None)
                if clone_root is not None:
                    report.commits = ingest_git(
                        Path(clone_root), since=since, until=until, progress=progress, repo=repo
                    ).commits_added
            if clone_root is None:
                report.commits = _api_commits(client, repo, slug, since, until, max_pages, progress)
    finally:
        c = client.counters
        report.requests, report.cache_hits = c.network, c.cache_hits
        report.not_modified, report.waits = c.not_modified, len(c.waits)
        report.seconds = round(time.perf_counter() - started, 3)
        if own_client:
            client.close()
    return report


def ingest_threads(
    slug: str,
    threads: Iterable[Thread],
    *,
    clone: Path | None = None,
    progress: Progress | None = None,
    page_size: int = PER_PAGE,
) -> GitHubIngestReport:
    """Ingest threads already in hand (a saved export of the API, a benchmark's corpus) exactly as
    `ingest_github` writes what it fetches: same rows, links and filters, a page per transaction,
    then the closing keywords and the clone's commits. No request is made, so nothing is cached
    and no GitHub checkpoint is kept."""
    if not SLUG.match(slug):
        raise InvalidInput(f"not a GitHub repository name: {slug!r} (expected OWNER/REPO)")
    progress = progress or QuietProgress()
    started = time.perf_counter()
    report = GitHubIngestReport(repo=slug)
    clone_root = None
    if clone is not None:
        clone_root = str(repo_root(Path(clone).resolve()))
        head_commit(Path(clone_root))
    with registered(github=slug, clone=clone_root) as repo, ingest_lock(repo):
        writer = _Threads(repo, slug, report, progress)
        progress.start("issues and PRs", None)
        for n, thread in enumerate(threads, 1):
            writer.write(thread)
            progress.advance()
            if n % page_size == 0:
                writer.w.flush(WRITERS)
                report.pages += 1
        if report.items % page_size:  # the last, short page
            writer.w.flush(WRITERS)
            report.pages += 1
        _keyword_closes(repo, slug, report)
        if clone_root is not None:
            report.commits = ingest_git(Path(clone_root), progress=progress, repo=repo).commits_added
    report.seconds = round(time.perf_counter() - started, 3)
    return report


@dataclass
class Thread:
    """Everything GitHub says about one issue or PR, in the REST API's own shapes: the item of
    the issues listing, and for a PR its details, files and review comments; its timeline."""

    item: dict[str, Any]
    pull: dict[str, Any] | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    timeline: list[dict[str, Any]] = field(default_factory=list)


class _Threads:
    """Turns threads into layer-1 nodes, edges and rows (the three link filters included)."""

    def __init__(self, repo: Repo, slug: str, report: GitHubIngestReport, progress: Progress):
        self.repo, self.slug = repo, slug
        self.report, self.progress = report, progress
        self.store = sql.open_history()
        self.w = GraphWriter(self.store, repo.id)
        self.people_seen: set[int] = set()

    # ------------------------------------------------------------ one item

    def _person(self, user: dict | None, at: float | None) -> int | None:
        if not user or not user.get("login"):
            return None
        login = user["login"]
        key, _ = person_key(None, login)
        pid = self.w.node("person", key, login, at)
        if pid not in self.people_seen:
            self.people_seen.add(pid)
            bot = user.get("type") == "Bot" or is_bot(login)
            self.w.rows("people", (pid, self.repo.id, login, None, login, int(bot)))
        return pid

    def _node_for(self, number: int, is_pr: bool) -> int:
        kind = "pr" if is_pr else "issue"
        other = "issue" if is_pr else "pr"
        nid = self.w.ids.get((other, str(number)))
        if nid is not None and (kind, str(number)) not in self.w.ids:
            # a placeholder made from a commit subject guessed the wrong kind
            with self.store.transaction() as db:
                db.retype_node(nid, kind)
            del self.w.ids[(other, str(number))]
            self.w.ids[(kind, str(number))] = nid
        return self.w.node(kind, str(number), f"{'PR' if is_pr else 'Issue'} #{number}")

    def write(self, thread: Thread) -> None:
        """One thread's nodes, edges and rows into the writer (flushed with its page)."""
        raw, pull = thread.item, thread.pull
        number = int(raw["number"])
        is_pr = "pull_request" in raw
        created, closed = ts(raw.get("created_at")), ts(raw.get("closed_at"))
        merged = ts((pull or {}).get("merged_at") or (raw.get("pull_request") or {}).get("merged_at"))
        at = (merged or closed or created) if is_pr else created
        nid = self._node_for(number, is_pr)
        self.w.node("pr" if is_pr else "issue", str(number), raw.get("title") or "", at)
        author = (raw.get("user") or {}).get("login")
        pid = self._person(raw.get("user"), created)
        if pid is not None:
            self.w.edge(pid, nid, "AUTHORED", created)
        self.w.rows(
            "items",
            {
                "node_id": nid,
                "repo_id": self.repo.id,
                "number": number,
                "kind": "pr" if is_pr else "issue",
                "title": raw.get("title") or "",
                "body": raw.get("body") or "",
                "state": raw.get("state"),
                "author": author,
                "author_association": raw.get("author_association"),
                "is_bot": int(is_bot(author) or (raw.get("user") or {}).get("type") == "Bot"),
                "created_at": created,
                "updated_at": ts(raw.get("updated_at")),
                "closed_at": closed,
                "merged_at": merged,
                "merge_commit_sha": (pull or {}).get("merge_commit_sha") if merged else None,
                "url": raw.get("html_url"),
            },
        )
        if is_pr:
            self.report.prs += 1
            self._pull_details(thread, nid, merged or created)
        else:
            self.report.issues += 1
        self.report.items += 1
        self._timeline(number, nid, is_pr, closed, thread.timeline)

    def _pull_details(self, thread: Thread, nid: int, at: float | None) -> None:
        pull = thread.pull or {}
        merged = bool(pull.get("merged_at"))
        if merged and pull.get("merge_commit_sha"):
            cid = self.w.node("commit", pull["merge_commit_sha"])
            self.w.edge(cid, nid, "PART_OF", at)
        for f in thread.files:
            fid = self.w.node("file", f["filename"], f["filename"])
            self.w.edge(nid, fid, "MODIFIED", at)
            if merged and f.get("status") == "renamed" and f.get("previous_filename"):
                old = self.w.node("file", f["previous_filename"], f["previous_filename"])
                self.w.edge(fid, old, "RENAMED_FROM", at)
        for c in thread.review_comments:
            self._comment(c, nid, "review_comment")
            self.report.review_comments += 1

    def _comment(self, c: dict, item_id: int, kind: str) -> None:
        at = ts(c.get("created_at"))
        login = (c.get("user") or {}).get("login")
        pid = self._person(c.get("user"), at)
        if pid is not None:
            self.w.edge(pid, item_id, "COMMENTED_ON", at)
        self.w.rows(
            "comments",
            {
                "id": int(c["id"]),
                "kind": kind,
                "repo_id": self.repo.id,
                "item_id": item_id,
                "author": login,
                "author_association": c.get("author_association"),
                "is_bot": int(is_bot(login) or (c.get("user") or {}).get("type") == "Bot"),
                "body": c.get("body") or "",
                "path": c.get("path"),
                "line": c.get("line") or c.get("original_line"),
                "diff_hunk": c.get("diff_hunk"),
                "commit_sha": c.get("commit_id"),
                "in_reply_to": c.get("in_reply_to_id"),
                "created_at": at,
                "updated_at": ts(c.get("updated_at")),
                "url": c.get("html_url"),
            },
        )

    def _timeline(
        self, number: int, nid: int, is_pr: bool, closed_at: float | None, events: list[dict[str, Any]]
    ) -> None:
        closes = [ts(e.get("created_at")) for e in events if e.get("event") == "closed"]
        last_close = max([c for c in closes if c is not None], default=closed_at)
        connected = [ts(e.get("created_at")) for e in events if e.get("event") == "connected"]
        refs: list[tuple[int, bool, float | None, Any]] = []  # (number, is_pr, at, merged_at)
        for e in events:
            kind = e.get("event")
            at = ts(e.get("created_at"))
            if kind == "commented" and e.get("id") is not None:
                self._comment(e, nid, "issue_comment")
                self.report.comments += 1
            elif kind in ("cross-referenced", "connected") and (e.get("source") or {}).get("issue"):
                src = e["source"]["issue"]
                repo = (src.get("repository") or {}).get("full_name") or self.slug
                if repo.lower() != self.slug.lower():
                    self.report.dropped_cross_repo += 1  # filter 1: same repository only
                    continue
                pr_info = src.get("pull_request")
                refs.append(
                    (int(src["number"]), pr_info is not None, at, (pr_info or {}).get("merged_at", "unknown"))
                )
            elif kind == "referenced" and e.get("commit_id"):
                url = e.get("commit_url") or ""
                if f"/repos/{self.slug.lower()}/commits/" not in url.lower():
                    self.report.dropped_cross_repo += 1
                    continue
                cid = self.w.node("commit", e["commit_id"])
                self.w.edge(cid, nid, "MENTIONS", at)
                self.report.mentions += 1
            elif kind == "committed" and is_pr and e.get("sha"):
                self.w.edge(self.w.node("commit", e["sha"]), nid, "PART_OF", None)
        paired = {_nearest(refs, t) for t in connected}
        for i, (src_number, src_is_pr, at, merged_at) in enumerate(refs):
            if src_number == number:
                continue
            src = self._node_for(src_number, src_is_pr)
            explicit = i in paired
            closes_it = (
                not is_pr
                and src_is_pr  # filter 2: only a PR closes, and it closes an issue
                and merged_at is not None  # a PR known to be unmerged closed nothing
                and last_close is not None
                and at is not None
                and at <= last_close  # filter 3: the reference precedes the close
            )
            if closes_it or (
                explicit
                and not is_pr
                and src_is_pr
                and last_close is not None
                and at is not None
                and at <= last_close + CONNECT_PAIRING
            ):
                self.w.edge(src, nid, "CLOSES", last_close)
                self.report.closes += 1
            else:
                self.w.edge(src, nid, "MENTIONS", at)
                self.report.mentions += 1


class _Items(_Threads):
    """Pages of issues and PRs read from the API, each written with its checkpoint."""

    def __init__(
        self, client: GitHubClient, repo: Repo, slug: str, report: GitHubIngestReport, progress: Progress
    ):
        super().__init__(repo, slug, report, progress)
        self.client = client

    def run(self, max_pages: int | None, refresh: bool = False) -> None:
        state = self.store.get_sync(self.repo.id, "github") or {}
        params: dict[str, Any] = {"state": "all", "sort": "created", "direction": "asc", "per_page": PER_PAGE}
        if state.get("next") and state.get("max_pages") == max_pages:
            start_url, pages_done = state["next"], state.get("pages", 0)
            self.report.resumed_from_page = pages_done + 1
        else:
            start_url, pages_done = None, 0
            if refresh and state.get("complete_since") and max_pages is None:
                params["since"] = state["complete_since"]  # only items updated since
        window = state.get("window") if start_url else None
        lo, hi = window or [None, None]
        run_started = iso(time.time())
        budget = None if max_pages is None else max(0, max_pages - pages_done)
        self.progress.start("issues and PRs", None)
        for page in self.client.pages(
            "repos/" + self.slug + "/issues", params, start_url=start_url, max_pages=budget
        ):
            pages_done += 1
            for raw in page.data:
                self.write(self.fetch(raw))
                created = raw.get("created_at")
                lo = created if lo is None or created < lo else lo
                hi = created if hi is None or created > hi else hi
                self.progress.advance()
            done_state = {
                "next": page.next_url,
                "pages": pages_done,
                "max_pages": max_pages,
                "window": [lo, hi],
                "complete_since": state.get("complete_since"),
            }
            if page.next_url is None and max_pages is None:
                done_state = {
                    "next": None,
                    "pages": pages_done,
                    "max_pages": None,
                    "window": [lo, hi],
                    "complete_since": run_started,
                }
            elif max_pages is not None and pages_done >= max_pages:
                done_state["next"] = None  # the bounded run is complete
            self.w.flush(WRITERS, extra=self._checkpoint(done_state))
            self.report.pages += 1
        self.report.window = [lo, hi]

    def _checkpoint(self, state: dict[str, Any]) -> Callable[[HistoryStore], None]:
        """The sync state written in the same transaction as the page it describes."""
        return lambda db: db.set_sync(self.repo.id, "github", state)

    def fetch(self, raw: dict[str, Any]) -> Thread:
        """Everything the API says about one issue or PR of a page: its details, files, review
        comments and timeline (each request answered from the cache when it can be)."""
        number = int(raw["number"])
        thread = Thread(raw)
        if "pull_request" in raw:
            pull = self.client.get(f"repos/{self.slug}/pulls/{number}").data or {}
            thread.pull = pull
            if pull.get("changed_files", 1):
                thread.files = self.client.all(
                    f"repos/{self.slug}/pulls/{number}/files", {"per_page": PER_PAGE}, max_pages=30
                )
            if pull.get("review_comments", 1):
                thread.review_comments = self.client.all(
                    f"repos/{self.slug}/pulls/{number}/comments", {"per_page": PER_PAGE}
                )
        thread.timeline = self.client.all(
            f"repos/{self.slug}/issues/{number}/timeline", {"per_page": PER_PAGE}
        )
        return thread


def _nearest(refs: list[tuple[int, bool, float | None, Any]], t: float | None) -> int | None:
    """The PR cross-reference closest in time to a `connected` event (REST names no PR)."""
    best, best_gap = None, None
    for i, (_n, is_pr, at, _m) in enumerate(refs):
        if not is_pr or at is None or t is None:
            continue
        gap = abs(at - t)
        if gap <= CONNECT_PAIRING and (best_gap is None or gap < best_gap):
            best, best_gap = i, gap
    return best


def _keyword_closes(repo: Repo, slug: str, report: GitHubIngestReport) -> None:
    """`fixes #12` in a merged PR's title or body closes issue 12 when the timeline did not say.

    Same filters as the timeline: same repository (the regex only accepts this repo), the
    target is an issue, and the PR existed before the issue was closed.
    """
    store = sql.open_history()
    prs = store.merged_prs(repo.id)
    issues = store.issue_close_times(repo.id)
    rows = []
    for pr in prs:
        for number in closing_refs(f"{pr.title}\n{pr.body}", slug):
            target = issues.get(number)
            if target is None:
                continue
            issue_id, closed_at = target
            if closed_at is not None and pr.created_at is not None and pr.created_at > closed_at:
                continue
            rows.append((pr.node_id, issue_id, "CLOSES", closed_at or pr.merged_at))
    if rows:
        with store.transaction() as db:
            report.keyword_closes = db.graph.add_edges(rows)


def _api_commits(
    client: GitHubClient,
    repo: Repo,
    slug: str,
    since: str | None,
    until: str | None,
    max_pages: int | None,
    progress: Progress,
) -> int:
    """Commits from the API (when no clone is given), one extra request per commit for files."""
    store = sql.open_history()
    known = store.known_shas(repo.id)
    w = GraphWriter(store, repo.id)
    added = 0
    progress.start("commits (API)", None)
    params = {"per_page": PER_PAGE, "since": since, "until": until}
    people_seen: set[int] = set()
    for page in client.pages(f"repos/{slug}/commits", params, max_pages=max_pages):
        for item in page.data:
            sha = item["sha"]
            if sha in known:
                continue
            detail = client.get(f"repos/{slug}/commits/{sha}").data
            _api_commit(w, repo.id, detail, people_seen)
            known.add(sha)
            added += 1
            progress.advance()
        w.flush(WRITERS)
    return added


def _api_commit(w: GraphWriter, repo_id: int, d: dict, people_seen: set[int]) -> None:
    info = d.get("commit") or {}
    author, committer = info.get("author") or {}, info.get("committer") or {}
    at = ts(committer.get("date")) or ts(author.get("date")) or 0.0
    login = (d.get("author") or {}).get("login")
    bot = is_bot(author.get("name"), author.get("email"), login)
    key, login = person_key(author.get("email"), login)
    pid = w.node("person", key, author.get("name") or login or key, at)
    if pid not in people_seen:
        people_seen.add(pid)
        w.rows("people", (pid, repo_id, author.get("name") or "", author.get("email"), login, int(bot)))
    message = info.get("message") or ""
    subject = message.split("\n", 1)[0]
    cid = w.node("commit", d["sha"], subject[:200], at)
    w.edge(pid, cid, "AUTHORED", at)
    parents = [p["sha"] for p in d.get("parents") or []]
    for parent in parents:
        w.edge(cid, w.node("commit", parent), "PARENT", at)
    pr = pr_from_subject(subject)
    if pr is not None:
        w.edge(cid, w.node("pr", str(pr), f"PR #{pr}", at), "PART_OF", at)
    added = removed = 0
    files = d.get("files") or []
    for f in files:
        fid = w.node("file", f["filename"], f["filename"], at)
        w.edge(cid, fid, "MODIFIED", at)
        status = {"added": "A", "removed": "D", "renamed": "R"}.get(f.get("status"), "M")
        w.rows(
            "changes",
            (cid, fid, status, f.get("previous_filename"), f.get("additions", 0), f.get("deletions", 0), at),
        )
        if status == "R" and f.get("previous_filename"):
            old = w.node("file", f["previous_filename"], f["previous_filename"])
            w.edge(fid, old, "RENAMED_FROM", at)
        added += f.get("additions", 0)
        removed += f.get("deletions", 0)
    w.rows(
        "commits",
        (
            cid,
            repo_id,
            d["sha"],
            " ".join(parents),
            author.get("name") or "",
            author.get("email") or "",
            ts(author.get("date")) or at,
            committer.get("name") or "",
            committer.get("email") or "",
            at,
            subject,
            message,
            int(bot),
            len(files),
            added,
            removed,
            pr,
            "github",
        ),
    )
