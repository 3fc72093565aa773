"""JSON routes of the history view (`/api/history`): each parses its input, calls one history
function, answers.

Repositories are named by their exact name as `lore history` lists them (`?repo=acme/app`), never
by a folder: the page has no business probing the server's disk. A moment (`as_of`) is a date or
an ISO 8601 time read by `core.dates`; the page sends the end of the chosen day. Every route is a
plain `def`, so FastAPI runs it in a worker thread with its own SQLite connection.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from lore.core.dates import to_epoch
from lore.core.errors import NotFound
from lore.core.llm import model_configured
from lore.history import queries
from lore.history.decisions.service import all_decisions, decisions
from lore.history.decisions.supersede import supersessions, unsupersede
from lore.history.repos import Repo, all_repos
from lore.history.timeline import file_timeline
from lore.history.why.service import why

router = APIRouter()

# one definition per kind of parameter, shared through Annotated: one Query object given as the
# default of several parameters is not safe to share (a route's `since` once read `as_of`)
RepoName = Annotated[
    str, Query(min_length=1, max_length=300, description="The repository's name, as listed.")
]
Moment = Annotated[str | None, Query(max_length=64, description="A date or ISO 8601 time: what held then.")]
FilePath = Annotated[str, Query(min_length=1, max_length=1000, description="A path, or its unique end.")]


class WhyRequest(BaseModel):
    repo: str = Field(min_length=1, max_length=300)
    question: str = Field(min_length=1, max_length=2000)
    as_of: str | None = Field(default=None, max_length=64)
    model: bool | None = None  # None: use a model when one is configured


class UndoRequest(BaseModel):
    repo: str = Field(min_length=1, max_length=300)


def _repo(name: str) -> Repo:
    found = all_repos()
    for repo in found:
        if repo.name == name:
            return repo
    known = ", ".join(r.name for r in found) or "none yet; run `lore history ingest PATH`"
    raise NotFound(f"no ingested repository called {name!r} (known: {known})")


def _moment(value: str | None) -> float | None:
    return to_epoch(value, what="as_of") if value else None


def _until(value: str | None) -> str | None:
    """`as_of` for the queries that take it as text: refused here, as `as_of`, when not a date."""
    _moment(value)
    return value or None


@router.get("/repos")
def repos() -> list[dict[str, Any]]:
    """Every ingested repository with its counts and span, and how many decisions it holds.

    `prs` and `issues` count every PR and issue the history knows, the same ones a file's
    timeline lists: those named by commit subjects (`Fix x (#12)`, `Merge pull request #12`)
    and those read from GitHub. `items_fetched` counts only the latter (their threads)."""
    return [_repo_counts(r) for r in all_repos()]


def _repo_counts(repo: Repo) -> dict[str, Any]:
    data = queries.stats(repo)
    nodes = data["nodes"]
    return {
        **data,
        "prs": nodes.get("pr", 0),
        "issues": nodes.get("issue", 0),
        "decisions": len(all_decisions(repo)),
    }


@router.get("/files")
def files(repo: RepoName, q: str = Query("", max_length=300), limit: int = 20) -> list[dict[str, Any]]:
    return queries.find_files(_repo(repo), q, limit)


@router.get("/timeline")
def timeline(
    repo: RepoName,
    path: FilePath,
    as_of: Moment = None,
) -> dict[str, Any]:
    return file_timeline(_repo(repo), path, as_of=_moment(as_of))


@router.get("/decisions")
def decisions_in_force(
    repo: RepoName,
    as_of: Moment = None,
    file: str | None = Query(None, max_length=1000),
) -> list[dict[str, Any]]:
    """The decisions in force at `as_of` (now when absent), optionally about one file."""
    return [d.as_dict() for d in decisions(_repo(repo), as_of=_moment(as_of), file=file or None)]


@router.post("/supersessions/{supersession_id}/undo")
def undo(supersession_id: int, request: UndoRequest) -> dict[str, Any]:
    """Undo a supersession of this repository: the row is kept, stamped undone, and the earlier
    decision is in force again unless `still_superseded_by` names a later one that replaces it."""
    target = _repo(request.repo)
    if supersession_id not in {s.id for s in supersessions(target)}:
        raise NotFound(f"no supersession {supersession_id} in {target.name}")
    return unsupersede(supersession_id).as_dict()


@router.get("/churn")
def churn(
    repo: RepoName, n: int = Query(10, ge=1, le=100), since: Moment = None, as_of: Moment = None
) -> dict[str, Any]:
    """The files with most lines changed, counting only commits up to `as_of` when given."""
    return {"files": queries.churn(_repo(repo), n=n, since=since, until=_until(as_of))}


@router.get("/hotspots")
def hotspots(
    repo: RepoName,
    days: int = Query(90, ge=1, le=36500),
    n: int = Query(10, ge=1, le=100),
    as_of: Moment = None,
) -> dict[str, Any]:
    """The files changed most often in the `days` before `as_of` (else the last commit)."""
    return queries.hotspots(_repo(repo), days=days, n=n, until=_until(as_of))


@router.post("/why")
def why_answer(request: WhyRequest) -> dict[str, Any]:
    """The ranked evidence for a question, a path or PATH:LINE, with a checked answer when a
    model is configured and asked for (`model` not false)."""
    report = why(_repo(request.repo), request.question, as_of=_moment(request.as_of), use_model=request.model)
    return {**report.to_dict(), "model_configured": model_configured()}
