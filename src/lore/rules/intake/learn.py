"""`lore learn`: review feedback from the repository's pull requests, as candidate rules.

Reads the PR review comments of the `origin` remote on GitHub through the REST API (token from
GITHUB_TOKEN or `gh auth token`; responses cached by `lore.core.github`). Only comments whose
author GitHub calls OWNER, MEMBER or COLLABORATOR count, since anyone can comment on a public
repository; `include_external` lifts that for one run. Bots, replies inside a thread and
one-word comments ("nit", "LGTM") are left out. Comments that say the same thing across pull
requests are grouped, so feedback given three times arrives as one candidate with three pieces
of evidence, listed first.

Every attempt is recorded, failed ones too, so the agent is not sent to retry a broken setup
(no `gh` login) in every session: see `last_review_attempt`.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from lore.core import git
from lore.core.config import load_settings
from lore.core.dates import iso_utc, to_epoch
from lore.core.errors import InvalidInput, LoreError
from lore.core.git import Remote, parse_remote
from lore.core.github import GitHubClient, GitHubError, api_base, discover_token
from lore.core.text import build_tokenizer
from lore.rules import service
from lore.rules.gate.validation import MAX_RULE_CHARS
from lore.rules.intake.candidates import Candidate, Saved, save_candidates
from lore.rules.intake.splitting import pack, rule_title
from lore.rules.models import Project
from lore.rules.projects import project_root
from lore.rules.store.rules import rules_store

TRUSTED = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
MIN_CHARS = 15
SIMILAR = 0.5  # token overlap (Jaccard) at which two comments say the same thing
MAX_PAGES = 20  # 2,000 comments, newest first
MAX_WAIT_SECONDS = 30.0  # what an agent's tool call waits for GitHub at most, in all
_SUGGESTION = re.compile(r"```suggestion\b.*?```", re.S)
_CODE = re.compile(r"```.*?```", re.S)
_QUOTE = re.compile(r"^>.*$", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def github_remote(root: Path) -> Remote:
    url = git.remote_url(root, "origin")
    if not url:
        raise InvalidInput(f"{root} has no `origin` remote; learn reads review comments from GitHub")
    remote = parse_remote(url)
    if remote is None:
        raise InvalidInput(f"cannot read owner/repo from the origin URL {url!r}")
    if remote.host != "github.com" and api_base() == "https://api.github.com":
        raise InvalidInput(f"origin is on {remote.host}, not github.com; set LORE_GITHUB_API to its API URL")
    return remote


def can_learn(root: Path) -> bool:
    """Whether `lore learn` can read review feedback here: an origin on GitHub (the same
    detection learn uses) and a token from the same lookup (GITHUB_TOKEN, GH_TOKEN, `gh`).

    Without a token GitHub allows 60 requests an hour and no private repository, so an agent
    is only sent to read reviews when a token is there.
    """
    try:
        github_remote(root)
    except LoreError:
        return False
    token, _where = discover_token()
    return token is not None


def parse_since(value: str | dt.date | dt.datetime | None) -> str | None:
    """An ISO 8601 UTC time GitHub accepts, from a date or date-time."""
    if value is None or value == "":
        return None
    return iso_utc(to_epoch(value, what="--since"))


# -- reading and cleaning comments ----------------------------------------------------------------------
@dataclass
class Feedback:
    text: str
    evidence: dict[str, Any]
    tokens: frozenset[str]


def clean_comment(body: str) -> str:
    """The words of a review comment: no quoted lines, HTML comments, or code (a suggestion block
    is marked as such)."""
    text = _COMMENT.sub("", body or "")
    text = _SUGGESTION.sub(" (with a suggested change) ", text)
    text = _CODE.sub(" (code) ", text)
    text = _QUOTE.sub("", text)
    return " ".join(text.split())


def _is_bot(user: dict[str, Any]) -> bool:
    login = str(user.get("login", ""))
    return user.get("type") == "Bot" or login.endswith("[bot]")


def _pr_number(comment: dict[str, Any]) -> int | None:
    url = str(comment.get("pull_request_url", ""))
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else None


def keep(comment: dict[str, Any], include_external: bool, since: str | None) -> str | None:
    """Why a comment is left out, or None when it counts."""
    user = comment.get("user") or {}
    if _is_bot(user):
        return "bot"
    if comment.get("in_reply_to_id"):
        return "reply"
    if not include_external and comment.get("author_association") not in TRUSTED:
        return "external"
    if since and str(comment.get("created_at", "")) < since:
        return "older"
    if len(clean_comment(str(comment.get("body", "")))) < MIN_CHARS:
        return "short"
    return None


def _feedback(comment: dict[str, Any], tok: Callable[[str], list[str]]) -> Feedback:
    text = clean_comment(str(comment.get("body", "")))
    if len(text) > MAX_RULE_CHARS:
        text = pack(re.split(r"(?<=[.!?])\s+", text), " ")[0]
    evidence = {
        "file": comment.get("path"),
        "line": comment.get("line") or comment.get("original_line"),
        "url": comment.get("html_url"),
        "author": (comment.get("user") or {}).get("login"),
        "association": comment.get("author_association"),
        "pr": _pr_number(comment),
        "created_at": comment.get("created_at"),
    }
    return Feedback(text, evidence, frozenset(tok(text)))


def _similar(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def group_feedback(items: list[Feedback]) -> list[list[Feedback]]:
    """Comments saying the same thing, grouped (each joins the group it overlaps most)."""
    groups: list[list[Feedback]] = []
    for item in items:
        best, score = None, 0.0
        for group in groups:
            s = max(_similar(item.tokens, other.tokens) for other in group)
            if s > score:
                best, score = group, s
        if best is not None and score >= SIMILAR:
            best.append(item)
        else:
            groups.append([item])
    return sorted(
        groups, key=lambda g: (-len({f.evidence["pr"] for f in g}), -len(g), -max(_ts(f) for f in g))
    )


def _ts(item: Feedback) -> float:
    try:
        return to_epoch(str(item.evidence["created_at"]))
    except InvalidInput:
        return 0.0


def _scope(group: list[Feedback]) -> list[str]:
    """The file type all comments of a group were made on, else global."""
    suffixes = {PurePosixPath(str(f.evidence["file"] or "")).suffix for f in group}
    if len(suffixes) == 1 and (suffix := suffixes.pop()):
        return [f"**/*{suffix}"]
    return []


def _candidate(group: list[Feedback]) -> Candidate:
    # the comment closest to all the others says it best; ties go to the shorter one
    best = max(group, key=lambda f: (sum(_similar(f.tokens, o.tokens) for o in group), -len(f.text)))
    prs = sorted({f.evidence["pr"] for f in group if f.evidence["pr"] is not None})
    head = f"Review feedback ({len(group)}x in {len(prs)} PRs)" if len(group) > 1 else "Review feedback"
    return Candidate(
        text=best.text,
        title=rule_title(head, best.text),
        scope=_scope(group),
        kind="review",
        evidence=[f.evidence for f in group],
    )


# -- entry points ---------------------------------------------------------------------------------------
def _project(path_or_project: str | Path | Project) -> Project:
    if isinstance(path_or_project, Project):
        return path_or_project
    return service.register_project(path_or_project)[0]


def learn_from_reviews(
    project: str | Path | Project,
    include_external: bool = False,
    since: str | dt.date | None = None,
    *,
    max_pages: int = MAX_PAGES,
    sleep: Callable[[float, str], None] | None = None,
) -> list[Candidate]:
    """Grouped review feedback of the project's GitHub repository; nothing is saved. The attempt
    is recorded either way. Without `sleep`, waits for GitHub (rate limits, retries) stop after
    30 seconds in all, since an agent is waiting for the answer."""
    proj = _known_project(project)
    store = rules_store()
    try:
        candidates, detail = _read_reviews(proj, include_external, parse_since(since), max_pages, sleep)
    except LoreError as exc:
        if proj.id:
            store.record_review_attempt(proj.id, False, str(exc))
        raise
    except Exception as exc:  # an unexpected failure still counts as an attempt
        if proj.id:
            store.record_review_attempt(proj.id, False, f"{type(exc).__name__}: {exc}")
        raise
    if not proj.id:  # the reviews could be read: now the folder becomes a project
        proj = service.register_project(proj.path)[0]
    store.record_review_attempt(proj.id, True, detail)
    return candidates


def _known_project(path_or_project: str | Path | Project) -> Project:
    """The registered project, or an unsaved one (id 0) for a repository Lore does not know
    yet: a `learn` that fails (no GitHub remote, offline) must not register the folder."""
    if isinstance(path_or_project, Project):
        return path_or_project
    found = service.project_for_path(path_or_project)
    if found:
        return found
    root = project_root(Path(path_or_project))  # not a git repository: refused here
    return Project(id=0, name=root.name, path=root, sections=(), created_at=0.0)


def short_waits(budget: float = MAX_WAIT_SECONDS) -> Callable[[float, str], None]:
    """A sleep for callers that cannot wait long (an agent's tool call): waits up to `budget`
    seconds in all, then gives up with a one-line error saying when to try again."""
    spent = 0.0

    def sleep(seconds: float, reason: str) -> None:
        nonlocal spent
        if spent + seconds > budget:
            raise GitHubError(
                f"GitHub asks to wait {seconds:.0f}s ({reason}); try again later or run "
                "`lore learn` in a terminal, which waits"
            )
        spent += seconds
        time.sleep(seconds)

    return sleep


def _read_reviews(
    project: Project,
    include_external: bool,
    since: str | None,
    max_pages: int,
    sleep: Callable[[float, str], None] | None,
) -> tuple[list[Candidate], str]:
    remote = github_remote(project.path)
    token, _where = discover_token()
    tok = build_tokenizer(load_settings().tokenizer)
    params = {"per_page": 100, "sort": "created", "direction": "desc", "since": since}
    with GitHubClient(token=token, sleep=sleep or short_waits()) as client:
        comments = client.all(f"repos/{remote.slug}/pulls/comments", params, max_pages=max_pages)
    left_out: dict[str, int] = {}
    kept: list[Feedback] = []
    for comment in comments:
        if not isinstance(comment, dict):
            continue
        reason = keep(comment, include_external, since)
        if reason:
            left_out[reason] = left_out.get(reason, 0) + 1
            continue
        kept.append(_feedback(comment, lambda text: tok.tokens(text, topics=False)))
    groups = group_feedback(kept)
    detail = f"{len(comments)} comments, {len(kept)} kept, {len(groups)} groups; left out: " + (
        ", ".join(f"{n} {why}" for why, n in sorted(left_out.items())) or "none"
    )
    return [_candidate(g) for g in groups], detail


def last_review_attempt(project: Project) -> float | None:
    """When review feedback was last read for the project (successfully or not), or None."""
    return rules_store().last_review_attempt(project.id)


def learn(
    path: str | Path,
    include_external: bool = False,
    since: str | None = None,
    sleep: Callable[[float, str], None] | None = None,
) -> tuple[Project, list[Candidate], Saved]:
    """Read the review feedback and save it as pending rules (source "learn")."""
    candidates = learn_from_reviews(path, include_external, since, sleep=sleep)
    project = _project(path)  # registered by now: the reviews were read
    saved = save_candidates(project, candidates, status="pending", source="learn")
    return project, candidates, saved
