"""The commits stream when no clone is given: commits read from the API, one extra request per
commit for its files, written as the local ingest writes them.
"""

from __future__ import annotations

from lore.core.github import GitHubClient
from lore.history import store as sql
from lore.history.ingest.github.base import PER_PAGE, WRITERS, ts
from lore.history.ingest.identity import is_bot, person_key, pr_from_subject
from lore.history.ingest.progress import Progress
from lore.history.ingest.writer import GraphWriter
from lore.history.repos import Repo


def api_commits(
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
