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

The ingest lives in modules of one stream each: `base` (what they share, the report), `run`
(a run: `ingest_github`, `ingest_threads`), `items` (the issues stream, page by page),
`threads` (one thread into the graph), `links` (pairing and closing keywords), `commits`
(commits from the API when there is no clone).
"""

from __future__ import annotations

from lore.history.ingest.github.base import PER_PAGE, SLUG, GitHubIngestReport, ts
from lore.history.ingest.github.run import ingest_github, ingest_threads
from lore.history.ingest.github.threads import Thread

__all__ = ["PER_PAGE", "SLUG", "GitHubIngestReport", "Thread", "ingest_github", "ingest_threads", "ts"]
