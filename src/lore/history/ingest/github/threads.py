"""Threads into the graph: one issue or PR, as the REST API shapes it, turned into layer-1 nodes,
edges and rows: the item, its author, comments and review comments, a PR's files and merge
commit, and its timeline's links through the three filters (same repository only, only a PR
closes, and the reference comes before the close; anything else is MENTIONS).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore.history import store as sql
from lore.history.ingest.github.base import GitHubIngestReport, ts
from lore.history.ingest.github.links import CONNECT_PAIRING, nearest
from lore.history.ingest.identity import is_bot, person_key
from lore.history.ingest.progress import Progress
from lore.history.ingest.writer import GraphWriter
from lore.history.repos import Repo


@dataclass
class Thread:
    """Everything GitHub says about one issue or PR, in the REST API's own shapes: the item of
    the issues listing, and for a PR its details, files and review comments; its timeline."""

    item: dict[str, Any]
    pull: dict[str, Any] | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    timeline: list[dict[str, Any]] = field(default_factory=list)


class ThreadWriter:
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
        paired = {nearest(refs, t) for t in connected}
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
