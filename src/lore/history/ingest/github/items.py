"""The issues stream: pages of issues and PRs read from the API oldest first, each item with its
details, files, review comments and timeline, each page written with its checkpoint in one
transaction so a killed run resumes at the next page.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from lore.core.dates import iso_utc as iso
from lore.core.github import GitHubClient
from lore.history.ingest.github.base import PER_PAGE, WRITERS, GitHubIngestReport
from lore.history.ingest.github.threads import Thread, ThreadWriter
from lore.history.ingest.progress import Progress
from lore.history.repos import Repo
from lore.history.store import HistoryStore


class ItemPages(ThreadWriter):
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
