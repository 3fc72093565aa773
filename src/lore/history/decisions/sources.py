"""What extract reads: threads and commit messages as labelled sections, in salience order.

A decision must rest on one section (an item's body, one comment, one commit message) spoken by
someone who can bind the project, so sections are built with their speaker and standing, and a
thread in which nobody with standing wrote anything is not read at all (no model call can
produce a decision the checks would keep). The order is cheap and needs no model: threads with
maintainers in them, links to other items and many comments first; commits that are merges or
squashes of a PR, then those with the longest bodies. Commits without a body (a subject alone)
are left out: a subject says what, rarely why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from lore.core.dates import iso_utc
from lore.history.decisions.authority import for_comment, for_commit
from lore.history.decisions.schema import PROMPT_VERSION
from lore.history.decisions.store import CommitText, DecisionStore, Post, Thread, ThreadSummary

POST_CHARS = 6000  # of one post or commit message shown to the model
CHUNK_CHARS = 14000  # of one prompt's sections
COMMITS_PER_CALL = 8


@dataclass(frozen=True)
class Section:
    """One labelled piece of source text; a quote must be found in `text` itself."""

    label: str
    text: str
    speaker: str
    role: str  # OWNER, MEMBER, COLLABORATOR, committer, or the standing GitHub gave (NONE...)
    rule: str | None  # the rule that lets the speaker bind the project (`authority.RULES`), or None
    when: float
    source_kind: str  # comment | commit
    comment_kind: str | None
    comment_id: int | None
    commit_sha: str | None
    source_node: int
    item_number: int | None
    url: str | None
    path: str | None  # the file a review comment is on
    # what the section answers: its thread's title and opening post (a rationale may rest on it:
    # "Agreed, ..." adopts the reason the issue gave); empty for a commit or the opening post
    opening: str = ""

    @property
    def authority(self) -> bool:
        return self.rule is not None

    def header(self) -> str:
        date = (iso_utc(self.when) or "")[:10]
        if self.source_kind == "commit":
            standing = "a committer of the repository" if self.authority else "not a committer"
            return f"[{self.label}] commit {(self.commit_sha or '')[:10]} by {self.speaker} ({standing}) on {date}"
        what = {"body": "opened the thread", "review_comment": "review comment", "issue_comment": "comment"}
        on = f" on {self.path}" if self.path else ""
        kind = what.get(self.comment_kind or "", "comment")
        return f"[{self.label}] {self.speaker} ({self.role}), {kind}{on}, {date}"


@dataclass
class Job:
    """One model call: its prompt, the sections it shows, and the sources it finishes."""

    prompt: str
    sections: dict[str, Section]
    sources: list[tuple[str, str]]  # (mark key, text digest) finished when all its jobs succeed
    group: str  # a thread's jobs share a group; a commit batch is its own
    headers: list[str] = field(default_factory=list)  # the prompt's own wording, which no quote may be


@dataclass
class Plan:
    threads: list[list[Job]] = field(default_factory=list)  # each thread's jobs, most salient first
    commits: list[Job] = field(default_factory=list)
    skipped_threads: int = 0  # nobody with standing wrote in them
    skipped_commits: int = 0  # bots, no body, or an author who is not a committer


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in (PROMPT_VERSION, *parts):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def thread_salience(t: ThreadSummary) -> tuple:
    return (-(3 * t.maintainer_posts + 2 * t.links + t.comments), -t.comments, -t.number)


def commit_salience(c: CommitText) -> tuple:
    merged = c.parents > 1 or c.pr_number is not None
    return (not merged, -len(body_of(c.message)), -c.committed_at)


def body_of(message: str) -> str:
    _, _, body = message.strip().partition("\n")
    return body.strip()


def _role(post: Post) -> str:
    return (post.association or "NONE").upper()


def thread_sections(thread: Thread) -> list[Section]:
    out = []
    first = thread.posts[0] if thread.posts and thread.posts[0].kind == "body" else None
    opening = f"{thread.title}\n{first.body if first else ''}".strip()
    for n, post in enumerate(thread.posts):
        if post.is_bot or not post.body.strip():
            continue
        role = _role(post)
        out.append(
            Section(
                label=f"S{n}",
                text=post.body,
                speaker=post.author or "unknown",
                role=role,
                rule=for_comment(role),
                when=post.created_at or 0.0,
                source_kind="comment",
                comment_kind=post.kind,
                comment_id=post.comment_id,
                commit_sha=None,
                source_node=thread.node_id,
                item_number=thread.number,
                url=post.url or thread.url,
                path=post.path,
                opening="" if post.kind == "body" else opening,
            )
        )
    return out


def thread_jobs(repo_name: str, thread: Thread, sections: list[Section]) -> list[Job]:
    """The thread in prompts of at most CHUNK_CHARS of sections each, the opening post first in
    every one (it says what the thread is about)."""
    kind = "Pull request" if thread.kind == "pr" else "Issue"
    head = f"Repository: {repo_name}\n{kind} #{thread.number}: {thread.title}\n\n"
    opening = [s for s in sections if s.comment_kind == "body"]
    rest = [s for s in sections if s.comment_kind != "body"]
    chunks: list[list[Section]] = []
    size = sum(len(s.text[:POST_CHARS]) for s in opening)
    current: list[Section] = list(opening)
    for s in rest:
        length = len(s.text[:POST_CHARS])
        if current and size + length > CHUNK_CHARS and len(current) > len(opening):
            chunks.append(current)
            current, size = list(opening), sum(len(o.text[:POST_CHARS]) for o in opening)
        current.append(s)
        size += length
    if current:
        chunks.append(current)
    text_digest = digest(*(s.label + s.text for s in sections))
    group = f"item:{thread.number}"
    jobs = []
    for chunk in chunks:
        body = "\n\n".join(f"{s.header()}:\n{s.text[:POST_CHARS]}" for s in chunk)
        ask = "List the project decisions this thread states."
        prompt = head + f"<thread>\n{body}\n</thread>\n\n{ask}"
        headers = [f"Repository: {repo_name}", f"{kind} #{thread.number}", ask, *(s.header() for s in chunk)]
        jobs.append(Job(prompt, {s.label: s for s in chunk}, [(group, text_digest)], group, headers))
    return jobs


def commit_section(c: CommitText, label: str, rule: str | None, github: str | None) -> Section:
    return Section(
        label=label,
        text=c.message,
        speaker=f"{c.author_name} <{c.author_email}>",
        role="committer" if rule else "author",
        rule=rule,
        when=c.committed_at,
        source_kind="commit",
        comment_kind=None,
        comment_id=None,
        commit_sha=c.sha,
        source_node=c.node_id,
        item_number=c.pr_number,
        url=f"https://github.com/{github}/commit/{c.sha}" if github else None,
        path=None,
    )


def commit_jobs(repo_name: str, batch: list[Section]) -> Job:
    body = "\n\n".join(f"{s.header()}:\n{s.text[:POST_CHARS]}" for s in batch)
    ask = "List the project decisions these commit messages state."
    prompt = f"Repository: {repo_name}\n\n<commits>\n{body}\n</commits>\n\n{ask}"
    sources = [(f"commit:{s.commit_sha}", digest(s.text)) for s in batch]
    headers = [f"Repository: {repo_name}", ask, *(s.header() for s in batch)]
    return Job(prompt, {s.label: s for s in batch}, sources, sources[0][0], headers)


def plan(
    db: DecisionStore,
    repo_id: int,
    repo_name: str,
    github: str | None,
    *,
    since: float | None = None,
    done: dict[str, str] | None = None,
    maintainers: set[str] | None = None,
) -> Plan:
    """Every call extract would make, most salient first; sources in `done` (mark key -> digest)
    whose text has not changed since are left out. `maintainers`: the emails the first-parent
    rule grants authority (`authority.first_parent_maintainers`; none when not given)."""
    maintainers = maintainers or set()
    done = done or {}
    out = Plan()
    for summary in sorted(db.thread_summaries(repo_id, since), key=thread_salience):
        if summary.maintainer_posts == 0:
            out.skipped_threads += 1
            continue
        thread = db.thread(summary.node_id)
        if thread is None:
            continue
        sections = thread_sections(thread)
        jobs = thread_jobs(repo_name, thread, sections)
        if jobs and done.get(jobs[0].group) == jobs[0].sources[0][1]:
            continue
        if jobs:
            out.threads.append(jobs)
    eligible: list[Section] = []
    for c in sorted(db.commits(repo_id, since), key=commit_salience):
        rule = for_commit(c.author_email, c.pr_by_member, maintainers)
        if c.is_bot or not body_of(c.message) or rule is None:
            out.skipped_commits += 1
            continue
        section = commit_section(c, "", rule, github)
        if done.get(f"commit:{c.sha}") == digest(c.message):
            continue
        eligible.append(section)
    for start in range(0, len(eligible), COMMITS_PER_CALL):
        batch = [_relabel(s, f"C{n}") for n, s in enumerate(eligible[start : start + COMMITS_PER_CALL], 1)]
        out.commits.append(commit_jobs(repo_name, batch))
    return out


def _relabel(s: Section, label: str) -> Section:
    return replace(s, label=label)


def in_budget(p: Plan, max_calls: int | None) -> tuple[list[Job], int]:
    """The jobs to run: threads and commit batches taken in turn (so a repository with both gets
    both), whole threads only, up to `max_calls`; and how many calls were left out."""
    order: list[list[Job]] = []
    threads, commits = iter(p.threads), iter([[j] for j in p.commits])
    for pair in _alternate(threads, commits):
        order.append(pair)
    chosen: list[Job] = []
    left = 0
    for jobs in order:
        if max_calls is not None and len(chosen) + len(jobs) > max_calls:
            left += len(jobs)
            continue
        chosen += jobs
    return chosen, left


def _alternate(a: Iterable[list[Job]], b: Iterable[list[Job]]) -> Iterable[list[Job]]:
    ia, ib = iter(a), iter(b)
    while True:
        got = False
        for it in (ia, ib):
            item = next(it, None)
            if item is not None:
                got = True
                yield item
        if not got:
            return
